/**
 * How the CLI shows the engine's events: under `--json` every event as one JSON line on stdout; otherwise text on
 * stderr (each failed file as it fails, warnings, `-v` details) and a progress bar when stderr is a terminal.
 */
import { displayText } from '../errors';
import { learnedKeysMessage } from '../ssh/hostKeys';
import type { EngineEvent } from '../transfer/types';
import { ProgressBar, type BarStream } from './progressBar';
import { FailedTargets, fileRoute } from './summary';
import { formatBytes } from './units';

/** The options that shape the output. */
export interface OutputOptions {
  json?: boolean;
  verbose?: boolean;
  /** false with `--no-progress`. */
  progress: boolean;
}

/** Streams the output goes to; default process.stdout / process.stderr. */
export interface OutputStreams {
  stdout: NodeJS.WritableStream;
  stderr: BarStream;
}

/** The CLI's view of a job. */
export interface Output {
  /** An informational line (a JSON `log` event under `--json`). */
  info(msg: string): void;
  /** Shows one engine event. */
  event(e: EngineEvent): void;
  /** The failed files' targets, for the summary. */
  readonly failedTargets: FailedTargets;
  /** Ends the progress bar, if any. Safe to call more than once. */
  done(): void;
}

/**
 * Makes the output for one job.
 * @param o `--json`, `-v` and `--progress`
 * @param label the progress bar's label (`'up  '` or `'down'`)
 * @param streams default process.stdout / process.stderr; the bar is drawn only when `streams.stderr.isTTY`
 */
export function makeOutput(o: OutputOptions, label: string, streams: OutputStreams = { stdout: process.stdout, stderr: process.stderr }): Output {
  const failedTargets = new FailedTargets();
  const note = (e: EngineEvent): void => { if (e.type === 'file') failedTargets.note(e); };
  if (o.json) {
    return {
      info: (msg) => streams.stdout.write(`${JSON.stringify({ type: 'log', level: 'info', message: msg })}\n`),
      event: (e) => { note(e); streams.stdout.write(`${JSON.stringify(e)}\n`); },
      failedTargets,
      done: () => undefined,
    };
  }
  const bar = streams.stderr.isTTY === true && o.progress ? new ProgressBar(label, streams.stderr) : null;
  const line = (text: string): void => { bar?.stop(); streams.stderr.write(`${text}\n`); };
  return {
    info: line,
    event: (e) => {
      note(e);
      const text = humanText(e, o.verbose === true);
      if (text !== undefined) line(text);
      else if (e.type === 'progress') bar?.update(e);
    },
    failedTargets,
    done: () => bar?.stop(),
  };
}

/**
 * The stderr line for an event, or undefined when it shows none. A failed file is named as it fails, with its code
 * (`sluice: FAILED SOURCE → TARGET (CODE)`); its message comes once, in the summary (summary.ts), so that a log holds
 * each reason once. A file that failed because the job was interrupted (ABORTED) shows nothing: the CLI says
 * "transfer interrupted" once for the whole job.
 */
export function humanText(e: EngineEvent, verbose: boolean): string | undefined {
  switch (e.type) {
    case 'file':
      if (e.state === 'failed' && e.error?.code !== 'ABORTED') return `sluice: FAILED ${fileRoute(e.path, e.target)}${e.error ? ` (${e.error.code})` : ''}`;
      if (e.state === 'done' && verbose) {
        return `sluice: done ${fileRoute(e.path, e.target)} (${formatBytes(e.size)}${e.verify ? `, verified: ${e.verify}` : ''})`;
      }
      if (e.state === 'skipped' && verbose) return `sluice: skipped ${fileRoute(e.path, e.target)}${e.reason ? `: ${displayText(e.reason, 500)}` : ''}`;
      return undefined;
    case 'log':
      return e.level !== 'info' || verbose ? `sluice: ${e.message}` : undefined;
    case 'hostKeysLearned':
      return verbose ? `sluice: ${learnedKeysMessage(e.host, e.port, e.keys, e.file)}` : undefined;
    default:
      return undefined;
  }
}
