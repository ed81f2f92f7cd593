/**
 * `sluice queue run` (issue #14): works the shared queue until nothing runnable is left. It takes the first queued job
 * that `sluice queue add` made (queue order), together with the other queued jobs of its batch, under leases
 * (stores/jobClaim.ts), and sends them to the engine as one transfer with a journal over those jobs
 * (engine/journal.ts StoreJournal.ofClaims), so a killed run resumes where it stopped. The run watches its jobs'
 * states: a job paused or cancelled by `sluice queue pause|cancel` in another process is stopped, and the rest of its
 * group goes back in line. One engine is kept open while consecutive groups go to the same server with the same
 * connection options. A group that ends with a transient failure (common/retry.ts) goes back in line after a wait
 * (decorrelated jitter), with a fresh connection (the host key checked again), within its jobs' `--retries` tries;
 * then its jobs fail.
 */
import { RunTally, type RunEnd } from '../../common/queue/runTally';
import { DEFAULT_RETRY_POLICY, isTransient, RetrySchedule } from '../../common/retry';
import { exitCodeFor, isErrorCode, isSluiceError, SluiceError } from '../errors';
import type { Engine } from '../engine/engine';
import { StoreJournal } from '../engine/journal';
import { currentOwner, keepLease, type LeaseOwner } from '../stores/lease';
import type { QueueStore } from '../stores/queueStore';
import type { Claim } from '../stores/jobClaim';
import type { EngineEvent } from '../transfer/types';
import { toFatal } from './fatal';
import { connectedLine, engineOptions, openJobEngine } from './jobSetup';
import { makeOutput, type Output } from './output';
import { waitFor } from './retry';
import { transferRequest, type CliOptions } from './program';
import { cliOptionsOf, dropPartialCopies, QUEUE_ORIGIN, viaOf } from './queueOps';
import { formatRemote, type RemoteSpec } from '../engine/remoteSpec';
import { formatSummary } from './summary';
import { plural } from './units';

/** The options of `sluice queue run` (they win over the jobs' own for output and prompting). */
export interface QueueRunOptions {
  json?: boolean;
  verbose?: boolean;
  progress: boolean;
  batch?: boolean;
  acceptNew?: boolean;
  /** Speed limit in bytes/s for the whole run; undefined keeps each job's own. */
  limit?: number;
}

/** How often the run looks for jobs paused or cancelled from another process (ms). */
const WATCH_MS = 500;
/** Jobs of one batch sent as one transfer, at most. */
const GROUP_MAX = 10_000;
/** Groups run before the runner stops looking (a bound on re-queued work that keeps coming back). */
const MAX_GROUPS = 1_000_000;

/** How one group's jobs ended: failure codes for the exit code, and the wait before a retry (ms), if one is due. */
interface GroupEnd {
  codes: string[];
  retryInMs?: number;
}

/** The open engine, kept for the next group when it goes to the same server with the same options. */
interface OpenEngine {
  key: string;
  engine: Engine;
  /** Where the engine's events go now (the current group's output). */
  sink: { event(e: EngineEvent): void; info(line: string): void };
}

/**
 * A RemoteSpec for a job's ad-hoc target: the server as `queue add` named it (an ssh_config alias is resolved again,
 * with its IdentityFile and ProxyJump), else the target itself.
 * @throws SluiceError INVALID_REQUEST for a saved-site target
 */
function specOf(claim: Claim): RemoteSpec {
  const t = claim.job.target;
  if (!('host' in t))
    throw new SluiceError('INVALID_REQUEST', `job ${claim.job.id} is for a saved site: run it in the app`);
  const via = viaOf(claim.job);
  return via ? { ...via, path: '' } : { host: t.host, port: t.port, user: t.user || undefined, path: '' };
}

/** The jobs' options with the run's own output, prompting and limit on top. */
function groupOptions(claim: Claim, o: QueueRunOptions): CliOptions {
  const cli = cliOptionsOf(claim.job) as CliOptions;
  return {
    ...cli,
    json: o.json,
    verbose: o.verbose,
    progress: o.progress,
    batch: o.batch ?? cli.batch,
    acceptNew: o.acceptNew || cli.acceptNew,
    limit: o.limit ?? cli.limit,
  };
}

