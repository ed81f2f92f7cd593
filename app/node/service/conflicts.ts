/**
 * The queue's conflict prompts: the engine asks per file whether to replace an existing target; the service asks the
 * user one dialog at a time per batch, in the batch's order (its jobs' order, then the target paths: the order of the
 * listing the user dropped, not the order the workers raced to), each dialog saying how many more of the batch are
 * waiting; a "for all" answer answers the rest of the batch's run (forgotten when the run ends:
 * {@link ConflictPrompts.endBatch}).
 */
import { randomUUID } from 'node:crypto';
import type { ConflictChoice } from '../../common/ipc/contract';
import type { Direction } from '../../common/model/job';
import { SluiceError } from '../errors';
import type { ConflictFiles } from '../transfer/types';
import type { ServiceHub } from './hub';

/** What a conflict is about: the batch, the job whose target exists, and that target. */
export interface ConflictQuestion {
  batchId: string;
  jobId: string;
  /** The job's position in its batch (the order it was dropped in); questions are asked by it, then by target. */
  order?: number;
  direction: Direction;
  target: string;
  files: ConflictFiles;
}

interface Waiting {
  q: ConflictQuestion;
  signal: AbortSignal;
  resolve: (c: ConflictChoice) => void;
}

/** One batch's questions: the one shown (its prompt id) and those waiting, in the batch's order. */
interface BatchQuestions {
  shown?: { promptId: string; w: Waiting };
  waiting: Waiting[];
  timer?: NodeJS.Timeout;
}

/**
 * How long the first question of a batch waits for the others the workers are about to ask (ms), so that the first
 * dialog is the first file of the listing and not whichever worker came first. Each later dialog is chosen when the
 * one before is answered, by then among every question asked meanwhile.
 */
export const GATHER_MS = 150;

function before(a: ConflictQuestion, b: ConflictQuestion): number {
  return (a.order ?? 0) - (b.order ?? 0) || (a.target < b.target ? -1 : a.target > b.target ? 1 : 0);
}

export class ConflictPrompts {
  private readonly batches = new Map<string, BatchQuestions>();
  /** "For all" answers per batch. */
  private readonly batchPolicy = new Map<string, ConflictChoice>();

  constructor(private readonly hub: ServiceHub) {}

  /** The engine's per-file question: the batch's "for all" answer, else one dialog at a time per batch, in order. */
  ask(q: ConflictQuestion, signal: AbortSignal): Promise<ConflictChoice> {
    const policy = this.batchPolicy.get(q.batchId);
    if (policy) return Promise.resolve(policy);
    if (signal.aborted) return Promise.resolve('skip');
    return new Promise<ConflictChoice>((resolve) => {
      let b = this.batches.get(q.batchId);
      if (!b) this.batches.set(q.batchId, (b = { waiting: [] }));
      const w: Waiting = { q, signal, resolve };
      const at = b.waiting.findIndex((o) => before(q, o.q) < 0);
      b.waiting.splice(at < 0 ? b.waiting.length : at, 0, w);
      if (b.shown) this.emit(b.shown.promptId, b.shown.w.q, b.waiting.length);
      else if (!b.timer) b.timer = setTimeout(() => this.showNext(q.batchId), GATHER_MS);
    });
  }

  /** `conflict.answer`; `forAll` answers the rest of the batch the same way. */
  answer(promptId: string, choice: ConflictChoice, forAll: boolean): void {
    const batchId = this.batchOf(promptId);
    if (batchId === undefined) throw new SluiceError('NOT_FOUND', 'This conflict question is no longer open');
    const b = this.batches.get(batchId)!;
    if (forAll) {
      this.batchPolicy.set(batchId, choice);
      for (const w of b.waiting.splice(0)) w.resolve(choice);
    }
    this.close(batchId, choice);
    this.showNext(batchId);
  }

  /** Closes the batch's open and waiting questions with `skip` (its run was stopped). */
  closeBatch(batchId: string): void {
    const b = this.batches.get(batchId);
    if (!b) return;
    clearTimeout(b.timer);
    b.timer = undefined;
    for (const w of b.waiting.splice(0)) w.resolve('skip');
    this.close(batchId, 'skip');
  }

  /** A run of the batch ended: its prompts close, and its "for all" answer is forgotten. */
  endBatch(batchId: string): void {
    this.closeBatch(batchId);
    this.batches.delete(batchId);
    this.batchPolicy.delete(batchId);
  }

  /** Batches with an answer "for all" or questions kept (none once their runs ended). */
  batchesKept(): number {
    return new Set([...this.batchPolicy.keys(), ...this.batches.keys()]).size;
  }

  /** Shows the batch's first waiting question (those whose run was stopped meanwhile are skipped). */
  private showNext(batchId: string): void {
    const b = this.batches.get(batchId);
    if (!b || b.shown) return;
    b.timer = undefined;
    let w = b.waiting.shift();
    while (w?.signal.aborted) {
      w.resolve('skip');
      w = b.waiting.shift();
    }
    if (!w) return;
    const promptId = randomUUID();
    b.shown = { promptId, w };
    this.emit(promptId, w.q, b.waiting.length);
  }

  private emit(promptId: string, q: ConflictQuestion, waiting: number): void {
    this.hub.emit('conflict.prompt', {
      promptId,
      jobId: q.jobId,
      target: q.target,
      direction: q.direction,
      existing: q.files.existing,
      incoming: q.files.incoming,
      waiting,
    });
  }

  private batchOf(promptId: string): string | undefined {
    for (const [batchId, b] of this.batches) if (b.shown?.promptId === promptId) return batchId;
    return undefined;
  }

  private close(batchId: string, choice: ConflictChoice): void {
    const b = this.batches.get(batchId);
    const shown = b?.shown;
    if (!b || !shown) return;
    b.shown = undefined;
    shown.w.resolve(choice);
    this.hub.emit('prompt.closed', { promptId: shown.promptId });
  }
}
