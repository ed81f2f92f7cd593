/**
 * Resuming `sluice get`/`put` (issue #14): each run records its files and durable byte ranges in the queue database
 * (engine/journal.ts); the same command run again after an interruption sends only what is missing.
 */
import path from 'node:path';
import { isInterruption, isSluiceError } from '../errors';
import type { TransferReport } from '../transfer/types';
import { StoreJournal, type JournalKey } from '../engine/journal';
import { formatBytes } from './units';

/** A remote path as a journal or queue key: the login folder (`''`, as `sftp://host` names it) is `~`. */
export function remoteKeyPath(p: string): string {
  return p === '' ? '~' : p;
}

/**
 * Which command a `get`/`put` is, for its journal: the resolved server (cli/jobSetup.ts jobTarget), the direction,
 * the sources and the destination (local ones made absolute, the login folder as `~`).
 */
export function runJournalKey(direction: 'get' | 'put', target: JournalKey['target'], sources: string[], dest: string): JournalKey {
  const put = direction === 'put';
  return {
    target,
    direction: put ? 'upload' : 'download',
    sources: put ? sources.map((s) => path.resolve(s)) : sources.map(remoteKeyPath),
    dest: put ? remoteKeyPath(dest) : path.resolve(dest),
  };
}

/**
 * Opens the run's journal, and says so when it resumes an interrupted run ("resuming: 131 MiB of 256 MiB already
 * done"). A database that cannot be opened costs only the resume: the run goes on without a journal, with a warning.
 * @param target the server as resolved (cli/jobSetup.ts jobTarget): every way of naming it finds the same journal
 * @param sources,dest the command's paths; local ones are made absolute here
 * @throws SluiceError INVALID_STATE when another Sluice process runs the same command now
 */
export function openRunJournal(direction: 'get' | 'put', target: JournalKey['target'], sources: string[], dest: string,
  say: (line: string) => void): StoreJournal | null {
  const key = runJournalKey(direction, target, sources, dest);
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
    if (doneBytes > 0) say(`sluice: resuming: ${formatBytes(doneBytes)} of ${formatBytes(totalBytes)} already done`);
  }
  return journal;
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
