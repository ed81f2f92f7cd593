/**
 * The service's transfer queue, in memory: jobs are a {@link QueueState} changed only through the shared reducer, so
 * the events emitted are exactly what a renderer replays. What an intent or an engine fact does to the queue is
 * decided by the pure rules of app/common/queue (rules.ts: `decide`, the same checks the renderer enables its
 * buttons with; lifecycle.ts: `follow`, `jobsToStart`); this class performs their effects: it runs transfers (at
 * most `jobsPerSite` per site), aborts them for pause and cancel, and asks conflicts one dialog at a time per batch.
 */
import { randomUUID } from 'node:crypto';
import type { ConflictChoice, InvokeRequests, ProgressSample } from '../../common/ipc/contract';
import type { Job } from '../../common/model/job';
import { follow, jobsToStart, type QueueFact } from '../../common/queue/lifecycle';
import { applyQueueEvents, emptyQueue, getJob, jobsInOrder, type QueueEvent, type QueueState } from '../../common/queue/reducer';
import { decide, type QueueChange, type QueueIntent } from '../../common/queue/rules';
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

  /** `queue.enqueue`: one job per source, in one new batch; returns the job ids. */
  enqueue(req: InvokeRequests['queue.enqueue']): string[] {
    if (!this.hub.store.get(req.siteId)) throw new SluiceError('NOT_FOUND', `No site with id ${req.siteId}`);
    const jobIds = req.sources.map(() => randomUUID());
    this.perform({ type: 'enqueue', ...req, batchId: randomUUID(), jobIds });
    return jobIds;
  }

  /**
   * Carries out a user intent (`queue.pause`, `queue.resume`, `queue.cancel`, `queue.retry`, `queue.clearFinished`,
   * `queue.enqueue`) as the rules decide it; a refused intent throws a SluiceError with the rules' code and message.
   */
  perform(intent: QueueIntent): void {
    const decision = decide(this.queue, intent, this.hub.clock());
    if (!decision.ok) throw new SluiceError(decision.refusal.code, decision.refusal.message);
    this.carryOut(decision);
  }

  /** Applies what follows from an engine fact (a start, a settled transfer, a lost or unreachable site). */
  private follow(fact: QueueFact): void {
    this.carryOut(follow(this.queue, fact, this.hub.clock()));
  }

  /** Applies the events through the shared reducer (and emits them), then performs the effects. */
  private carryOut(change: QueueChange): void {
    if (change.events.length) this.apply(change.events);
    for (const effect of change.effects) {
      if (effect.type === 'stop') this.stopRunning(effect.jobId, effect.as);
      else this.pump(effect.siteId);
    }
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
    this.follow({ type: 'siteLost', siteId });
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

  /** Aborts a running transfer; the job takes `as` when the transfer settles (or done, if it finished anyway). */
  private stopRunning(jobId: string, as: 'paused' | 'cancelled'): void {
    const run = this.running.get(jobId);
    if (!run) return;
    run.stopAs = as;
    run.controller.abort(new SluiceError('ABORTED', as === 'paused' ? 'Paused' : 'Cancelled'));
    for (const [promptId, p] of this.conflictPrompts) if (p.jobId === jobId) this.closeConflictPrompt(promptId, 'skip');
  }

  /** Starts queued jobs of a site up to the per-site limit, in queue order. */
  private pump(siteId: string): void {
    if (this.isClosed()) return;
    for (const job of jobsToStart(this.queue, siteId, this.jobsPerSite, this.running)) this.start(job);
  }

  private start(job: Job): void {
    const run: RunningJob = { controller: new AbortController() };
    this.running.set(job.id, run);
    this.follow({ type: 'started', jobId: job.id });
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
      this.follow({ type: 'siteUnreachable', siteId: job.siteId, jobId: job.id, error: errorInfo(e), inFlight: this.running });
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
    if (getJob(this.queue, job.id)?.state !== 'running') return;
    if (report && report.failed.length === 0) {
      this.follow({ type: 'settled', jobId: job.id, outcome: { state: 'done', files: report.files, bytes: report.bytes } });
    } else if (run.stopAs) {
      this.follow({ type: 'settled', jobId: job.id, outcome: { state: run.stopAs } });
    } else {
      const error = report ? summariseFailures(report) : errorInfo(failure);
      this.follow({ type: 'settled', jobId: job.id, outcome: { state: 'failed', error } });
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

  private closeConflictPrompt(promptId: string, choice: ConflictChoice): void {
    const p = this.conflictPrompts.get(promptId);
    if (!p) return;
    this.conflictPrompts.delete(promptId);
    p.resolve(choice);
    this.hub.emit('prompt.closed', { promptId });
  }
}
