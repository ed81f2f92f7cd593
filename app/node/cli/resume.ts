/**
 * Resuming `sluice get`/`put` (issue #14): each run records its files and durable byte ranges in the queue database
 * (engine/journal.ts); the same command run again after an interruption sends only what is missing.
 */
import path from 'node:path';
import { isInterruption, isSluiceError } from '../errors';
import type { TransferReport } from '../transfer/types';
import { StoreJournal } from '../engine/journal';
import type { RemoteSpec } from './remoteSpec';
import { formatBytes } from './units';

/**
 * Opens the run's journal, and says so when it resumes an interrupted run ("resuming: 131 MiB of 256 MiB already
 * done"). A database that cannot be opened costs only the resume: the run goes on without a journal, with a warning.
 * @param local the command's local paths (sources of a put, destination of a get), made absolute here
 * @throws SluiceError INVALID_STATE when another Sluice process runs the same command now
 */
export function openRunJournal(direction: 'get' | 'put', spec: RemoteSpec, sources: string[], dest: string,
  say: (line: string) => void): StoreJournal | null {
  const put = direction === 'put';
  const key = {
    target: { user: spec.user ?? '', host: spec.host, port: spec.port },
    direction: put ? 'upload' as const : 'download' as const,
    sources: put ? sources.map((s) => path.resolve(s)) : sources,
    dest: put ? dest : path.resolve(dest),
  };
  let journal: StoreJournal;
  try {
    journal = StoreJournal.open(key);
  } catch (e) {
    if (isSluiceError(e, 'INVALID_STATE')) throw e;
    say(`sluice: warning: cannot record progress for a later resume: ${(e as Error).message}`);
    return null;
  }
  if (journal.resumed) {
    const { doneBytes, totalBytes } = journal.resumeSummary();
    if (doneBytes > 0) say(resumingLine(doneBytes, totalBytes));
  }
  return journal;
}

/**
 * `sluice: resuming: 448.0 MiB of 1.0 GiB already done`; when the journal's files are all done (an interrupted walk of
 * a tree records only the files it reached), `sluice: resuming: 1.4 MiB done earlier; checking for the rest`, which
 * does not sound finished.
 * @param doneBytes bytes the journal holds as done; `totalBytes` of the files it knows
 */
export function resumingLine(doneBytes: number, totalBytes: number): string {
  return doneBytes < totalBytes
    ? `sluice: resuming: ${formatBytes(doneBytes)} of ${formatBytes(totalBytes)} already done`
    : `sluice: resuming: ${formatBytes(doneBytes)} done earlier; checking for the rest`;
}

/**
 * How a run ends for its journal: interrupted or disconnected runs, and finished runs with a file that was (its partial
 * copy is kept for the next run), stay resumable; others end `done` or `failed` and their batch is removed.
 */
export function journalOutcome(e: unknown, report?: TransferReport): 'done' | 'failed' | 'paused' {
  if (report) {
    if (report.failed.some((f) => isInterruption(f.code))) return 'paused';
    return report.failed.length ? 'failed' : 'done';
  }
  return isSluiceError(e) && isInterruption(e.code) ? 'paused' : 'failed';
}
