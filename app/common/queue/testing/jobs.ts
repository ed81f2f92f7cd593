/** Jobs and queues for the tests of app/common/queue. */
import type { Job } from '../../model/job';
import { applyQueueEvents, emptyQueue, type QueueState } from '../reducer';

/** A queued upload of site `s`, batch `b`, named after its id, 100 bytes expected; `over` changes any field. */
export function job(id: string, over: Partial<Job> = {}): Job {
  return {
    id,
    batchId: 'b',
    siteId: 's',
    direction: 'upload',
    source: `/l/${id}`,
    dest: '/r',
    name: id,
    state: 'queued',
    bytesDone: 0,
    bytesTotal: 100,
    filesDone: 0,
    filesTotal: 1,
    rate: 0,
    createdAt: 1,
    ...over,
  };
}

/** A queue holding `jobs` in this order. */
export function queueOf(...jobs: Job[]): QueueState {
  return applyQueueEvents(emptyQueue, [{ type: 'added', jobs }]);
}
