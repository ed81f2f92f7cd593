/**
 * The queue's channels (app/common/ipc/contract.ts `queue.*`) and the conflict answers: each one action of the
 * service's JobQueue.
 */
import type { Job } from '../../common/model/job';
import type { Handlers } from './hub';
import { withLocalHome } from './localFs';
import type { JobQueue } from './queue';

/**
 * The handlers of the queue's channels.
 * @param queue the service's queue
 * @param jobs the jobs as the window shows them (Service.jobs)
 */
export function queueHandlers(queue: JobQueue, jobs: () => Job[]) {
  return {
    'queue.enqueue': async (req) => ({ jobIds: queue.enqueue(withLocalHome(req)) }),
    'queue.snapshot': async () => ({ jobs: jobs() }),
    'queue.pause': async (ref) => queue.perform({ type: 'pause', ...ref }),
    'queue.resume': async (ref) => queue.perform({ type: 'resume', ...ref }),
    'queue.cancel': async (ref) => queue.perform({ type: 'cancel', ...ref }),
    'queue.retry': async (ref) => queue.perform({ type: 'retry', ...ref }),
    'queue.pauseAll': async (scope) => queue.perform({ type: 'pauseAll', ...scope }),
    'queue.resumeAll': async (scope) => queue.perform({ type: 'resumeAll', ...scope }),
    'queue.retryFailed': async (scope) => queue.perform({ type: 'retryFailed', ...scope }),
    'queue.move': async ({ batchId, to }) => queue.perform({ type: 'move', batchId, to }),
    'queue.files': async ({ batchId, limit }) => queue.files(batchId, limit ?? 500),
    'queue.clearFinished': async () => queue.perform({ type: 'clearFinished' }),
    'conflict.answer': async ({ promptId, choice, forAll }) => queue.answerConflict(promptId, choice, forAll ?? false),
  } satisfies Partial<Handlers>;
}
