/**
 * The service's transfer queue, in memory: jobs are a {@link QueueState} changed only through the shared reducer, so
 * the events emitted are exactly what a renderer replays. Each site runs at most `jobsPerSite` jobs at once; pause
 * aborts the running transfer (its next run starts it again), resume re-queues; conflicts are asked one dialog at a
 * time per batch.
 */
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import type { ConflictChoice, InvokeRequests, ProgressSample } from '../../common/ipc/contract';
import { canTransition, type Job, type JobState } from '../../common/model/job';
import { applyQueueEvents, emptyQueue, getJob, jobsInOrder, type JobPatch, type QueueEvent, type QueueState } from '../../common/queue/reducer';
import { SluiceError } from '../errors';
import type { Engine } from '../engine/engine';
import type { ConflictFiles, EngineEvent, TransferReport } from '../transfer/types';
import type { ServiceHub } from './hub';
import { errorInfo, summariseFailures } from './results';

interface RunningJob {
  controller: AbortController;
  /** Why the transfer is being aborted, decided by the user action. */
  stopAs?: 'paused' | 'cancelled';
  /** Last throughput sample of this job, for the per-site graph. */
  sample?: { rate: number; connections: Array<{ id: number; rate: number }> };
}

interface PendingConflict {
  jobId: string;
  batchId: string;
  resolve: (c: ConflictChoice) => void;
}

/** What the queue needs of the sessions: a connected engine session for a site. */
export interface Connector {
  connect(siteId: string): Promise<Engine>;
}

export class JobQueue {
  private queue: QueueState = emptyQueue;
  private readonly running = new Map<string, RunningJob>();
  private readonly conflictPrompts = new Map<string, PendingConflict>();
  /** "For all" conflict answers per batch. */
  private readonly batchPolicy = new Map<string, ConflictChoice>();
  /** Serialises conflict prompts per batch: one dialog at a time. */
  private readonly batchPromptChain = new Map<string, Promise<unknown>>();

  constructor(private readonly hub: ServiceHub, private readonly connector: Connector, private readonly jobsPerSite: number,
    private readonly isClosed: () => boolean) {}

  /** Current jobs in queue order. */
  jobs(): Job[] {
    return jobsInOrder(this.queue);
  }

  /** `queue.resume`. */
  resume(jobId: string): void {
    this.transition(jobId, 'paused', 'queued');
    this.pump(this.job(jobId).siteId);
  }

  /** `queue.retry`: a failed or cancelled job goes back to the queue. */
  retry(jobId: string): void {
    const job = this.job(jobId);
    if (job.state !== 'failed' && job.state !== 'cancelled') throw new SluiceError('INVALID_STATE', `Cannot retry a ${job.state} job`);
    this.apply([{ type: 'updated', id: jobId, patch: { state: 'queued', error: undefined, rate: 0, finishedAt: undefined } }]);
    this.pump(job.siteId);
  }

  /** `queue.clearFinished`. */
  clearFinished(): void {
    const ids = this.jobs().filter((j) => j.state === 'done' || j.state === 'cancelled').map((j) => j.id);
    if (ids.length) this.apply([{ type: 'removed', ids }]);
  }

  /** `conflict.answer`; `forAll` answers the rest of the batch the same way. */
  answerConflict(promptId: string, choice: ConflictChoice, forAll: boolean): void {
    const p = this.conflictPrompts.get(promptId);
    if (!p) throw new SluiceError('NOT_FOUND', 'This conflict question is no longer open');
    if (forAll) this.batchPolicy.set(p.batchId, choice);
    this.closeConflictPrompt(promptId, choice);
  }

  /** A site disconnects: its running jobs pause, its queued ones too. */
  pauseSite(siteId: string): void {
    for (const job of this.jobs()) {
      if (job.siteId !== siteId) continue;
      if (job.state === 'running') this.stopRunning(job.id, 'paused');
      else if (job.state === 'queued') this.transition(job.id, 'queued', 'paused');
    }
  }

