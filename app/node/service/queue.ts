/**
 * The service's transfer queue: jobs are a {@link QueueState} changed only through the shared reducer, so the events
 * emitted are exactly what a renderer replays, and every change is written through to queue.db (jobBook.ts), from
 * which the queue comes back after a restart and resumes by itself. What an intent or an engine fact does to the
 * queue is decided by the pure rules of app/common/queue (rules.ts: `decide`, the same checks the renderer enables its
 * buttons with; lifecycle.ts: `follow`, `batchesToStart`); this class performs their effects: it runs the queued
 * jobs of a batch as one engine transfer (queueRun.ts; at most `jobsPerSite` runs per site) with the journal of its
 * claimed jobs, so that a run stopped by pause or by the service closing keeps its partial files and the next one
 * resumes them; aborts runs for pause and cancel (a cancelled job's partial files are removed: partials.ts); asks
 * conflicts one dialog at a time per batch (conflicts.ts). Queue deltas carry only the jobs that changed.
 */
import { randomUUID } from 'node:crypto';
import type { ConflictChoice, InvokeRequests } from '../../common/ipc/contract';
import type { Job } from '../../common/model/job';
import type { QueueFile } from '../../common/queue/files';
import { batchesToStart, follow, type InFlight, type JobOutcome, type QueueFact } from '../../common/queue/lifecycle';
import {
  applyQueueEvents,
  emptyQueue,
  getJob,
  jobsInOrder,
  type JobPatch,
  type QueueEvent,
  type QueueState,
} from '../../common/queue/reducer';
import { decide, type QueueChange, type QueueIntent } from '../../common/queue/rules';
import type { RunEnd } from '../../common/queue/runTally';
import { batchJobs, bytesBeforeRun } from '../../common/queue/batches';
import { SluiceError } from '../errors';
import type { Engine } from '../engine/engine';
import type { EngineEvent } from '../transfer/types';
import { ConflictPrompts } from './conflicts';
import { transferDefaults } from './transferDefaults';
import type { ServiceHub } from './hub';
import type { JobBook } from './jobBook';
import { discardPartials } from './partials';
import { BatchRun, fileEndRecord, type FileEndEvent } from './queueRun';
import { errorInfo } from './results';
import { siteThroughput } from './siteThroughput';
import type { BatchSettings, Connector } from './queuePorts';

export type { BatchSettings, Connector } from './queuePorts';

export class JobQueue {
  private queue: QueueState = emptyQueue;
  /** Runs in flight, by batch id (the engine's job id). */
  private readonly runs = new Map<string, BatchRun>();
  /** Jobs in flight (from their run's start until it is finished off), with their run. */
  private readonly running = new Map<string, BatchRun>();
  private readonly finishing = new Set<Promise<void>>();
  private readonly conflicts: ConflictPrompts;
  private closing = false;
  /** Jobs a disconnect paused (then running or queued), per site: they resume when the user connects it again. */
  private readonly pausedByDisconnect = new Map<string, Set<string>>();
  /** Batches with settings of their own over Settings → Transfers (see {@link enqueue}). */
  private readonly batchOwn = new Map<string, BatchSettings>();

  /**
   * Loads the queue from `book`; queued jobs start once the caller's turn ends.
   * @param home the data folder (leftovers of cancelled uploads that could not be removed)
   */
  constructor(
    private readonly hub: ServiceHub,
    private readonly connector: Connector,
    private readonly jobsPerSite: number,
    private readonly isClosed: () => boolean,
    private readonly book: JobBook,
    private readonly home: string,
  ) {
    this.conflicts = new ConflictPrompts(hub);
    this.queue = applyQueueEvents(emptyQueue, [{ type: 'snapshot', jobs: book.load() }]);
    setImmediate(() => {
      for (const siteId of new Set(this.queue.jobs.filter((j) => j.state === 'queued').map((j) => j.siteId)))
        this.pump(siteId);
    });
  }

