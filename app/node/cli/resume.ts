/**
 * Resuming `sluice get`/`put` (issue #14): each run records its files and durable byte ranges in the queue database
 * (engine/journal.ts); the same command run again after an interruption sends only what is missing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isInterruption, isSluiceError } from '../errors';
import type { TransferReport } from '../transfer/types';
import { StoreJournal, type JournalKey } from '../engine/journal';
import { QueueStore } from '../stores/queueStore';
import { formatBytes } from './units';

/** A remote path as a journal or queue key: the login folder (`''`, as `sftp://host` names it) is `~`. */
export function remoteKeyPath(p: string): string {
  return p === '' ? '~' : p;
}

/**
 * Which command a `get`/`put` is, for its journal: the resolved server (cli/jobSetup.ts jobTarget), the direction,
 * the sources and the destination (local ones made absolute, the login folder as `~`).
 */
export function runJournalKey(
  direction: 'get' | 'put',
  target: JournalKey['target'],
  sources: string[],
  dest: string,
): JournalKey {
  const put = direction === 'put';
  return {
    target,
    direction: put ? 'upload' : 'download',
    sources: put ? sources.map((s) => path.resolve(s)) : sources.map(remoteKeyPath),
    dest: put ? remoteKeyPath(dest) : canonicalLocalPath(dest),
  };
}

/**
 * A local path as one spelling of its place: absolute, its existing part with symlinks resolved (realpath), the rest
 * as typed (`./x`, `/home/me/x` and `~/link-to-me/x` are one path).
 */
export function canonicalLocalPath(p: string): string {
  const abs = path.resolve(p);
  try {
    return fs.realpathSync.native(abs);
  } catch {
    const parent = path.dirname(abs);
    return parent === abs ? abs : path.join(canonicalLocalPath(parent), path.basename(abs));
  }
}

function isLocalDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The destinations a get of `sources` into `dest` may have been written as by an earlier run, in the order they are
 * looked for: `dest` itself (canonical), then, for a single source, its one target named the other way: the folder
 * it goes into (`./` for `./big.bin`, when `./big.bin` is not a folder), or the file inside the folder (`./big.bin`
 * for `./`, when `./` is one).
 * @param isDir whether a local path is an existing folder (default: stat)
 */
export function getDestCandidates(
  sources: readonly string[],
  dest: string,
  isDir: (p: string) => boolean = isLocalDir,
): string[] {
  const own = canonicalLocalPath(dest);
  const name = sources.length === 1 ? path.posix.basename(sources[0].replace(/\/+$/, '')) : '';
  if (name === '' || name === '~') return [own];
  if (isDir(own)) return [own, path.join(own, name)];
  return path.basename(own) === name ? [own, path.dirname(own)] : [own];
}

/**
 * The destination a `get` runs with: as typed, unless an interrupted run of the same download wrote the same target
 * under another name for it (`./` and `./big.bin`, `big.bin` and `/home/me/big.bin`, a folder through a symlink):
 * then that run's destination, so the run resumes its journal and partial copy instead of starting over beside them.
 * A queue database that cannot be read leaves the destination as typed (openRunJournal says why).
 * @param target the resolved server (cli/jobSetup.ts jobTarget)
 * @param home the data folder (default SLUICE_HOME, else the per-OS folder)
 */
export function recognizedGetDest(
  target: JournalKey['target'],
  sources: string[],
  dest: string,
  home?: string,
): string {
  const candidates = getDestCandidates(sources, dest);
  let store: QueueStore;
  try {
    store = QueueStore.open({ home });
  } catch {
    return dest;
  }
  try {
    const found = candidates.findIndex(
      (c) => StoreJournal.resumable(store, runJournalKey('get', target, sources, c)) !== undefined,
    );
    return found > 0 ? candidates[found] : dest;
  } finally {
    store.close();
  }
}

/**
 * Opens the run's journal, and says so when it resumes an interrupted run ("resuming: 131 MiB of 256 MiB already
 * done"). A database that cannot be opened costs only the resume: the run goes on without a journal, with a warning.
 * @param target the server as resolved (cli/jobSetup.ts jobTarget): every way of naming it finds the same journal
 * @param sources,dest the command's paths; local ones are made absolute here
 * @throws SluiceError INVALID_STATE when another Sluice process runs the same command now
 */
export function openRunJournal(
  direction: 'get' | 'put',
  target: JournalKey['target'],
  sources: string[],
  dest: string,
  say: (line: string) => void,
): StoreJournal | null {
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
