/**
 * `sluice get`/`put` tried again after a transient failure (issue #14). Each try opens a fresh engine (so the host key
 * is checked again and the user authenticates again), opens the run's journal (which then resumes from the ranges
 * the earlier tries made durable) and runs the transfer. A try that ends with a lost, refused or stalled connection
 * or a timeout (common/retry.ts isTransient) — its report naming such a failure, or the transfer or the connect
 * throwing one — closes its journal as paused and its engine, says so (`Output.retry`), waits (decorrelated jitter,
 * common/retry.ts) and tries again, within `--retries` tries. A permanent failure ends the run at once.
 *
 * The first connect is not retried: a server that cannot be reached when the command starts (a wrong host or port, a
 * server that is down) is reported at once, as before. Retries begin once the run has been connected.
 */
import { RetrySchedule, isTransient, type RetryPolicy } from '../../common/retry';
import { SluiceError, isSluiceError } from '../errors';
import type { Engine } from '../engine/engine';
import type { StoreJournal } from '../engine/journal';
import type { EventSink, TransferJournal, TransferReport, TransferRequest } from '../transfer/types';
import type { RetryNotice } from './output';
import { journalOutcome } from './resume';
import { formatBytes } from './units';

/** `448.0 MiB kept: run the same command again to resume`. */
export function keptMessage(bytes: number): string {
  return `${formatBytes(bytes)} kept: run the same command again to resume`;
}

/** The journal as a run uses it (engine/journal.ts StoreJournal; faked in tests). */
export type RunJournal = TransferJournal & Pick<StoreJournal, 'flush' | 'close' | 'resumeSummary'>;

/** Timers the wait between tries uses (injected in tests). */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const NODE_TIMERS: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/**
 * Waits `ms`, or less when `signal` aborts.
 * @throws SluiceError ABORTED when `signal` aborts (before or during the wait)
 */
export function waitFor(ms: number, signal: AbortSignal, timers: Timers = NODE_TIMERS): Promise<void> {
  const aborted = () => new SluiceError('ABORTED', 'transfer interrupted while waiting to retry');
  if (signal.aborted) return Promise.reject(aborted());
  return new Promise((resolve, reject) => {
    const handle = timers.setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      timers.clearTimeout(handle);
      reject(aborted());
    };
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort(); // while the timer was being set
  });
}

/** What each try of a run is made of. */
export interface JobParts {
  /** Opens the engine: connects, checks the host key, authenticates (engine/engine.ts openEngine). */
  connect(): Promise<Engine>;
  /** Called once a try is connected (the `-v` line). */
  connected?(engine: Engine): void;
  /** Opens the run's journal, saying when it resumes (cli/resume.ts openRunJournal); null for none (`--no-resume`). */
  openJournal(): RunJournal | null;
  /** The job; each try runs it with its own journal. */
  request: Omit<TransferRequest, 'journal'>;
  /** Each try's transfer events (progress, file ends, log lines: the bar and `-v`). */
  onEvent?: EventSink;
  /** An informational line for the user. */
  say(line: string): void;
  /** Says that the run tries again (Output.retry). */
  retrying(notice: RetryNotice): void;
}

/** The retry policy and, for tests, the random source, the timers and the clock (ms; default Date.now). */
export interface RetryOptions {
  policy: RetryPolicy;
  random?: () => number;
  timers?: Timers;
  now?: () => number;
}

type Outcome = { report: TransferReport; error?: undefined } | { error: unknown; report?: undefined };

/** The transient failure an outcome calls for a retry with, if any: a thrown one, or the first in the report. */
function transientFailure(o: Outcome): { code: string; message: string } | undefined {
  if (o.report) return o.report.failed.find((f) => isTransient(f.code));
  return isSluiceError(o.error) && isTransient(o.error.code) ? o.error : undefined;
}

/** One `get`/`put` run: its tries, the engine and journal of the current one. */
export class RetryingJob {
  private current: Engine | null = null;
  private journal: RunJournal | null = null;
  /** How the first try read the destination (TransferRequest.onDestination), passed to the next tries. */
  private destIsDir: boolean | undefined;
  private kept = 0;

  constructor(
    private readonly parts: JobParts,
    private readonly options: RetryOptions,
  ) {}

