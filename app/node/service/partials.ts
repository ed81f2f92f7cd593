/**
 * The partial copies of cancelled jobs. Pause (and the app quitting) keeps an unfinished file's temporary copy for the
 * next run to resume (engine/journal.ts); cancel gives the job up, so its copies go: a download's on the local disk,
 * an upload's through the site's connection — or, when the site is not connected or the removal fails, recorded as
 * leftovers (stores/leftovers.ts), which the next transfer to that server removes first.
 */
import * as fs from 'node:fs';
import type { Direction, Job } from '../../common/model/job';
import { SluiceError } from '../errors';
import type { Engine } from '../engine/engine';
import { LeftoverJournal } from '../stores/leftovers';
import type { JobBook } from './jobBook';

/** Where the partial copies of a site's cancelled jobs are removed. */
export interface PartialsPlace {
  direction: Direction;
  /** The site's connected engine, if it is connected now (uploads). */
  remote: Pick<Engine, 'remove'> | undefined;
  /** The site's leftovers, for remote copies that cannot be removed now. */
  leftovers(): LeftoverJournal;
}

/**
 * Removes temporary files (full paths) of cancelled jobs; never rejects. A file already gone is fine.
 * @returns how many were removed now (the others are gone already, or recorded as leftovers)
 */
export async function removePartials(temps: readonly string[], place: PartialsPlace): Promise<number> {
  let removed = 0;
  for (const temp of temps) {
    if (place.direction === 'download') {
      try {
        await fs.promises.unlink(temp);
        removed++;
      } catch {
        /* gone already, or not ours to remove */
      }
      continue;
    }
    try {
      if (!place.remote) throw new SluiceError('NOT_CONNECTED', 'not connected');
      await place.remote.remove(temp);
      removed++;
    } catch (e) {
      if (SluiceError.from(e).code !== 'NO_SUCH_FILE') place.leftovers().record({ kind: 'temp', path: temp });
    }
  }
  return removed;
}

/** What giving up cancelled jobs' partial copies reads: the queue's book, the sites and their connections. */
export interface PartialsDesk {
  book: Pick<JobBook, 'discardUnfinished'>;
  /** The data folder (the leftovers of uploads whose copies cannot be removed now). */
  home: string;
  site(siteId: string): { host: string; port: number; user: string } | undefined;
  /** The site's engine if it is connected now. */
  connected(siteId: string): Pick<Engine, 'remove'> | undefined;
}

/**
 * Forgets the unfinished files of cancelled jobs (one site's or several) in the queue's book and starts removing
 * their temporary copies, per site and direction ({@link removePartials}).
 * @returns the removals under way (they never reject)
 */
export function discardPartials(jobs: readonly Job[], d: PartialsDesk): Promise<void>[] {
  const removals: Promise<void>[] = [];
  const bySite = new Map<string, Job[]>();
  for (const j of jobs) bySite.set(j.siteId, [...(bySite.get(j.siteId) ?? []), j]);
  for (const [siteId, siteJobs] of bySite) {
    for (const direction of ['upload', 'download'] as const) {
      const ids = siteJobs.filter((j) => j.direction === direction).map((j) => j.id);
      const temps = ids.length ? d.book.discardUnfinished(ids) : [];
      if (temps.length === 0) continue;
      const site = d.site(siteId);
      removals.push(
        removePartials(temps, {
          direction,
          remote: d.connected(siteId),
          leftovers: () =>
            new LeftoverJournal(d.home, { host: site?.host ?? '', port: site?.port ?? 22, user: site?.user ?? '' }),
        }).then(() => undefined),
      );
    }
  }
  return removals;
}