  /** Current jobs in queue order. */
  jobs(): Job[] {
    return jobsInOrder(this.queue);
  }

  /**
   * `queue.enqueue`: one job per source, in one new batch, stored before it is shown; returns the job ids.
   * @param own the batch's conflict rule and permission keeping whatever Settings say (an edited file's upload, which
   *   checked the server itself and keeps the file's mode: app/node/edit/); not stored, so a restart's run of the
   *   batch follows Settings
   */
  enqueue(req: InvokeRequests['queue.enqueue'], own?: BatchSettings): string[] {
    if (!this.hub.store.get(req.siteId)) throw new SluiceError('NOT_FOUND', `No site with id ${req.siteId}`);
    const jobIds = req.sources.map(() => randomUUID());
    const batchId = randomUUID();
    const decision = decide(this.queue, { type: 'enqueue', ...req, batchId, jobIds }, this.hub.clock());
    if (!decision.ok) throw new SluiceError(decision.refusal.code, decision.refusal.message);
    if (own) this.batchOwn.set(batchId, own);
    for (const e of decision.events) if (e.type === 'added') this.book.add(e.jobs);
    this.carryOut(decision);
    return jobIds;
  }

  /**
   * Carries out a user intent (`queue.*`) as the rules decide it; a refused intent throws a SluiceError with the
   * rules' code and message.
   */
  perform(intent: QueueIntent): void {
    if (intent.type === 'enqueue') throw new SluiceError('INVALID_REQUEST', 'Use enqueue()');
    const decision = decide(this.queue, intent, this.hub.clock());
    if (!decision.ok) throw new SluiceError(decision.refusal.code, decision.refusal.message);
    this.carryOut(decision);
  }

  /** `queue.files`: the files of a batch recorded so far. */
  files(batchId: string, limit: number): { files: QueueFile[]; total: number } {
    if (!this.queue.jobs.some((j) => j.batchId === batchId)) throw new SluiceError('NOT_FOUND', `No batch ${batchId}`);
    return this.book.files(batchId, limit);
  }

  /** `conflict.answer`; `forAll` answers the rest of the batch the same way. */
  answerConflict(promptId: string, choice: ConflictChoice, forAll: boolean): void {
    this.conflicts.answer(promptId, choice, forAll);
  }

  /**
   * A site disconnects: its running jobs pause, its queued ones too (not while the service closes); they are
   * remembered and resume when the user connects the site again ({@link siteConnected}).
   */
  pauseSite(siteId: string): void {
    if (this.closing) return;
    // A running job the user is pausing or cancelling (its run not ended yet) is not the disconnect's to resume.
    const moving = this.queue.jobs.filter(
      (j) =>
        j.siteId === siteId &&
        (j.state === 'queued' || (j.state === 'running' && !this.running.get(j.id)?.stopAs.has(j.id))),
    );
    if (moving.length)
      this.pausedByDisconnect.set(
        siteId,
        new Set([...(this.pausedByDisconnect.get(siteId) ?? []), ...moving.map((j) => j.id)]),
      );
    this.follow({ type: 'siteLost', siteId });
  }

  /**
   * Cancels the site's running and queued jobs (a disconnect that gives up its transfers).
   * @returns whether there was any
   */
  cancelSite(siteId: string): boolean {
    const moving = this.queue.jobs.filter(
      (j) => j.siteId === siteId && (j.state === 'running' || j.state === 'queued'),
    );
    for (const j of moving) this.perform({ type: 'cancel', jobId: j.id });
    return moving.length > 0;
  }

  /** The user connected a site: the jobs its last disconnect paused, still paused, resume. */
  siteConnected(siteId: string): void {
    const ids = this.pausedByDisconnect.get(siteId);
    this.pausedByDisconnect.delete(siteId);
    for (const id of ids ?? []) {
      if (getJob(this.queue, id)?.state === 'paused') this.perform({ type: 'resume', jobId: id });
    }
  }