/** The outcome of a whole group when the transfer threw: the run's own stop, or a failure of every job. */
function failureOf(e: unknown): { code: string; message: string } {
  const f = toFatal(e);
  return { code: f.code, message: f.message };
}

/** How often a running job's bytes are written to the queue, at most (ms): `queue list` and the app read them. */
const PROGRESS_MS = 1000;

/** Keeps the running jobs' counters in the queue up to date from the run's progress events (RunTally's split). */
class ProgressKeeper {
  private last = 0;
  private readonly written = new Map<string, string>();

  constructor(
    private readonly store: QueueStore,
    private readonly tally: RunTally,
  ) {}

  /** Writes the jobs whose counters changed, at most every {@link PROGRESS_MS}. */
  sample(e: Extract<EngineEvent, { type: 'progress' }>): void {
    const now = Date.now();
    if (now - this.last < PROGRESS_MS) return;
    this.last = now;
    for (const { jobId, patch } of this.tally.progress(e)) {
      const counters = {
        bytesDone: patch.bytesDone,
        bytesTotal: patch.bytesTotal,
        filesDone: patch.filesDone,
        filesTotal: patch.filesTotal,
      };
      const key = JSON.stringify(counters);
      if (this.written.get(jobId) === key) continue;
      this.written.set(jobId, key);
      try {
        this.store.jobs.updateProgress(jobId, counters);
      } catch {
        /* removed meanwhile: nothing to show */
      }
    }
  }
}

export class QueueRunner {
  private open: OpenEngine | null = null;
  private readonly owner: LeaseOwner = currentOwner();
  private readonly failures: string[] = [];
  /** Tries of each batch that failed transiently in this run. */
  private readonly schedules = new Map<string, RetrySchedule>();
  /** The running group's output, while one runs. */
  private output: Output | null = null;

  /** @param stop aborted by Ctrl-C / SIGTERM: the running group's jobs go back in line and the run ends */
  constructor(
    private readonly store: QueueStore,
    private readonly o: QueueRunOptions,
    private readonly stop: AbortSignal,
  ) {}

  /**
   * Works the queue until no job of `sluice queue add` is runnable, or the run is stopped.
   * @returns the exit code, as `get`/`put`: 0 when every job ran is done, else the shared category of the failures (1
   * if mixed)
   */
  async run(): Promise<number> {
    try {
      for (let groups = 0; groups < MAX_GROUPS && !this.stop.aborted; groups++) {
        const claims = this.claimGroup();
        if (!claims) {
          if (groups === 0) this.sayNothingToRun();
          break;
        }
        const end = await this.runGroup(claims);
        this.failures.push(...end.codes);
        if (end.retryInMs !== undefined) {
          await this.open?.engine.close();
          this.open = null;
          await waitFor(end.retryInMs, this.stop).catch(() => undefined);
        }
      }
    } finally {
      await this.open?.engine.close();
      this.open = null;
    }
    if (this.failures.length === 0) return 0;
    const codes = new Set(this.failures.map((c) => (isErrorCode(c) ? exitCodeFor(c) : 1)));
    return codes.size === 1 ? [...codes][0] : 1;
  }

  /** `queue run` found no job to run: says so, and what the queue holds instead (not under --json). */
  private sayNothingToRun(): void {
    if (this.o.json) return;
    const counts = (['paused', 'running', 'failed'] as const)
      .map((s) => [s, this.store.jobs.count([s])] as const)
      .filter(([, n]) => n > 0);
    const held = counts.map(([s, n]) => `${n} ${s}`).join(', ');
    const hint = counts.some(([s]) => s === 'paused') ? '; sluice queue resume puts paused jobs back in line' : '';
    process.stderr.write(
      this.store.jobs.count() === 0
        ? 'sluice: queue: the queue is empty, nothing to run (sluice queue add get|put … adds jobs)\n'
        : `sluice: queue: no queued job to run${held ? ` (${held})` : ''}${hint}\n`,
    );
  }

  /** The next queued job of the queue and the other queued jobs of its batch, now running under this run's leases. */
  private claimGroup(): Claim[] | undefined {
    const first = this.store.claimNext(this.owner, { origin: QUEUE_ORIGIN });
    if (!first) return undefined;
    const rest = this.store.jobs
      .batch(first.job.batchId)
      .filter((j) => j.state === 'queued')
      .slice(0, GROUP_MAX - 1)
      .map((j) => j.id);
    return [first, ...this.store.claimJobs(rest, this.owner).claims];
  }