  /** The current try's engine, while one is open (between tries there is none). */
  get engine(): Engine | null {
    return this.current;
  }

  /**
   * Runs the job, trying again after transient failures (see the module comment). The last try's engine stays open
   * until {@link close}.
   * @returns the report of the last try (its failures, if any, permanent or left after the last try), with
   *   `elapsedMs` and `movedBytes` over the whole run (every try and the waits between them) and `resumedBytes` what
   *   was done before it (the report's bytes less what the run moved)
   * @throws what the last try threw (SluiceError; ABORTED when `signal` aborts during a wait)
   */
  async run(signal: AbortSignal): Promise<TransferReport> {
    const now = this.options.now ?? Date.now;
    const started = now();
    const schedule = new RetrySchedule(this.options.policy, this.options.random);
    let reached = false;
    let movedBefore = 0;
    for (;;) {
      const outcome = await this.tryOnce(signal);
      reached ||= this.current !== null;
      const failure = transientFailure(outcome);
      const decision = failure && reached && !signal.aborted ? schedule.next(failure.code) : undefined;
      const retry = decision?.retry === true ? decision : undefined;
      this.endJournal(journalOutcome(outcome.error, outcome.report), retry === undefined, outcome.report !== undefined);
      if (!retry || !failure) {
        if (!outcome.report) throw outcome.error;
        if (schedule.attempts === 1) return outcome.report;
        const movedBytes = movedBefore + outcome.report.movedBytes;
        // What the journal held before the run's first try: the last try's resumed bytes include the earlier tries'.
        const resumedBytes = Math.max(0, outcome.report.bytes - movedBytes);
        return {
          ...outcome.report,
          elapsedMs: now() - started,
          movedBytes,
          ...(resumedBytes > 0 ? { resumedBytes } : {}),
        };
      }
      await this.close();
      const movedBytes = outcome.report?.movedBytes ?? 0;
      movedBefore += movedBytes;
      this.parts.retrying({
        type: 'retry',
        attempt: retry.attempt,
        of: schedule.policy.tries,
        delayMs: retry.delayMs,
        code: failure.code,
        message: failure.message,
        movedBytes,
      });
      await waitFor(retry.delayMs, signal, this.options.timers);
    }
  }

  /** One try: connect, open the journal, transfer. Never throws: what went wrong is in the outcome. */
  private async tryOnce(signal: AbortSignal): Promise<Outcome> {
    try {
      this.current = await this.parts.connect();
      this.parts.connected?.(this.current);
      this.journal = this.parts.openJournal();
      const request: TransferRequest = {
        ...this.parts.request,
        destIsDir: this.destIsDir,
        journal: this.journal ?? undefined,
        onDestination: (isDir) => {
          this.destIsDir ??= isDir;
        },
      };
      return { report: await this.current.transfer(request, { signal, onEvent: this.parts.onEvent }) };
    } catch (error) {
      return { error };
    }
  }

  /**
   * Closes the try's journal; when the run ends paused, notes how much is kept for the next run of the command
   * ({@link keptBytes}) and, when the run ends with a report (`say`), says so; a run that ends by throwing (an
   * interrupt) says it in its one last line instead.
   */
  private endJournal(outcome: 'done' | 'failed' | 'paused', last: boolean, say: boolean): void {
    const journal = this.journal;
    if (!journal) return;
    this.journal = null;
    journal.flush();
    this.kept = last && outcome === 'paused' ? journal.resumeSummary().doneBytes : 0;
    journal.close(outcome);
    if (this.kept > 0 && say) this.parts.say(`sluice: ${keptMessage(this.kept)}`);
  }

  /** Bytes the journal keeps for the next run of the command, once the run ended paused (0 otherwise). */
  get keptBytes(): number {
    return this.kept;
  }

  /** Closes a journal still open as paused: the process quits at once (a second signal) and a later run resumes it. */
  abandon(): void {
    this.journal?.close('paused');
    this.journal = null;
  }

  /** Closes the current engine, if any; never rejects. */
  async close(): Promise<void> {
    const engine = this.current;
    this.current = null;
    await engine?.close().catch(() => undefined);
  }
}