  /**
   * A site lost every connection and reconnects: its running jobs are stopped back to `queued` (their runs' journals
   * keep what is durable, as for a pause) and wait for the session; a conflict dialog of theirs closes.
   */
  siteReconnecting(siteId: string): void {
    for (const run of this.runs.values()) {
      if (run.siteId !== siteId) continue;
      for (const id of run.tally.unsettled()) run.stop(id, 'queued');
      this.conflicts.closeBatch(run.batchId);
    }
  }

  /** A lost site is connected again: its queued jobs start, resuming from what their journals hold. */
  siteBack(siteId: string): void {
    this.pump(siteId);
  }

  /** A run's progress from the engine: its jobs' counters, then the site's throughput. */
  onProgress(siteId: string, e: Extract<EngineEvent, { type: 'progress' }>): void {
    const run = this.runs.get(e.jobId);
    if (!run) return;
    run.sample = {
      rate: e.rate,
      connections: e.connections.map((c) => ({ id: c.id + 1, rate: c.rate })),
      bottleneck: e.bottleneck,
    };
    const events = run.tally.progress(e).map(({ jobId, patch }): QueueEvent => ({ type: 'updated', id: jobId, patch }));
    if (events.length) this.apply(events);
    this.emitProgress(siteId, e.t);
  }

  /** A file of a run ended: recorded with its job, which settles now when the file was its whole source. */
  onFile(e: FileEndEvent): void {
    const run = this.runs.get(e.jobId);
    if (!run) return;
    const { jobId, outcome } = run.tally.fileEnded(e);
    const stopped = run.stopAs.get(jobId);
    // A file an earlier run committed has its row already; a stopped job's interrupted files are not ends.
    if (!e.earlier && !(stopped && e.state === 'failed')) this.book.fileEnded(fileEndRecord(jobId, e));
    if (outcome) this.settle(run, jobId, outcome);
  }

  /**
   * Closing, first half: no job starts any more, every run is stopped and its jobs will go back to `queued` (so they
   * resume on the next start), and a site's disconnect no longer pauses its jobs.
   */
  beginClose(): void {
    this.closing = true;
    for (const run of this.runs.values()) {
      for (const id of run.tally.unsettled()) run.stop(id, 'queued');
      this.conflicts.closeBatch(run.batchId);
    }
  }