  /** The engine for a group: the open one when its server and options match, else a new one (the old one closed). */
  private async engineFor(spec: RemoteSpec, opts: CliOptions, out: OpenEngine['sink']): Promise<Engine> {
    const key = JSON.stringify([
      spec.host,
      spec.port,
      spec.user ?? '',
      {
        ...opts,
        json: 0,
        verbose: 0,
        progress: 0,
        limit: 0,
        recursive: 0,
        clobber: 0,
        conflict: 0,
        verify: 0,
        times: 0,
        perms: 0,
      },
    ]);
    if (this.open?.key === key) {
      this.open.engine.setRateLimit(opts.limit ?? 0);
      this.open.sink = out;
      return this.open.engine;
    }
    await this.open?.engine.close();
    this.open = null;
    const sink: OpenEngine['sink'] = out;
    const options = engineOptions({ direction: 'get', spec, sources: [], dest: '' }, opts, out);
    const held: { open?: OpenEngine } = {};
    const engine = await openJobEngine(
      {
        ...options,
        prefetch: {},
        onEvent: (e) => (held.open?.sink ?? sink).event(e),
        onWarning: (m) => (held.open?.sink ?? sink).info(`sluice: warning: ${m}`),
      },
      spec,
      opts,
    );
    this.open = held.open = { key, engine, sink };
    if (opts.verbose) out.info(connectedLine(spec, engine));
    return engine;
  }

  /** Runs one group as one transfer and settles each of its jobs. */
  private async runGroup(claims: Claim[]): Promise<GroupEnd> {
    const first = claims[0].job;
    const opts = groupOptions(claims[0], this.o);
    const put = first.direction === 'upload';
    const out = makeOutput(opts, put ? 'up  ' : 'down');
    this.output = out;
    const controller = new AbortController();
    const onStop = (): void => controller.abort(new SluiceError('ABORTED', 'Interrupted'));
    this.stop.addEventListener('abort', onStop, { once: true });
    const stoppedAs = new Map<string, 'paused' | 'cancelled'>();
    const keepers = claims.map((c) =>
      keepLease(this.store.leases, c.lease, {
        onLost: () => controller.abort(new SluiceError('ABORTED', 'lease lost')),
      }),
    );
    const watch = setInterval(() => this.watchStates(claims, stoppedAs, controller, out), WATCH_MS);
    const tally = new RunTally(claims.map((c) => ({ jobId: c.job.id, source: c.job.source })));
    let journal: StoreJournal | undefined;
    let end: RunEnd;
    const progress = new ProgressKeeper(this.store, tally);
    const sink: OpenEngine['sink'] = {
      info: (line) => out.info(line),
      event: (e) => {
        out.event(e);
        if (e.type === 'file') tally.fileEnded(e);
        else if (e.type === 'progress') progress.sample(e);
      },
    };
    try {
      const spec = specOf(claims[0]);
      const dest = put ? formatRemote({ ...spec, path: first.dest }) : first.dest;
      out.info(
        `sluice: queue: ${put ? 'put' : 'get'} ${plural(claims.length, 'job')} of batch ${first.batchId.slice(0, 8)} to ${dest}`,
      );
      const engine = await this.engineFor(spec, opts, sink);
      if (opts.resume !== false) journal = StoreJournal.ofClaims(this.store, claims);
      // The conflict rule is the one `queue add` was given (--conflict, --no-clobber), kept with the job's options.
      const req = transferRequest(
        put ? 'put' : 'get',
        claims.map((c) => c.job.source),
        first.dest,
        opts,
        `queue-${first.batchId}`,
      );
      const report = await engine.transfer(
        { ...req, journal },
        { signal: controller.signal, onEvent: (e) => sink.event(e) },
      );
      end = { report };
      out.done();
      if (opts.json) process.stdout.write(`${JSON.stringify({ type: 'report', batchId: first.batchId, ...report })}\n`);
      else for (const line of formatSummary(report, out.notes)) process.stderr.write(`${line}\n`);
    } catch (e) {
      end = { failure: failureOf(e) };
    } finally {
      clearInterval(watch);
      for (const k of keepers) k.stop();
      this.stop.removeEventListener('abort', onStop);
      journal?.close('paused');
      out.done();
    }
    return this.settle(claims, tally, end, stoppedAs, out);
  }

