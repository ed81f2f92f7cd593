/**
 * How the CLI shows the engine's events: under `--json` every event as one JSON line on stdout; otherwise text on
 * stderr (each failed file as it fails, warnings, `-v` details) and a progress bar when stderr is a terminal.
 */
import { limitedByText } from '../../common/stats/bottleneck';
import { isTransient } from '../../common/retry';
import { displayText, terminalText } from '../errors';
import { learnedKeysMessage } from '../ssh/hostKeys';
import type { EngineEvent } from '../transfer/types';
import { ProgressBar, type BarStream, type ProgressEvent } from './progressBar';
import { JobNotes, fileRoute } from './summary';
import { formatBytes } from './units';

/** The options that shape the output. */
export interface OutputOptions {
  json?: boolean;
  verbose?: boolean;
  /** false with `--no-progress`. */
  progress: boolean;
  /**
   * The run may try again after a transient failure (`--retries` above 1): a file failed by a lost connection or a
   * timeout is then not named as it fails; the retry line says what happened, and the summary names every file that
   * still failed when the run gives up.
   */
  mayRetry?: boolean;
}

/** A new try after a transient failure (cli/retry.ts): the `--json` line, and what the human line says. */
export interface RetryNotice {
  type: 'retry';
  /** The try about to start (2 = the first retry). */
  attempt: number;
  /** Tries in all (`--retries`). */
  of: number;
  /** The wait before it, ms. */
  delayMs: number;
  /** The failure that calls for it (errors.ts ErrorCode: CONNECTION_LOST, CONNECTION_STALLED, TIMEOUT). */
  code: string;
  message: string;
  /** Payload bytes the failed try moved over the wire (TransferReport.movedBytes; 0 when it ended without a report). */
  movedBytes: number;
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
  /** Says that the run tries again: {@link retryLine} on stderr, or the notice as a JSON line under `--json`. */
  retry(n: RetryNotice): void;
  /** What the summary needs of the job's file events (failed targets, failures said, skip reasons). */
  readonly notes: JobNotes;
  /** Ends the progress bar, if any. Safe to call more than once. */
  done(): void;
  /**
   * Ends the progress bar for good, before a signal's message: what a cancelled job reports next is no progress
   * (its bytes are counted back out), and a bar drawn under the message would garble it.
   */
  halt(): void;
}

/**
 * Makes the output for one job.
 * @param o `--json`, `-v` and `--progress`
 * @param label the progress bar's label (`'up  '` or `'down'`)
 * @param streams default process.stdout / process.stderr; the bar is drawn only when `streams.stderr.isTTY`
 */
export function makeOutput(
  o: OutputOptions,
  label: string,
  streams: OutputStreams = { stdout: process.stdout, stderr: process.stderr },
): Output {
  const notes = new JobNotes();
  if (o.json) {
    return {
      info: (msg) => streams.stdout.write(`${JSON.stringify({ type: 'log', level: 'info', message: msg })}\n`),
      event: (e) => {
        if (e.type === 'file') notes.note(e);
        streams.stdout.write(`${JSON.stringify(e)}\n`);
      },
      retry: (n) => streams.stdout.write(`${JSON.stringify(n)}\n`),
      notes,
      done: () => undefined,
      halt: () => undefined,
    };
  }
  let bar = streams.stderr.isTTY === true && o.progress ? new ProgressBar(label, streams.stderr) : null;
  const line = (text: string): void => {
    bar?.stop();
    streams.stderr.write(`${terminalText(text)}\n`);
  };
  const limits = new LimitLines();
  let failedFiles = 0;
  return {
    info: line,
    event: (e) => {
      const limit = o.verbose === true ? limits.lineFor(e) : undefined;
      if (limit !== undefined) line(limit);
      const text = humanText(e, o.verbose === true, o.mayRetry === true);
      if (e.type === 'file') {
        notes.note(e, text !== undefined);
        if (e.state === 'failed') failedFiles++;
      }
      if (text !== undefined) line(text);
      else if (e.type === 'progress' && (bar?.active || inFlight(e, failedFiles))) bar?.update(e);
    },
    // The next try counts its files afresh: the ones this try failed are sent again.
    retry: (n) => {
      failedFiles = 0;
      line(retryLine(n));
    },
    notes,
    done: () => bar?.stop(),
    halt: () => {
      bar?.stop();
      bar = null;
    },
  };
}

