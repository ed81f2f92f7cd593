/**
 * The resume stage (issue #14): what an interrupted earlier run of the same job left for a file, as its journal
 * records it — nothing (start from zero), the file already committed, or durable ranges at a temporary name that
 * still holds them, so that only the missing ranges are sent. The stage owns the file's temporary name: the
 * destination's fresh one, or the one the journal keeps for the job.
 */
import { coveredBytes, gaps } from '../stores/byteRanges';
import type { DestinationEndpoint } from './endpoints';
import type { ByteRange, TransferJournal } from './types';

/**
 * How a file starts, under which temporary name: from zero, not at all (committed earlier), or after the ranges done.
 */
export type ResumePlan =
  | { kind: 'fresh'; temp: string }
  | { kind: 'committed' }
  | {
      kind: 'resume';
      temp: string;
      missing: ByteRange[];
      doneBytes: number;
      /** End of the furthest recorded range, bytes. */ recordedEnd: number;
    };

/** The file as the resume stage sees it. */
export interface ResumableFile {
  readonly src: string;
  readonly dst: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/** The destination as the resume stage uses it: STATs, removals, and a fresh temporary name. */
export type ResumeSide = Pick<DestinationEndpoint, 'stat' | 'remove' | 'tempName'>;

/** Options of {@link resumePlan}. */
export interface ResumeOptions {
  log: (message: string) => void;
}

/** Whether the target already is the source as a commit of this job leaves it: same size, same mtime to the second. */
async function targetMatches(
  dest: Pick<ResumeSide, 'stat'>,
  f: { dst: string; size: number; mtimeMs: number },
): Promise<boolean> {
  const t = await dest.stat(f.dst).catch(() => null);
  return t !== null && t.size === f.size && Math.floor(t.mtimeMs / 1000) === Math.floor(f.mtimeMs / 1000);
}

/** Size of a file on the destination, or null when missing. */
function sizeOn(dest: Pick<ResumeSide, 'stat'>, p: string): Promise<number | null> {
  return dest.stat(p).then(
    (t) => t?.size ?? null,
    () => null,
  );
}

/**
 * Where an earlier run of the job committed `f`, when the journal says it did (source unchanged) and the target is
 * still there with the source's size; else, with `adoptMatching`, `f.dst` when it already is the source as a commit
 * of this job leaves it (same size, same mtime to the second: a kill can lose the record of a commit, small files
 * being recorded in batches); else undefined (the file goes through the conflict and resume stages).
 * @param adoptMatching the job keeps modification times (its preserveTimes), so its commits carry the source's
 */
export async function committedEarlier(
  dest: Pick<ResumeSide, 'stat'>,
  journal: TransferJournal,
  f: { src: string; dst: string; size: number; mtimeMs: number },
  adoptMatching: boolean,
): Promise<string | undefined> {
  const target = await journal.committedTarget?.({ src: f.src, size: f.size, mtimeMs: f.mtimeMs });
  if (target !== undefined) return (await sizeOn(dest, target)) === f.size ? target : undefined;
  return adoptMatching && (await targetMatches(dest, f)) ? f.dst : undefined;
}

/**
 * Decides how `f` starts, and its temporary name: without a journal, from zero under a fresh name; with one, from
 * what it recorded. Temporary files of earlier runs whose source changed are removed. A partial copy is trusted only
 * where the journal recorded its ranges (never by its size alone: parallel writers leave holes), and only while the
 * temporary file is still there and at least as long as the last recorded range.
 * @param o.log tells the user why a partial copy is not used
 */
export async function resumePlan(
  dest: ResumeSide,
  journal: TransferJournal | undefined,
  f: ResumableFile,
  o: ResumeOptions,
): Promise<ResumePlan> {
  const proposed = dest.tempName(f.dst);
  if (!journal) return { kind: 'fresh', temp: proposed };
  const { log } = o;
  const j = await journal.planFile({ src: f.src, dst: f.dst, size: f.size, mtimeMs: f.mtimeMs }, proposed);
  for (const old of j.discarded) await dest.remove(old);
  for (const old of j.abandoned ?? []) {
    await dest.remove(old);
    log(`${f.dst}: starting over: removed the partial copy ${old} that an earlier, interrupted run left`);
  }
  if (j.committed) {
    if ((await sizeOn(dest, f.dst)) === f.size) return { kind: 'committed' };
    journal.restartFile(f.src, 'the copy an earlier run committed is gone or changed');
    return { kind: 'fresh', temp: proposed };
  }
  const temp = j.temp;
  if (!j.done.length) return { kind: 'fresh', temp };
  const recordedEnd = Math.max(...j.done.map(([, end]) => end));
  const partial = await sizeOn(dest, temp);
  if (partial === null || partial < recordedEnd) {
    const why =
      partial === null
        ? 'its partial copy is gone'
        : `its partial copy is shorter (${partial} bytes) than recorded (${recordedEnd})`;
    journal.restartFile(f.src, why);
    log(`${f.dst}: starting over: ${why}`);
    return { kind: 'fresh', temp };
  }
  const missing = gaps(j.done, f.size);
  const doneBytes = f.size - coveredBytes(missing);
  return { kind: 'resume', temp, missing, doneBytes, recordedEnd };
}