  /** A running job's progress from the engine: the job's counters, then the site's throughput. */
  onProgress(siteId: string, e: Extract<EngineEvent, { type: 'progress' }>): void {
    const run = this.running.get(e.jobId);
    if (!run) return;
    run.sample = { rate: e.rate, connections: e.connections.map((c) => ({ id: c.id, rate: c.rate })) };
    this.apply([{ type: 'updated', id: e.jobId, patch: { bytesDone: e.bytesDone, bytesTotal: e.bytesTotal, filesDone: e.filesDone, filesTotal: e.filesTotal, rate: e.rate } }]);
    this.emitProgress(siteId, e.t);
  }

  /** Emits the site's throughput: the sum over its running jobs, per connection id. */
  private emitProgress(siteId: string, t: number): void {
    let rate = 0;
    const perConnection = new Map<number, number>();
    for (const [jobId, run] of this.running) {
      if (!run.sample || getJob(this.queue, jobId)?.siteId !== siteId) continue;
      rate += run.sample.rate;
      for (const c of run.sample.connections) perConnection.set(c.id, (perConnection.get(c.id) ?? 0) + c.rate);
    }
    const sample: ProgressSample = { siteId, t, rate, connections: [...perConnection].sort((a, b) => a[0] - b[0]).map(([id, r]) => ({ id, rate: r })) };
    this.hub.emit('progress', { samples: [sample] });
  }

  private apply(events: QueueEvent[]): void {
    this.queue = applyQueueEvents(this.queue, events);
    this.hub.emit('queue.delta', { events });
  }

  job(jobId: string): Job {
    const job = getJob(this.queue, jobId);
    if (!job) throw new SluiceError('NOT_FOUND', `No job ${jobId}`);
    return job;
  }

  transition(jobId: string, from: JobState, to: JobState, patch: JobPatch = {}): void {
    const job = this.job(jobId);
    if (job.state !== from || !canTransition(from, to)) throw new SluiceError('INVALID_STATE', `Cannot move a ${job.state} job to ${to}`);
    this.apply([{ type: 'updated', id: jobId, patch: { ...patch, state: to } }]);
  }

  enqueue(req: InvokeRequests['queue.enqueue']): string[] {
    const site = this.hub.store.get(req.siteId);
    if (!site) throw new SluiceError('NOT_FOUND', `No site with id ${req.siteId}`);
    const batchId = randomUUID();
    const now = this.hub.clock();
    const jobs: Job[] = req.sources.map((source) => ({
      id: randomUUID(), batchId, siteId: req.siteId, direction: req.direction, source, dest: req.dest,
      name: path.posix.basename(source.replace(/\\/g, '/').replace(/\/+$/, '')) || source, state: 'queued',
      bytesDone: 0, bytesTotal: 0, filesDone: 0, filesTotal: 0, rate: 0, createdAt: now,
    }));
    this.apply([{ type: 'added', jobs }]);
    this.pump(req.siteId);
    return jobs.map((j) => j.id);
  }

  pause(jobId: string): void {
    const job = this.job(jobId);
    if (job.state === 'running') this.stopRunning(jobId, 'paused');
    else this.transition(jobId, 'queued', 'paused');
  }

  cancel(jobId: string): void {
    const job = this.job(jobId);
    if (job.state === 'running') return this.stopRunning(jobId, 'cancelled');
    if (!canTransition(job.state, 'cancelled') || job.state === 'cancelled') throw new SluiceError('INVALID_STATE', `Cannot cancel a ${job.state} job`);
    this.apply([{ type: 'updated', id: jobId, patch: { state: 'cancelled', rate: 0, finishedAt: this.hub.clock() } }]);
  }

  /** Aborts a running transfer; the job takes `as` when the transfer settles (or done, if it finished anyway). */
  private stopRunning(jobId: string, as: 'paused' | 'cancelled'): void {
    const run = this.running.get(jobId);
    if (!run) return;
    run.stopAs = as;
    run.controller.abort(new SluiceError('ABORTED', as === 'paused' ? 'Paused' : 'Cancelled'));
    for (const [promptId, p] of this.conflictPrompts) if (p.jobId === jobId) this.closeConflictPrompt(promptId, 'skip');
  }

