/**
 * The stages a scanned file passes before it is a TransferFile: a resumed job's own earlier commit, the conflict
 * stage (conflict.ts) and the resume stage (resume.ts, which names its temporary file), as one outcome the job books.
 */
import { SluiceError } from '../errors';
import { resolveConflict, type ConflictSide, type Resolution } from './conflict';
import type { DestinationEndpoint } from './endpoints';
import { committedEarlier, resumePlan, type ResumePlan } from './resume';
import type { FileItem } from './scan';
import type { TransferRequest } from './types';

/** A file the job moves: its target (`renamedFrom`: the rule `rename` chose it), how it resolved, how it starts. */
export interface Admitted {
  kind: 'move';
  item: FileItem & { renamedFrom?: string };
  resolved: Exclude<Resolution, { kind: 'skip' }>;
  start: Exclude<ResumePlan, { kind: 'committed' }>;
}

/** What becomes of a scanned file before it moves. */
export type Admission =
  | Admitted
  /** Committed by an earlier run of the job, at `item.dst`: nothing to send. */
  | { kind: 'earlier'; item: FileItem & { renamedFrom?: string } }
  | { kind: 'skip'; reason: string }
  /** Failed; `planned`: in the resume stage, after the journal took the file in (it is told the file ended). */
  | { kind: 'failed'; item: FileItem & { renamedFrom?: string }; error: SluiceError; planned: boolean };

/** What the stages need from the job. */
export interface AdmitContext {
  req: TransferRequest;
  dest: DestinationEndpoint;
  conflictSide: ConflictSide;
  log(message: string): void;
}

/** Takes `raw` through the stages before it moves; never rejects (a failure is an outcome). */
export async function admit(c: AdmitContext, raw: FileItem): Promise<Admission> {
  const journal = c.req.journal;
  let resolved: Resolution;
  try {
    // A resumed job's own earlier commit is not a conflict: its target is there because of this job.
    const earlier = journal?.resuming
      ? await committedEarlier(c.dest, journal, raw, c.req.preserveTimes !== false)
      : undefined;
    if (earlier !== undefined) return { kind: 'earlier', item: { ...raw, dst: earlier } };
    resolved = await resolveConflict(c.conflictSide, c.req.conflict, raw);
    if (resolved.kind === 'skip') return resolved;
  } catch (e) {
    return { kind: 'failed', item: raw, error: SluiceError.from(e), planned: false };
  }
  const item = resolved.item.dst === raw.dst ? resolved.item : { ...resolved.item, renamedFrom: raw.dst };
  try {
    const start = await resumePlan(c.dest, journal, item, { log: c.log });
    return start.kind === 'committed' ? { kind: 'earlier', item } : { kind: 'move', item, resolved, start };
  } catch (e) {
    return { kind: 'failed', item, error: SluiceError.from(e), planned: true };
  }
}