  /** Ends the running group's progress bar for good (a signal's message comes next): Output.halt. */
  halt(): void {
    this.output?.halt();
  }

  /** Notes jobs paused, cancelled or removed by another process, and stops the transfer for them. */
  private watchStates(
    claims: readonly Claim[],
    stoppedAs: Map<string, 'paused' | 'cancelled'>,
    controller: AbortController,
    out: Output,
  ): void {
    for (const c of claims) {
      if (stoppedAs.has(c.job.id)) continue;
      const state = this.store.jobs.get(c.job.id)?.state;
      const stopped =
        state === undefined || state === 'cancelled' ? 'cancelled' : state === 'paused' ? 'paused' : undefined;
      if (!stopped) continue;
      stoppedAs.set(c.job.id, stopped);
      const what =
        stopped === 'paused'
          ? `paused (sluice queue pause): stopping it, its partial copy kept; sluice queue resume ${c.job.id.slice(0, 8)} puts it back in line`
          : `${state === undefined ? 'removed from the queue' : 'cancelled (sluice queue cancel)'}: stopping it`;
      out.info(`sluice: queue: job ${c.job.id.slice(0, 8)} was ${what}`);
    }
    if (stoppedAs.size > 0 && !controller.signal.aborted)
      controller.abort(new SluiceError('ABORTED', 'Stopped from the queue'));
  }

  /** Gives each job of the group its end state and releases its lease. */
  private settle(
    claims: readonly Claim[],
    tally: RunTally,
    end: RunEnd,
    stoppedAs: Map<string, 'paused' | 'cancelled'>,
    out: Output,
  ): GroupEnd {
    const codes: string[] = [];
    const interrupted = this.stop.aborted || stoppedAs.size > 0;
    const retryInMs = interrupted ? undefined : this.retryDelay(claims[0], end, out);
    const cancelled = [];
    for (const c of claims) {
      const stopped = stoppedAs.get(c.job.id);
      let outcome = stopped
        ? { state: stopped }
        : interrupted
          ? { state: 'queued' as const }
          : tally.finalOutcome(c.job.id, end);
      if (retryInMs !== undefined && outcome.state === 'failed' && isTransient(outcome.error.code))
        outcome = { state: 'queued' as const };
      try {
        const job = this.store.releaseJob(
          c.lease,
          outcome.state,
          outcome.state === 'failed' ? outcome.error : undefined,
        );
        if (job.state === 'cancelled') cancelled.push(job);
        if (outcome.state === 'failed') {
          codes.push(outcome.error.code);
          // A failed file was said as it failed (or in the summary): said again here only when the transfer threw.
          if ('failure' in end) out.info(`sluice: queue: job ${c.job.id.slice(0, 8)} failed: ${outcome.error.message}`);
        }
      } catch (e) {
        // Deleted or taken over meanwhile: that job is no longer this run's.
        if (!isSluiceError(e)) throw e;
      }
    }
    if (cancelled.length) dropPartialCopies(this.store, cancelled);
    return { codes, retryInMs };
  }

  /**
   * Whether a group that ended with a transient failure is tried again, and after how long (ms); says so. The tries
   * are counted per batch over this run, within the jobs' `--retries` (default 5).
   */
  private retryDelay(first: Claim, end: RunEnd, out: Output): number | undefined {
    const failure =
      'failure' in end
        ? isTransient(end.failure.code)
          ? end.failure
          : undefined
        : end.report.failed.find((f) => isTransient(f.code));
    if (!failure) return undefined;
    const batchId = first.job.batchId;
    const tries = Math.max(1, cliOptionsOf(first.job).retries ?? DEFAULT_RETRY_POLICY.tries);
    let schedule = this.schedules.get(batchId);
    if (!schedule) this.schedules.set(batchId, (schedule = new RetrySchedule({ ...DEFAULT_RETRY_POLICY, tries })));
    const decision = schedule.next(failure.code);
    if (!decision.retry) return undefined;
    out.retry({
      type: 'retry',
      attempt: decision.attempt,
      of: tries,
      delayMs: decision.delayMs,
      code: failure.code,
      message: failure.message,
      movedBytes: 0,
    });
    return decision.delayMs;
  }
}
