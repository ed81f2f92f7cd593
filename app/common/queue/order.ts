/**
 * Reordering the queue: a batch (a row) moves as one block to the top, the bottom, or just before another batch.
 * The service keeps the same order in queue.db (stores/jobOrder.ts), so the queue comes back in it after a restart,
 * and queued jobs start in it.
 */
import { batchJobs } from './batches';
import type { QueueChange, Refusal } from './change';
import type { MoveTarget, QueueState } from './reducer';

/** Where a batch goes: `top`, `bottom`, or before the batch `before`. */
export type BatchPlace = 'top' | 'bottom' | { before: string };

/** `queue.move`. */
export interface MoveIntent {
  type: 'move';
  batchId: string;
  to: BatchPlace;
}

/** The reducer's target for a batch place (before a batch = before its first job); undefined for an unknown batch. */
function target(state: QueueState, to: BatchPlace): MoveTarget | undefined {
  if (typeof to === 'string') return to;
  const first = batchJobs(state, to.before)[0];
  return first ? { before: first.id } : undefined;
}

/** True when `ids` already stand as one block at `to` (checked in O(ids), for the renderer's every row). */
function alreadyThere(order: readonly string[], ids: readonly string[], to: MoveTarget, state: QueueState): boolean {
  const at =
    to === 'top' ? 0 : to === 'bottom' ? order.length - ids.length : (state.index.get(to.before) ?? -1) - ids.length;
  return at >= 0 && ids.every((id, i) => order[at + i] === id);
}

/** Why a move is refused (unknown batch, nothing left to run in it, or the order would not change), or undefined. */
export function moveRefusal(state: QueueState, intent: MoveIntent): Refusal | undefined {
  const jobs = batchJobs(state, intent.batchId);
  if (jobs.length === 0) return { code: 'NOT_FOUND', message: `No batch ${intent.batchId}` };
  const to = target(state, intent.to);
  if (!to) return { code: 'NOT_FOUND', message: `No batch ${typeof intent.to === 'object' ? intent.to.before : ''}` };
  if (typeof intent.to === 'object' && intent.to.before === intent.batchId)
    return { code: 'INVALID_REQUEST', message: 'A batch cannot move before itself' };
  if (!jobs.some((j) => j.state === 'queued' || j.state === 'paused'))
    return { code: 'INVALID_STATE', message: 'Only a batch with jobs waiting to run can move' };
  if (
    alreadyThere(
      state.order,
      jobs.map((j) => j.id),
      to,
      state,
    )
  )
    return { code: 'INVALID_STATE', message: 'The batch is already there' };
  return undefined;
}

/** The `moved` event of an accepted move (call only when {@link moveRefusal} is undefined). */
export function moveChange(state: QueueState, intent: MoveIntent): QueueChange {
  const ids = batchJobs(state, intent.batchId).map((j) => j.id);
  return { events: [{ type: 'moved', ids, to: target(state, intent.to)! }], effects: [] };
}
