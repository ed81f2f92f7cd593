/**
 * Fatal errors of a CLI run (a refused connection, a refused or changed host key, failed authentication, a usage
 * error, an interrupt): one human line on stderr and, under `--json`, one
 * `{"type":"error","code":…,"message":…,"exitCode":…}` line on stdout, so that a script reading the events sees
 * why the run ended.
 */
import { SluiceError, exitCodeFor, terminalText, type ErrorCode } from '../errors';

/** The `--json` line of a fatal error. */
export interface FatalError {
  type: 'error';
  /** Stable code (errors.ts ErrorCode). */
  code: ErrorCode;
  message: string;
  /** The process's exit code. */
  exitCode: number;
}

/**
 * Describes a fatal error.
 * @param e what the run threw; anything else is mapped by SluiceError.from (INTERNAL for a bug of ours)
 * @param exitCode overrides the code's exit code (an interrupt by SIGTERM exits 143, not ABORTED's 130)
 */
export function toFatal(e: unknown, exitCode?: number): FatalError {
  const se = SluiceError.from(e);
  return { type: 'error', code: se.code, message: se.message, exitCode: exitCode ?? exitCodeFor(se.code) };
}

/** Streams of {@link writeFatal}; default process.stdout / process.stderr. */
export interface FatalStreams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * Reports a fatal error: `sluice: MESSAGE` on stderr unless `humanAlreadyShown` (commander prints its own usage
 * errors), and the JSON line on stdout when `json`.
 * @returns `f.exitCode`
 */
export function writeFatal(
  f: FatalError,
  json: boolean,
  opts: { humanAlreadyShown?: boolean; streams?: FatalStreams } = {},
): number {
  const streams = opts.streams ?? { stdout: process.stdout, stderr: process.stderr };
  if (!opts.humanAlreadyShown) streams.stderr.write(`sluice: ${terminalText(f.message)}\n`);
  if (json) streams.stdout.write(`${JSON.stringify(f)}\n`);
  return f.exitCode;
}

/**
 * Whether `--json` was asked for in `argv` (process.argv-style), for errors that happen before or while the options
 * are parsed: any `--json` before a `--` that ends the options.
 */
export function wantsJson(argv: readonly string[]): boolean {
  const args = argv.slice(2);
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).includes('--json');
}
