/**
 * The queue's job buttons: which ones a job shows is the engine's own rule (`allowedIntents` of
 * app/common/queue/rules.ts, used by views/QueueView.tsx); each one invokes its `queue.*` channel.
 */
import type { Bridge } from '../../app/common/ipc/contract';
import type { Result } from '../../app/common/ipc/result';
import type { Job } from '../../app/common/model/job';
import type { JobIntentType } from '../../app/common/queue/rules';

/** Button labels (and the first word of their accessible names). */
export const JOB_INTENT_LABEL: Readonly<Record<JobIntentType, string>> = { pause: 'Pause', resume: 'Resume', cancel: 'Cancel', retry: 'Retry' };

const INVOKE: Readonly<Record<JobIntentType, (bridge: Bridge, req: { jobId: string }) => Promise<Result<void>>>> = {
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
