/**
 * A desktop notification when a batch of more than a minute finishes (issue #14), from main with Electron's
 * `Notification`. Which batches: app/common/queue/batchFinish.ts.
 */
import { Notification } from 'electron';
import type { EventName, EventPayloads } from '../app/common/ipc/contract';
import { BatchFinishWatch, type FinishedBatch } from '../app/common/queue/batchFinish';
import type { QueueEvent } from '../app/common/queue/reducer';
import type { SluiceService } from '../app/node/service';
import { formatBytes, formatDuration } from '../app/common/units';

/** The notification's title and text for a finished batch. */
export function batchNotice(f: FinishedBatch): { title: string; body: string } {
  const { view } = f;
  const verb = view.direction === 'upload' ? 'uploaded' : 'downloaded';
  const failed = f.failed ? `, ${f.failed} failed` : '';
  const cancelled = f.cancelled ? `, ${f.cancelled} cancelled` : '';
  return {
    title: f.failed ? 'Sluice: transfer finished with failures' : 'Sluice: transfer finished',
    body: `${view.name}: ${view.filesDone} file(s), ${formatBytes(view.bytesDone)} ${verb} in ${formatDuration(f.durationMs) ?? '?'}${failed}${cancelled}`,
  };
}

/** The queue events in a service event (a snapshot as one). */
function queueEvents<E extends EventName>(event: E, payload: EventPayloads[E]): readonly QueueEvent[] {
  if (event === 'queue.delta') return (payload as EventPayloads['queue.delta']).events;
  if (event === 'queue.snapshot')
    return [{ type: 'snapshot', jobs: (payload as EventPayloads['queue.snapshot']).jobs }];
  return [];
}

/**
 * Shows a notification for each batch that finishes after a minute or more of work, where the platform supports
 * notifications. @returns the unsubscribe function
 */
export function notifyFinishedBatches(
  service: Pick<SluiceService, 'subscribe' | 'jobs'>,
  watch = new BatchFinishWatch(),
): () => void {
  watch.push([{ type: 'snapshot', jobs: service.jobs() }]);
  return service.subscribe((event, payload) => {
    for (const f of watch.push(queueEvents(event, payload))) {
      if (Notification.isSupported()) new Notification(batchNotice(f)).show();
    }
  });
}
