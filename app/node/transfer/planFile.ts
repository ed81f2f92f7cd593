/**
 * The plan stage of one file: its route (planner.ts routeOf, the one decision) and the byte ranges its segments
 * cover — the whole file, a resumed file's missing ranges, a sparse source's data ranges — with the file prepared
 * for them (handles opened ahead, a local temporary file created at full length, earlier bytes counted as done).
 */
import type { Lane } from '../ssh/connectionPool';
import type { Endpoints } from './endpoints';
import { routeOf, wantsSegments } from './planner';
import type { ResumePlan } from './resume';
import { dataWithin } from './sparseUpload';
import type { TransferFile } from './transferFile';
import type { ByteRange, TransferJournal } from './types';

/** How a planned file is queued: whole through one handle, or these ranges in segments. */
export type FilePlan = { kind: 'whole' } | { kind: 'segments'; ranges: readonly ByteRange[] };

/** What the plan of a file depends on besides the file. */
export interface PlanContext {
  ends: Endpoints;
  journal: TransferJournal | undefined;
  /** `--segment-size`, bytes. */
  segmentSize: number;
  /** The planned lanes (connections × channels), not only those up now. */
  lanes: number;
  /** The lanes up now (a segmented file's handles may be opened ahead on them). */
  lanesNow(): Lane[];
}

/**
 * Plans `f`: whole, or in segments over its ranges; a resumed file (`resume`) goes in segments over the ranges still
 * missing, or starts over (its journal told) when the destination cannot take segments.
 * @throws SluiceError of the preparation (a local temporary file that cannot be created)
 */
export async function planFile(
  c: PlanContext,
  f: TransferFile,
  resume?: Extract<ResumePlan, { kind: 'resume' }>,
): Promise<FilePlan> {
  const { source, dest } = c.ends;
  // A sparse source sends its data ranges only, in segments, resumed too (sparseUpload.ts).
  const sparse = await source.dataRanges(f, !resume && c.journal ? () => dest.remove(f.temp) : undefined);
  const facts = {
    size: f.size,
    segmentSize: c.segmentSize,
    lanes: c.lanes,
    journalled: c.journal !== undefined,
    resuming: resume !== undefined,
    sparse: sparse !== undefined,
  };
  const wanted = wantsSegments(facts);
  if (wanted) f.openAhead(c.lanesNow());
  const route = routeOf(facts, !wanted || (await dest.takesOutOfOrder(f.dst)));
  if (route.kind === 'whole') {
    await f.release();
    if (resume) c.journal?.restartFile(f.src, 'the server does not take out-of-order writes');
    return { kind: 'whole' };
  }
  if (resume) {
    f.resumeAfter(resume.doneBytes, resume.recordedEnd);
    const left = sparse ? dataWithin(resume.missing, sparse.ranges, f.size) : { ranges: resume.missing, holeBytes: 0 };
    f.skipHoles(left.holeBytes);
    return { kind: 'segments', ranges: left.ranges };
  }
  if (sparse) {
    f.skipHoles(sparse.holeBytes);
    return { kind: 'segments', ranges: sparse.ranges };
  }
  await dest.prepareSegments(f);
  return { kind: 'segments', ranges: [[0, f.size]] };
}
