/**
 * Keeps the computer awake while transfers run (#30 item 11): Electron's `powerSaveBlocker` with
 * `prevent-app-suspension` (system sleep on Windows and Linux; on macOS an IOPMAssertion that also keeps App Nap from
 * throttling the app), started when a job starts running and stopped when none runs. The display may still sleep.
 */
import { powerSaveBlocker } from 'electron';
import type { EventName, EventPayloads } from '../app/common/ipc/contract';
import type { SluiceService } from '../app/node/service';

/** The running jobs, kept from the queue's events. */
export class RunningJobs {
  private readonly running = new Set<string>();

  /** Applies one service event; @returns whether any job runs now. */
  push<E extends EventName>(event: E, payload: EventPayloads[E]): boolean {
    if (event === 'queue.snapshot') {
      this.running.clear();
      const { jobs } = payload as EventPayloads['queue.snapshot'];
      for (const j of jobs) if (j.state === 'running') this.running.add(j.id);
    } else if (event === 'queue.delta') {
      for (const e of (payload as EventPayloads['queue.delta']).events) {
        if (e.type === 'snapshot' || e.type === 'added') {
          if (e.type === 'snapshot') this.running.clear();
          for (const j of e.jobs) if (j.state === 'running') this.running.add(j.id);
        } else if (e.type === 'updated' && e.patch.state !== undefined) {
          if (e.patch.state === 'running') this.running.add(e.id);
          else this.running.delete(e.id);
        } else if (e.type === 'removed') {
          for (const id of e.ids) this.running.delete(id);
        }
      }
    }
    return this.running.size > 0;
  }
}

/**
 * Holds a power-save blocker exactly while a job runs. @returns the unsubscribe function (which releases the blocker)
 */
export function keepAwakeWhileTransferring(service: Pick<SluiceService, 'subscribe' | 'jobs'>): () => void {
  const jobs = new RunningJobs();
  let blocker: number | undefined;
  const apply = (busy: boolean): void => {
    if (busy && blocker === undefined) blocker = powerSaveBlocker.start('prevent-app-suspension');
    else if (!busy && blocker !== undefined) {
      powerSaveBlocker.stop(blocker);
      blocker = undefined;
    }
  };
  apply(jobs.push('queue.snapshot', { jobs: service.jobs() }));
  const unsubscribe = service.subscribe((event, payload) => apply(jobs.push(event, payload)));
  return () => {
    unsubscribe();
    apply(false);
  };
}