  /** Starts queued jobs of a site up to the per-site limit, in queue order. */
  pump(siteId: string): void {
    if (this.isClosed()) return;
    let active = 0;
    for (const id of this.running.keys()) if (getJob(this.queue, id)?.siteId === siteId) active++;
    if (active >= this.jobsPerSite) return;
    for (const job of this.queue.jobs) {
      if (active >= this.jobsPerSite) break;
      if (job.siteId !== siteId || job.state !== 'queued' || this.running.has(job.id)) continue;
      active++;
      this.start(job);
    }
  }

  private start(job: Job): void {
    const run: RunningJob = { controller: new AbortController() };
    this.running.set(job.id, run);
    this.apply([{ type: 'updated', id: job.id, patch: { state: 'running', startedAt: this.hub.clock(), error: undefined } }]);
    void this.runJob(job, run).finally(() => {
      this.running.delete(job.id);
      this.emitProgress(job.siteId, this.hub.clock());
      this.pump(job.siteId);
    });
  }

  private async runJob(job: Job, run: RunningJob): Promise<void> {
    let report: TransferReport | undefined;
    let failure: unknown;
    let engine: Engine;
    try {
      engine = await this.connector.connect(job.siteId);
    } catch (e) {
      // Without a session no queued job of this site can run: fail them together instead of reconnecting per job.
      const error = errorInfo(e);
      const now = this.hub.clock();
      const events: QueueEvent[] = this.jobs()
        .filter((j) => j.siteId === job.siteId && (j.id === job.id || (j.state === 'queued' && !this.running.has(j.id))))
        .map((j) => ({ type: 'updated', id: j.id, patch: { state: 'failed', rate: 0, finishedAt: now, error } }));
      this.apply(events);
      return;
    }
    try {
      if (run.controller.signal.aborted) throw run.controller.signal.reason;
      report = await engine.transfer({
        id: job.id,
        direction: job.direction === 'upload' ? 'put' : 'get',
        sources: [job.source],
        dest: job.dest,
        recursive: true,
        conflict: (target, files) => this.askConflict(job, target, files, run.controller.signal),
      }, run.controller.signal);
    } catch (e) {
      failure = e;
    }
    const now = this.hub.clock();
    const current = getJob(this.queue, job.id);
    if (!current || current.state !== 'running') return;
    if (report && report.failed.length === 0) {
      this.apply([{ type: 'updated', id: job.id, patch: { state: 'done', rate: 0, finishedAt: now, filesDone: report.files, bytesDone: Math.max(current.bytesDone, report.bytes), bytesTotal: Math.max(current.bytesTotal, report.bytes) } }]);
    } else if (run.stopAs) {
      this.apply([{ type: 'updated', id: job.id, patch: { state: run.stopAs, rate: 0, ...(run.stopAs === 'cancelled' ? { finishedAt: now } : {}) } }]);
    } else {
      const error = report ? summariseFailures(report) : errorInfo(failure);
      this.apply([{ type: 'updated', id: job.id, patch: { state: 'failed', rate: 0, finishedAt: now, error } }]);
      this.hub.log('error', `${job.name}: ${error.message}`, job.siteId);
    }
  }

  /** The engine's per-file conflict callback: the batch's "for all" answer, else one dialog at a time per batch. */
  private askConflict(job: Job, target: string, files: ConflictFiles, signal: AbortSignal): Promise<ConflictChoice> {
    const ask = async (): Promise<ConflictChoice> => {
      const policy = this.batchPolicy.get(job.batchId);
      if (policy) return policy;
      if (signal.aborted) return 'skip';
      const promptId = randomUUID();
      return new Promise<ConflictChoice>((resolve) => {
        this.conflictPrompts.set(promptId, { jobId: job.id, batchId: job.batchId, resolve });
        this.hub.emit('conflict.prompt', { promptId, jobId: job.id, target, direction: job.direction, existing: files.existing, incoming: files.incoming });
      });
    };
    const previous = this.batchPromptChain.get(job.batchId) ?? Promise.resolve();
    const next = previous.then(ask, ask);
    this.batchPromptChain.set(job.batchId, next.catch(() => undefined));
    return next;
  }

  closeConflictPrompt(promptId: string, choice: ConflictChoice): void {
    const p = this.conflictPrompts.get(promptId);
    if (!p) return;
    this.conflictPrompts.delete(promptId);
    p.resolve(choice);
    this.hub.emit('prompt.closed', { promptId });
  }
}