/**
 * Whether a progress event shows work left (folders still walked, or files neither done, skipped nor failed): a bar
 * that a printed line ended is drawn again only then, never as an empty bar after the job's last file failed.
 */
function inFlight(e: ProgressEvent, failedFiles: number): boolean {
  return e.scanning || e.filesDone + (e.filesSkipped ?? 0) + failedFiles < e.filesTotal;
}

/**
 * The stderr line for an event, or undefined when it shows none. A failed file is said once, as it fails, with its
 * message (`sluice: FAILED SOURCE → TARGET: MESSAGE`, the hint in the message); the summary does not repeat it. A file
 * that failed because the job was interrupted (ABORTED) shows nothing: the CLI says "transfer interrupted" once for the
 * whole job; with `mayRetry`, neither does one failed by a transient code (see {@link OutputOptions.mayRetry}).
 */
export function humanText(e: EngineEvent, verbose: boolean, mayRetry = false): string | undefined {
  switch (e.type) {
    case 'file':
      if (e.state === 'failed' && e.error?.code !== 'ABORTED' && !(mayRetry && isTransient(e.error?.code ?? ''))) {
        return `sluice: FAILED ${fileRoute(e.path, e.target)}${e.error ? `: ${displayText(e.error.message, 2000)}` : ''}`;
      }
      if (e.state === 'done' && e.renamedFrom !== undefined) {
        // Said without -v too: the file is not where the user will look for it.
        return `sluice: ${displayText(e.renamedFrom, 500)} exists: written as ${displayText(e.target, 500)}`;
      }
      if (e.state === 'done' && verbose) {
        return `sluice: done ${fileRoute(e.path, e.target)} (${formatBytes(e.size)}${e.verify ? `, verified: ${e.verify}` : ''})`;
      }
      // A skip the scan warned about was printed by its log event already (without -v too).
      if (e.state === 'skipped' && verbose && !e.warned) {
        return `sluice: skipped ${fileRoute(e.path, e.target)}${e.reason ? `: ${displayText(e.reason, 500)}` : ''}`;
      }
      return undefined;
    case 'log':
      return e.level !== 'info' || verbose ? `sluice: ${e.message}` : undefined;
    case 'hostKeysLearned':
      return verbose ? `sluice: ${learnedKeysMessage(e.host, e.port, e.keys, e.file)}` : undefined;
    default:
      return undefined;
  }
}

/** `sluice: MESSAGE; retrying in 3.2 s (attempt 2 of 5)`. */
export function retryLine(n: RetryNotice): string {
  return `sluice: ${n.message}; retrying in ${(n.delayMs / 1000).toFixed(1)} s (attempt ${n.attempt} of ${n.of})`;
}

/**
 * `-v`'s "limited by: …" lines: one when a progress event's transfer verdict (app/common/stats/bottleneck.ts) differs
 * from the last one printed; `unknown` is printed only after another verdict (the start of a job measures nothing).
 */
export class LimitLines {
  private last: string | undefined;

  /** The line for `e`, or undefined when it says nothing new. */
  lineFor(e: EngineEvent): string | undefined {
    if (e.type !== 'progress' || !e.bottleneck) return undefined;
    const v = e.bottleneck.verdict;
    if (v === this.last || (v === 'unknown' && this.last === undefined)) return undefined;
    this.last = v;
    return `sluice: ${limitedByText(e.bottleneck)}`;
  }
}
