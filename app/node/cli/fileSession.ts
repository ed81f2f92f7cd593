/**
 * How a file command (`sluice ls|stat|mkdir|rm|mv|chmod|ln|df`) reaches its server: the same URL forms, saved sites,
 * ssh_config aliases, jump hosts and login as get/put (cli/jobSetup.ts), one connection with one SFTP channel (the
 * recursive commands keep many requests in flight on it), signals as get/put's (the first Ctrl-C cancels at once and
 * exits 130), and its failures through the same table of exit codes (docs/cli.md).
 */
import fs from 'node:fs';
import { SluiceError, displayText, exitCodeFor, terminalText, type ErrorCode } from '../errors';
import { remoteFilesOf, type Engine } from '../engine/engine';
import type { RemoteFiles } from '../engine/remoteFiles';
import { parseRemoteUrl, remoteOperandHint, type RemoteSpec } from '../engine/remoteSpec';
import { POOL_DEFAULTS } from '../ssh/connectionPool';
import { applyBookmark, storeLookup, withBookmark } from './bookmarks';
import { CLOSED_PIPE_EXIT_CODE, onStdoutClosed, stdoutClosed } from './closedPipe';
import { toFatal, writeFatal, type FatalError } from './fatal';
import { connectedLine, engineOptions, openJobEngine } from './jobSetup';
import type { CliOptions } from './program';
import { SIGNAL_EXIT_CODES, guardSignals } from './signals';

/** The connection options every file command takes (a subset of get/put's). */
export type FileCommandOptions = Pick<
  CliOptions,
  | 'identity'
  | 'agent'
  | 'batch'
  | 'acceptNew'
  | 'json'
  | 'verbose'
  | 'cipher'
  | 'kex'
  | 'mac'
  | 'hostKeyAlgorithms'
  | 'keepalive'
  | 'keepaliveCount'
  | 'connectTimeout'
  | 'jump'
  | 'sshConfig'
>;

/** What a command's action gets: the server's file operations, its paths (`~` resolved), and where to say things. */
export interface FileContext {
  files: RemoteFiles;
  /** The operands' remote paths, in order, `~` and the login folder resolved. */
  paths: string[];
  signal: AbortSignal;
  json: boolean;
  verbose: boolean;
  /** A line for the user on stderr, escaped (server text may be in it). */
  say(line: string): void;
  /** A line of the command's output on stdout (already escaped by the caller where it holds server text). */
  print(line: string): void;
  /** One failure that does not end the command: said on stderr, a `{"type":"error"}` line under --json, counted. */
  failed(e: unknown): void;
}

/**
 * Splits operands into one server and its paths, as get does for its sources. A URL whose host is a saved site's
 * name means that site.
 * @throws SluiceError USAGE for an operand that is not an sftp:// URL (with the hint for scp-style text) or for URLs
 *   on several servers
 */
export function resolveRemotes(command: string, operands: string[]): { spec: RemoteSpec; paths: string[] } {
  const lookup = storeLookup();
  let spec: RemoteSpec | undefined;
  const paths: string[] = [];
  for (const text of operands) {
    const parsed = parseRemoteUrl(text);
    if (!parsed) {
      const hint = remoteOperandHint(text, (p) => fs.existsSync(p));
      throw new SluiceError(
        'USAGE',
        `${command} needs sftp:// URLs, got ${JSON.stringify(text)}${hint ? `: ${hint}` : ''}`,
      );
    }
    const p = applyBookmark(parsed, text, lookup);
    if (spec && (p.host !== spec.host || p.port !== spec.port || (p.user ?? '') !== (spec.user ?? ''))) {
      throw new SluiceError('USAGE', `all operands of one ${command} must be on the same server and user`);
    }
    spec ??= p;
    paths.push(p.path);
  }
  if (!spec) throw new SluiceError('USAGE', `${command} needs an sftp:// URL`);
  return { spec, paths };
}

