/**
 * The resume stage (issue #14): what an interrupted earlier run of the same job left for a file, as its journal
 * records it — nothing (start from zero), the file already committed, or durable ranges at a temporary name that
 * still holds them, so that only the missing ranges are sent.
 */
import fs from 'node:fs';
import type { Session } from '../ssh/session';
import type { ByteRange, TransferJournal } from './types';

/** How a file starts: from zero, not at all (committed earlier), or after the ranges already done. */
export type ResumePlan =
  | { kind: 'fresh' }
  | { kind: 'committed' }
  | { kind: 'resume'; missing: ByteRange[]; doneBytes: number };

/** The file as the resume stage sees it; `temp` is set to the name the earlier run used. */
export interface ResumableFile {
  readonly src: string;
  readonly dst: string;
  readonly size: number;
  readonly mtimeMs: number;
  temp: string;
}

/** The gaps of `done` in [0, size), in order. `done` need not be sorted or coalesced. */
export function missingRanges(done: readonly ByteRange[], size: number): ByteRange[] {
  const out: ByteRange[] = [];
  let at = 0;
  for (const [start, end] of [...done].sort((a, b) => a[0] - b[0])) {
    if (start > at) out.push([at, Math.min(start, size)]);
    at = Math.max(at, end);
    if (at >= size) break;
  }
  if (at < size) out.push([at, size]);
  return out.filter(([a, b]) => b > a);
}

/** Size of a file on the side the job writes to (remote for a put, local for a get), or null when missing. */
function sizeOn(session: Pick<Session, 'stat'>, put: boolean, p: string): Promise<number | null> {
  return (put ? session.stat(p) : fs.promises.lstat(p).catch(() => null)).then((s) => s?.size ?? null, () => null);
}

/**
 * Decides how `f` starts, from the journal. Temporary files of earlier runs whose source changed are removed.
 * A partial copy is trusted only where the journal recorded its ranges (never by its size alone: parallel writers
 * leave holes), and only while the temporary file is still there and at least as long as the last recorded range.
 * @param log tells the user why a partial copy is not used
 */
export async function resumePlan(
  session: Pick<Session, 'stat' | 'call'>, put: boolean, journal: TransferJournal, f: ResumableFile, log: (message: string) => void,
): Promise<ResumePlan> {
  const j = await journal.planFile({ src: f.src, dst: f.dst, size: f.size, mtimeMs: f.mtimeMs }, f.temp);
  for (const old of j.discarded) {
    if (put) await session.call('remove', { path: old }).catch(() => undefined);
    else await fs.promises.unlink(old).catch(() => undefined);
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
  const missing = missingRanges(j.done, f.size);
  const doneBytes = f.size - missing.reduce((n, [a, b]) => n + (b - a), 0);
  return { kind: 'resume', missing, doneBytes };
}