  /**
   * Closing, between the halves: waits (at most `withinMs`) for the stopped runs to end while their connections are
   * still up, so that a commit's rename already sent lands with its reply (and is recorded as the job's own) and the
   * partial files the journal holds are left with their handles closed.
   */
  async runsEnded(withinMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, withinMs);
    });
    await Promise.race([Promise.allSettled([...this.finishing]), limit]);
    clearTimeout(timer);
  }

  /** Closing, second half (after the sessions closed): waits for the runs to settle, then closes the store. */
  async finishClose(): Promise<void> {
    while (this.finishing.size > 0) await Promise.all([...this.finishing]);
    this.book.close();
  }

  /** Jobs another runner holds, as the store has them now (JobBook's `onForeign`). */
  mirror(jobs: readonly Job[]): void {
    const events: QueueEvent[] = [];
    for (const j of jobs) {
      const mine = getJob(this.queue, j.id);
      if (!mine) continue;
      const patch: JobPatch = {
        state: j.state,
        bytesDone: j.bytesDone,
        bytesTotal: j.bytesTotal,
        filesDone: j.filesDone,
        filesTotal: j.filesTotal,
        error: j.error,
      };
      events.push({ type: 'updated', id: j.id, patch });
    }
    if (events.length) this.apply(events);
  }

  /** Our lease on a running job was taken over (JobBook's `onLeaseLost`): stop working it. */
  leaseLost(jobId: string): void {
    this.running.get(jobId)?.stop(jobId, 'queued');
    this.hub.log('warn', `${getJob(this.queue, jobId)?.name ?? jobId}: another Sluice process took this job over`);
  }

  /** Applies what follows from an engine fact (a start, a settled job, a lost or unreachable site). */
  private follow(fact: QueueFact): void {
    this.carryOut(follow(this.queue, fact, this.hub.clock()));
  }

  /** Applies the events through the shared reducer (stored and emitted), then performs the effects. */
  private carryOut(change: QueueChange): void {
    if (change.events.length) this.apply(change.events);
    for (const effect of change.effects) {
      if (effect.type === 'stop') this.stopRunning(effect.jobId, effect.as);
      else this.pump(effect.siteId);
    }
  }

  /**
   * Applies the events through the shared reducer; stores and emits what changed. A job's `updated` events are sent
   * only when they changed it (a renderer replaying the rest would change nothing either).
   */
  private apply(events: QueueEvent[]): void {
    const before = this.queue;
    this.queue = applyQueueEvents(before, events);
    if (this.queue === before) return;
    const changed = new Set<string>();
    for (const e of events)
      if (e.type === 'updated' && getJob(before, e.id) !== getJob(this.queue, e.id)) changed.add(e.id);
    this.store(before, events, changed);
    const sent = events.filter((e) => e.type !== 'updated' || changed.has(e.id));
    if (sent.length) this.hub.emit('queue.delta', { events: sent });
  }

  /**
   * Writes to queue.db what `events` changed since `before` (added jobs were written by enqueue); jobs cancelled
   * while not running give up their partial files here (a running one's go when its run ended: see start).
   */
  private store(before: QueueState, events: readonly QueueEvent[], changed: ReadonlySet<string>): void {
    for (const e of events) {
      if (e.type === 'removed') this.book.removed(e.ids.filter((id) => before.index.has(id)));
      else if (e.type === 'moved' && before.order !== this.queue.order) this.book.moved(e.ids, e.to);
    }
    const cancelled: Job[] = [];
    for (const id of changed) {
      const prev = getJob(before, id);
      const next = getJob(this.queue, id);
      if (!prev || !next) continue;
      this.book.changed(prev, next);
      if (next.state === 'cancelled' && prev.state !== 'cancelled' && !this.running.has(id)) cancelled.push(next);
    }
    if (cancelled.length) this.discardPartials(cancelled);
  }

  /** Removes the partial files of cancelled jobs (one site's or several), in the background of the queue. */
  private discardPartials(jobs: readonly Job[]): void {
    const removals = discardPartials(jobs, {
      book: this.book,
      home: this.home,
      site: (siteId) => this.hub.store.get(siteId),
      connected: (siteId) => this.connector.connected(siteId),
    });
    for (const removing of removals) {
      this.finishing.add(removing);
      void removing.finally(() => this.finishing.delete(removing));
    }
  }

  /** Emits the site's throughput: the sum over its runs, per connection id. */
  private emitProgress(siteId: string, t: number): void {
    this.hub.emit('progress', { samples: [siteThroughput(this.runs.values(), siteId, t)] });
  }

  /** Aborts a running job's run; the job takes `as` when it settles, the run's others go back in line. */
  private stopRunning(jobId: string, as: 'paused' | 'cancelled' | 'queued'): void {
    const run = this.running.get(jobId);
    if (!run) return;
    run.stop(jobId, as);
    this.conflicts.closeBatch(run.batchId);
    if (as !== 'queued') this.hub.log('info', `${getJob(this.queue, jobId)?.name ?? jobId}: ${as}`, run.siteId);
  }

  /** Starts runs of the site's queued jobs up to the per-site limit, in queue order. */
  private pump(siteId: string): void {
    if (this.isClosed() || this.closing || this.connector.reconnecting(siteId)) return;
    const busy: InFlight = {
      has: (id) => this.running.has(id) || this.book.isForeign(id),
      keys: () => this.running.keys(),
    };
    for (const jobs of batchesToStart(this.queue, siteId, this.jobsPerSite, busy)) this.start(jobs);
  }

  /**
   * Leases a run's jobs and starts it with their journal; jobs another runner holds stay out of it. A job starts
   * from what its earlier runs left durably done, and the run says it resumes when its batch had bytes done.
   */
  private start(jobs: readonly Job[]): void {
    let claims: ReturnType<JobBook['claim']>;
    try {
      claims = this.book.claim(jobs.map((j) => j.id));
    } catch (e) {
      this.hub.log('error', `Cannot start ${jobs[0].name}: ${errorInfo(e).message}`, jobs[0].siteId);
      return;
    }
    const taken = new Set(claims.map((c) => c.job.id));
    if (taken.size === 0) return;
    const journal = this.book.journalOf(claims);
    const run = new BatchRun(
      jobs[0].batchId,
      jobs[0].siteId,
      jobs.filter((j) => taken.has(j.id)),
      journal,
      this.book.queueStore(),
    );
    const durable = journal?.resuming ? this.book.durableBytes([...taken]) : new Map<string, number>();
    const resumedFrom = bytesBeforeRun(batchJobs(this.queue, run.batchId), taken, durable);
    this.runs.set(run.batchId, run);
    for (const id of taken) this.running.set(id, run);
    for (const id of taken) this.follow({ type: 'started', jobId: id, bytesDone: durable.get(id) ?? 0, resumedFrom });
    const done = this.execute(run).finally(() => {
      this.runs.delete(run.batchId);
      for (const id of taken) this.running.delete(id);
      // Cancelled by a stop, or after they settled while the transfer was ending: their partial files go now.
      const cancelled = [...taken]
        .map((id) => getJob(this.queue, id))
        .filter((j): j is Job => j?.state === 'cancelled');
      if (cancelled.length) this.discardPartials(cancelled);
      this.conflicts.endBatch(run.batchId);
      this.finishing.delete(done);
      this.emitProgress(run.siteId, this.hub.clock());
      this.pump(run.siteId);
    });
    this.finishing.add(done);
  }

  private async execute(run: BatchRun): Promise<void> {
    let engine: Engine;
    try {
      engine = await this.connector.connect(run.siteId);
    } catch (e) {
      this.book.endRun(run.journal, 'paused');
      if (run.controller.signal.aborted) return this.settleRest(run, { failure: errorInfo(e) });
      for (const j of run.jobs)
        this.follow({
          type: 'siteUnreachable',
          siteId: run.siteId,
          jobId: j.id,
          error: errorInfo(e),
          inFlight: this.running,
        });
      return;
    }
    const first = run.jobs[0];
    const end = await run.transfer(
      engine,
      (jobId, target, files) =>
        this.conflicts.ask(
          {
            batchId: run.batchId,
            jobId,
            order: run.jobs.findIndex((j) => j.id === jobId),
            direction: first.direction,
            target,
            files,
          },
          run.controller.signal,
        ),
      { ...transferDefaults(this.hub.store), ...this.batchOwn.get(run.batchId) },
      this.connector.get(run.siteId)?.events,
    );
    this.book.endRun(run.journal, run.journalOutcome(end));
    this.settleRest(run, end);
  }

  /** Settles the run's jobs that are still open once its transfer ended. */
  private settleRest(run: BatchRun, end: RunEnd): void {
    for (const jobId of run.tally.unsettled()) this.settle(run, jobId, run.tally.finalOutcome(jobId, end));
  }

  /** A job of the run ends: a stop decided by the user (or the close) wins over anything but done. */
  private settle(run: BatchRun, jobId: string, outcome: JobOutcome): void {
    const as = run.stopAs.get(jobId);
    const final: JobOutcome = as && outcome.state !== 'done' ? { state: as } : outcome;
    this.follow({ type: 'settled', jobId, outcome: final });
    if (final.state === 'failed')
      this.hub.log('error', `${getJob(this.queue, jobId)?.name ?? jobId}: ${final.error.message}`, run.siteId);
  }
}
