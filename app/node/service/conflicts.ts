/**
 * The queue's conflict prompts: the engine asks per file whether to replace an existing target; the service asks the
 * user one dialog at a time per batch, and a "for all" answer answers the rest of the batch's run (forgotten when the
 * run ends: {@link ConflictPrompts.endBatch}).
 */
import { randomUUID } from 'node:crypto';
import type { ConflictChoice } from '../../common/ipc/contract';
import type { Direction } from '../../common/model/job';
import { SluiceError } from '../errors';
import type { ConflictFiles } from '../transfer/types';
import type { ServiceHub } from './hub';

interface PendingConflict {
  batchId: string;
  resolve: (c: ConflictChoice) => void;
}

/** What a conflict is about: the batch, the job whose target exists, and that target. */
export interface ConflictQuestion {
  batchId: string;
  jobId: string;
  direction: Direction;
  target: string;
  files: ConflictFiles;
}

export class ConflictPrompts {
  private readonly prompts = new Map<string, PendingConflict>();
  /** "For all" answers per batch. */
  private readonly batchPolicy = new Map<string, ConflictChoice>();
  /** Serialises prompts per batch: one dialog at a time. */
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(private readonly hub: ServiceHub) {}

  /** The engine's per-file question: the batch's "for all" answer, else one dialog at a time per batch. */
  ask(q: ConflictQuestion, signal: AbortSignal): Promise<ConflictChoice> {
    const ask = async (): Promise<ConflictChoice> => {
      const policy = this.batchPolicy.get(q.batchId);
      if (policy) return policy;
      if (signal.aborted) return 'skip';
      const promptId = randomUUID();
      return new Promise<ConflictChoice>((resolve) => {
        this.prompts.set(promptId, { batchId: q.batchId, resolve });
        this.hub.emit('conflict.prompt', { promptId, jobId: q.jobId, target: q.target, direction: q.direction, existing: q.files.existing, incoming: q.files.incoming });
      });
    };
    const previous = this.chains.get(q.batchId) ?? Promise.resolve();
    const next = previous.then(ask, ask);
    this.chains.set(q.batchId, next.catch(() => undefined));
    return next;
  }

  /** `conflict.answer`; `forAll` answers the rest of the batch the same way. */
  answer(promptId: string, choice: ConflictChoice, forAll: boolean): void {
    const p = this.prompts.get(promptId);
    if (!p) throw new SluiceError('NOT_FOUND', 'This conflict question is no longer open');
    if (forAll) this.batchPolicy.set(p.batchId, choice);
    this.close(promptId, choice);
  }

  /** Closes the batch's open prompts with `skip` (its run was stopped). */
  closeBatch(batchId: string): void {
    for (const [promptId, p] of this.prompts) if (p.batchId === batchId) this.close(promptId, 'skip');
  }

  /** A run of the batch ended: its prompts close, and its "for all" answer and dialog chain are forgotten. */
  endBatch(batchId: string): void {
    this.closeBatch(batchId);
    this.batchPolicy.delete(batchId);
    this.chains.delete(batchId);
  }

  /** Batches with an answer "for all" or a dialog chain kept (none once their runs ended). */
  batchesKept(): number {
    return new Set([...this.batchPolicy.keys(), ...this.chains.keys()]).size;
  }

  private close(promptId: string, choice: ConflictChoice): void {
    const p = this.prompts.get(promptId);
    if (!p) return;
    this.prompts.delete(promptId);
    p.resolve(choice);
    this.hub.emit('prompt.closed', { promptId });
  }
}
