/**
 * The queue's buttons: which ones a row (a batch) shows is the engine's own rule (`allowedBatchIntents` of
 * app/common/queue/rules.ts, used by views/QueueRows.tsx), and the header's bulk buttons and a row's "Move to top"
 * are enabled with `can`; each one invokes its `queue.*` channel.
 */
import type { Bridge } from '../../app/common/ipc/contract';
import type { Result } from '../../app/common/ipc/result';
import type { Job } from '../../app/common/model/job';
import type { BulkIntentType, JobIntentType } from '../../app/common/queue/rules';

/** Button labels (and the first word of their accessible names). */
export const JOB_INTENT_LABEL: Readonly<Record<JobIntentType, string>> = {
  pause: 'Pause',
  resume: 'Resume',
  cancel: 'Cancel',
  retry: 'Retry',
};

type JobOrBatch = { jobId: string } | { batchId: string };

const INVOKE: Readonly<Record<JobIntentType, (bridge: Bridge, req: JobOrBatch) => Promise<Result<void>>>> = {
  pause: (bridge, req) => bridge.queuePause(req),
  resume: (bridge, req) => bridge.queueResume(req),
  cancel: (bridge, req) => bridge.queueCancel(req),
  retry: (bridge, req) => bridge.queueRetry(req),
};

/** Sends `intent` for `job`; resolves to the error message when the engine refuses it or fails, else undefined. */
export async function sendJobIntent(bridge: Bridge, job: Job, intent: JobIntentType): Promise<string | undefined> {
  const r = await INVOKE[intent](bridge, { jobId: job.id });
  return r.ok ? undefined : r.error.message;
}

/** Sends `intent` for every job of a batch (a row's button); resolves to the engine's refusal, else undefined. */
export async function sendBatchIntent(
  bridge: Bridge,
  batchId: string,
  intent: JobIntentType,
): Promise<string | undefined> {
  const r = await INVOKE[intent](bridge, { batchId });
  return r.ok ? undefined : r.error.message;
}

/** The header's bulk buttons: label and channel. */
export const BULK_INTENT_LABEL: Readonly<Record<BulkIntentType, string>> = {
  pauseAll: 'Pause all',
  resumeAll: 'Resume all',
  retryFailed: 'Retry failed',
};

const BULK: Readonly<Record<BulkIntentType, (bridge: Bridge, req: { siteId?: string }) => Promise<Result<void>>>> = {
  pauseAll: (bridge, req) => bridge.queuePauseAll(req),
  resumeAll: (bridge, req) => bridge.queueResumeAll(req),
  retryFailed: (bridge, req) => bridge.queueRetryFailed(req),
};

/**
 * Sends a bulk intent for the whole queue, or for one site's jobs; resolves to the engine's refusal, else undefined.
 */
export async function sendBulkIntent(
  bridge: Bridge,
  intent: BulkIntentType,
  siteId?: string,
): Promise<string | undefined> {
  const r = await BULK[intent](bridge, siteId === undefined ? {} : { siteId });
  return r.ok ? undefined : r.error.message;
}

/** Moves a batch just before another (a row dropped on a row); resolves to the engine's refusal, else undefined. */
export async function moveBatchBefore(
  bridge: Bridge,
  batchId: string,
  beforeBatchId: string,
): Promise<string | undefined> {
  if (batchId === beforeBatchId) return undefined;
  const r = await bridge.queueMove({ batchId, to: { before: beforeBatchId } });
  return r.ok ? undefined : r.error.message;
}

/** Moves a batch to the top of the queue; resolves to the engine's refusal, else undefined. */
export async function moveBatchToTop(bridge: Bridge, batchId: string): Promise<string | undefined> {
  const r = await bridge.queueMove({ batchId, to: 'top' });
  return r.ok ? undefined : r.error.message;
}
