/**
 * The resume stage (issue #14): what an interrupted earlier run of the same job left for a file, as its journal
 * records it — nothing (start from zero), the file already committed, or durable ranges at a temporary name that
 * still holds them, so that only the missing ranges are sent.
 */
import type { Session } from '../ssh/session';
import fs from 'node:fs';
import { coveredBytes, gaps } from '../stores/byteRanges';
import { targetTimes } from './conflict';
import type { ByteRange, TransferJournal } from './types';

/** How a file starts: from zero, not at all (committed earlier), or after the ranges already done. */
export type ResumePlan =
  | { kind: 'fresh' }
  | { kind: 'committed' }
  | { kind: 'resume'; missing: ByteRange[]; doneBytes: number; /** End of the furthest recorded range, bytes. */ recordedEnd: number };

/** The file as the resume stage sees it; `temp` is set to the name the earlier run used. */
export interface ResumableFile {
  readonly src: string;
  readonly dst: string;
  readonly size: number;
  readonly mtimeMs: number;
  temp: string;
}

/** Options of {@link resumePlan}. */
export interface ResumeOptions {
  log: (message: string) => void;
}

/** Whether the target already is the source as a commit of this job leaves it: same size, same mtime to the second. */
async function targetMatches(session: Pick<Session, 'stat'>, put: boolean, f: { dst: string; size: number; mtimeMs: number }): Promise<boolean> {
  const t = await targetTimes(session, put, f.dst).catch(() => null);
  return t !== null && t.size === f.size && Math.floor(t.mtimeMs / 1000) === Math.floor(f.mtimeMs / 1000);
}

/** Size of a file on the side the job writes to (remote for a put, local for a get), or null when missing. */
function sizeOn(session: Pick<Session, 'stat'>, put: boolean, p: string): Promise<number | null> {
  return targetTimes(session, put, p).then((t) => t?.size ?? null, () => null);
}

/**
 * Where an earlier run of the job committed `f`, when the journal says it did (source unchanged) and the target is
 * still there with the source's size; else, with `adoptMatching`, `f.dst` when it already is the source as a commit
 * of this job leaves it (same size, same mtime to the second: a kill can lose the record of a commit, small files
 * being recorded in batches); else undefined (the file goes through the conflict and resume stages).
 * @param adoptMatching the job keeps modification times (its preserveTimes), so its commits carry the source's
 */
export async function committedEarlier(
  session: Pick<Session, 'stat'>, put: boolean, journal: TransferJournal, f: { src: string; dst: string; size: number; mtimeMs: number },
  adoptMatching: boolean,
): Promise<string | undefined> {
  const target = await journal.committedTarget?.({ src: f.src, size: f.size, mtimeMs: f.mtimeMs });
  if (target !== undefined) return (await sizeOn(session, put, target)) === f.size ? target : undefined;
  return adoptMatching && await targetMatches(session, put, f) ? f.dst : undefined;
}

/**
 * Decides how `f` starts, from the journal. Temporary files of earlier runs whose source changed are removed.
 * A partial copy is trusted only where the journal recorded its ranges (never by its size alone: parallel writers
 * leave holes), and only while the temporary file is still there and at least as long as the last recorded range.
 * @param o.log tells the user why a partial copy is not used
 */
export async function resumePlan(
  session: Pick<Session, 'stat' | 'call'>, put: boolean, journal: TransferJournal, f: ResumableFile, o: ResumeOptions,
): Promise<ResumePlan> {
  const { log } = o;
  const j = await journal.planFile({ src: f.src, dst: f.dst, size: f.size, mtimeMs: f.mtimeMs }, f.temp);
  const remove = (old: string): Promise<unknown> => (put ? session.call('remove', { path: old }) : fs.promises.unlink(old)).catch(() => undefined);
  for (const old of j.discarded) await remove(old);
  for (const old of j.abandoned ?? []) {
    await remove(old);
    log(`${f.dst}: starting over: removed the partial copy ${old} that an earlier, interrupted run left`);
  }
  if (j.committed) {
    if ((await sizeOn(session, put, f.dst)) === f.size) return { kind: 'committed' };
    journal.restartFile(f.src, 'the copy an earlier run committed is gone or changed');
    return { kind: 'fresh' };
  }
  f.temp = j.temp;
  if (!j.done.length) return { kind: 'fresh' };
  const recordedEnd = Math.max(...j.done.map(([, end]) => end));
  const partial = await sizeOn(session, put, f.temp);
  if (partial === null || partial < recordedEnd) {
    const why = partial === null ? 'its partial copy is gone' : `its partial copy is shorter (${partial} bytes) than recorded (${recordedEnd})`;
    journal.restartFile(f.src, why);
    log(`${f.dst}: starting over: ${why}`);
    return { kind: 'fresh' };
  }
  const missing = gaps(j.done, f.size);
  const doneBytes = f.size - coveredBytes(missing);
  return { kind: 'resume', missing, doneBytes, recordedEnd };
}