/** get/put's options for a file command: one connection, one channel, no transfer settings. */
function asCliOptions(o: FileCommandOptions): CliOptions {
  return {
    ...o,
    clobber: true,
    resume: false,
    verify: 'size',
    progress: false,
    requests: POOL_DEFAULTS.requests,
    segmentSize: POOL_DEFAULTS.segmentSize,
    retries: 1,
    connections: 1,
    channels: 1,
  };
}

/** The exit code of failures that did not end a command: their shared category, else 1 (as get/put's report). */
export function exitCodeOfFailures(codes: readonly ErrorCode[]): number {
  if (!codes.length) return 0;
  const exits = new Set(codes.map((c) => exitCodeFor(c)));
  return exits.size === 1 ? [...exits][0] : 1;
}

/**
 * Connects to the server of `operands` and runs `action`; every failure is reported here (cli/fatal.ts).
 * @param operands the command's sftp:// URLs
 * @returns the exit code: the action's, raised to the failures' ({@link exitCodeOfFailures}) or a signal's
 */
export async function runFileCommand(
  command: string,
  operands: string[],
  given: FileCommandOptions,
  action: (ctx: FileContext) => Promise<void>,
): Promise<number> {
  const json = given.json === true;
  const abort = new AbortController();
  let engine: Engine | null = null;
  const failures: ErrorCode[] = [];
  const guard = guardSignals({
    cancel: () => abort.abort(),
    cleanupPending: () => false,
    write: (text) => process.stderr.write(`${text}\n`),
    quit: (exitCode, message) => {
      if (json)
        process.stdout.write(
          `${JSON.stringify({ type: 'error', code: 'ABORTED', message, exitCode } satisfies FatalError)}\n`,
        );
      process.exit(exitCode);
    },
  });
  const unwatchPipe = onStdoutClosed(() => abort.abort());
  try {
    const { spec, paths } = resolveRemotes(command, operands);
    const o = { ...withBookmark(asCliOptions(given), spec.bookmark), connections: 1, channels: 1 };
    const say = (line: string) => process.stderr.write(`${terminalText(line)}\n`);
    const out = {
      info: (m: string) => say(m),
      event: (e: { type: string; level?: string; message?: string }) => {
        if (e.type === 'log' && (o.verbose || e.level === 'warn') && e.message) say(`sluice: ${e.message}`);
      },
    };
    const stats = paths.filter((p) => p.startsWith('/'));
    engine = await openJobEngine(
      { ...engineOptions({ direction: 'get', spec, sources: [], dest: '' }, o, out), prefetch: { stat: stats } },
      spec,
      o,
    );
    if (o.verbose) say(connectedLine(spec, engine));
    const files = remoteFilesOf(engine);
    const resolved: string[] = [];
    for (const p of paths) resolved.push(await files.resolve(p));
    await action({
      files,
      paths: resolved,
      signal: abort.signal,
      json,
      verbose: o.verbose === true,
      say,
      print: (line) => process.stdout.write(`${line}\n`),
      failed: (e) => {
        const f = toFatal(e);
        failures.push(f.code);
        say(`sluice: ${command}: ${f.message}`);
        if (json)
          process.stdout.write(
            `${JSON.stringify({ type: 'error', code: f.code, message: displayText(f.message, Infinity) })}\n`,
          );
      },
    });
    if (stdoutClosed()) return CLOSED_PIPE_EXIT_CODE;
    return guard.exitCode() ?? exitCodeOfFailures(failures);
  } catch (e) {
    if (stdoutClosed()) return CLOSED_PIPE_EXIT_CODE;
    const f = toFatal(e, guard.received && SIGNAL_EXIT_CODES[guard.received]);
    return writeFatal({ ...f, message: `${command}: ${f.message}` }, json);
  } finally {
    unwatchPipe();
    await engine?.close();
    guard.dispose();
  }
}
