/**
 * Running a sync batch (enqueue.ts), the same way for every runner (`sluice sync`, and the app's queue and `sluice
 * queue run` when a batch's jobs carry `options.sync`). A runner that claimed jobs of a sync batch:
 *
 * 1. {@link prepareSync}: the steps job's folders are created on DEST (once: `foldersDone` is kept with the job), and
 *    with a backup folder each file a copy replaces is moved there first (unless it already is the new copy);
 * 2. {@link syncTransferRequest}: the copy jobs go to the engine as one transfer of the files as listed
 *    (TransferRequest.files) with their journal (StoreJournal.ofClaims over the copy claims): overwrite, times kept,
 *    a killed run resumes its partial files; the runner settles each copy job from the transfer as for get/put;
 * 3. {@link runSyncSteps}, after the copies settled: when every copy job of the batch is `done` in the queue, the
 *    deletions run (or moves to the backup folder), deepest paths first; otherwise nothing is deleted and the steps
 *    job waits for the next run ({@link StepsOutcome} `waiting`).
 */
import fs from 'node:fs';
import { plural } from '../../common/plural';
import path from 'node:path';
import { SluiceError, fromLocalError } from '../errors';
import type { QueueStore } from '../stores/queueStore';
import type { QueuedJob } from '../stores/queueRows';
import type { EventSink, TransferJournal, TransferReport, TransferRequest } from '../transfer/types';
import type { RemoteStat } from '../ssh/workerProtocol';
import { sidePath, syncOptionsOf, type SyncCopyOptions, type SyncStepsOptions } from './enqueue';

/**
 * Paths changed on DEST at once (mkdir, remove, rename): small requests, bounded by the channel windows only; a level
 * of 90 new folders went in two round trips at 64.
 */
const IN_FLIGHT = 256;

/** What a sync run needs of the engine (engine/engine.ts Engine has it): DEST's side on the server. */
export interface SyncEngine {
  mkdir(path: string): Promise<'created' | 'exists'>;
  /** Renames without replacing an existing target. */
  rename(from: string, to: string): Promise<void>;
  remove(path: string, recursive?: boolean): Promise<void>;
  /** Removes a path of the kind its listing gave, without a STAT first (engine.ts Engine.removeListed). */
  removeListed?(path: string, kind: 'file' | 'dir'): Promise<void>;
  stat(path: string): Promise<RemoteStat | null>;
  transfer(req: TransferRequest, o?: { signal?: AbortSignal; onEvent?: EventSink }): Promise<TransferReport>;
}

/** What a sync run does on DEST's side, remote (over the engine) or local (node:fs). */
export interface DestSide {
  remote: boolean;
  mkdir(p: string): Promise<void>;
  /** Removes a file, or an empty folder; `kind` as listed (without it a remote path is LSTATed first). */
  remove(p: string, kind?: 'file' | 'dir'): Promise<void>;
  /** Renames `from` to `to` (no existing `to` is replaced). */
  rename(from: string, to: string): Promise<void>;
  /** Size (bytes) and modification time (ms) of a file, null when missing. */
  stat(p: string): Promise<{ size: number; mtimeMs: number } | null>;
}

/** DEST's side of a batch: the server for an upload, this computer for a download. */
export function destSide(engine: SyncEngine, direction: QueuedJob['direction']): DestSide {
  if (direction === 'upload') {
    return {
      remote: true,
      mkdir: async (p) => {
        await engine.mkdir(p);
      },
      remove: (p, kind) => (kind && engine.removeListed ? engine.removeListed(p, kind) : engine.remove(p, false)),
      rename: (from, to) => engine.rename(from, to),
      stat: async (p) => {
        const st = await engine.stat(p);
        return st && { size: st.size, mtimeMs: st.mtimeMs };
      },
    };
  }
  const local = <T>(p: string, fn: () => Promise<T>, action?: string): Promise<T> =>
    fn().catch((e: unknown) => {
      throw fromLocalError(e, p, action);
    });
  return {
    remote: false,
    mkdir: (p) => local(p, () => fs.promises.mkdir(p).catch((e: NodeJS.ErrnoException) => exists(e, p))),
    remove: (p, kind) => local(p, () => (kind === 'dir' ? fs.promises.rmdir(p) : fs.promises.unlink(p)), 'remove'),
    rename: (from, to) => local(from, () => fs.promises.rename(from, to), 'rename'),
    stat: (p) =>
      fs.promises.stat(p).then(
        (st) => ({ size: st.size, mtimeMs: st.mtimeMs }),
        () => null,
      ),
  };
}

/** mkdir's EEXIST on a folder is no error. */
async function exists(e: NodeJS.ErrnoException, p: string): Promise<void> {
  if (e.code === 'EEXIST' && (await fs.promises.stat(p)).isDirectory()) return;
  throw e;
}

/** Runs `fn` over `items`, {@link IN_FLIGHT} at a time; stops taking more once `signal` fired. */
async function eachInFlight<T>(items: readonly T[], fn: (t: T) => Promise<void>, signal?: AbortSignal): Promise<void> {
  let i = 0;
  const worker = async (): Promise<void> => {
    while (i < items.length) {
      if (signal?.aborted) throw new SluiceError('ABORTED', 'sync interrupted');
      await fn(items[i++]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, items.length) }, worker));
}

/** Groups relative paths by their depth (number of names), shallowest first. */
function byDepth(rels: readonly string[]): string[][] {
  const levels = new Map<number, string[]>();
  for (const r of rels) {
    const d = r.split('/').length;
    levels.set(d, [...(levels.get(d) ?? []), r]);
  }
  return [...levels.keys()].sort((a, b) => a - b).map((d) => levels.get(d)!);
}

/** A batch's jobs split by their role: copies and the steps job (undefined when not among them). */
export function splitSyncJobs<T extends { job: QueuedJob }>(items: readonly T[]): { copies: T[]; steps?: T } {
  const copies: T[] = [];
  let steps: T | undefined;
  for (const it of items) {
    const s = syncOptionsOf(it.job);
    if (s?.role === 'steps') steps = it;
    else copies.push(it);
  }
  return { copies, steps };
}

/**
 * Creates `rels` below `root` on DEST, parents first (each level many at once); an existing folder is fine.
 * @param rootExists the root is known to exist: not made again
 */
async function makeFolders(
  side: DestSide,
  root: string,
  rels: readonly string[],
  o: { signal?: AbortSignal; rootExists?: boolean } = {},
): Promise<void> {
  const signal = o.signal;
  if (!o.rootExists) await side.mkdir(root);
  for (const level of byDepth(rels))
    await eachInFlight(level, (r) => side.mkdir(sidePath(side.remote, root, r)), signal);
}

/** The plan's folders on their way ({@link makeFolderChains}). */
export interface FolderChains {
  /** Settles once every folder is made (or one failed). */
  all: Promise<void>;
  /** The folder `rel` (relative, '' for the root) and those above it made: what a copy into it waits for. */
  ready(rel: string): Promise<void>;
}

/**
 * The plan's folders made on DEST, each as soon as its parent is (not level by level), so that a copy waits only for
 * its own folder's chain while the others are still being made, as `put -r` starts a folder's files before the
 * folders below it. Idempotent: a folder that exists is fine, so a run killed meanwhile loses nothing.
 * @param rootExists DEST's root was listed: not made again
 */
export function makeFolderChains(
  engine: SyncEngine,
  direction: QueuedJob['direction'],
  destRoot: string,
  folders: readonly string[],
  o: { signal?: AbortSignal; rootExists?: boolean },
): FolderChains {
  const side = destSide(engine, direction);
  const mkdir = (p: string): Promise<void> => {
    if (o.signal?.aborted) return Promise.reject(new SluiceError('ABORTED', 'sync interrupted'));
    return side.mkdir(p);
  };
  const root = o.rootExists ? Promise.resolve() : mkdir(destRoot);
  const made = new Map<string, Promise<void>>([['', root]]);
  for (const level of byDepth(folders)) {
    for (const rel of level) {
      const parent = made.get(rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '') ?? root;
      made.set(
        rel,
        parent.then(() => mkdir(sidePath(side.remote, destRoot, rel))),
      );
    }
  }
  // Each is awaited by its copies and `all` by the caller, maybe later: none is an unhandled rejection meanwhile.
  for (const p of made.values()) p.catch(() => undefined);
  const all = Promise.all(made.values()).then(() => undefined);
  all.catch(() => undefined);
  return {
    all,
    ready: (rel) => made.get(rel) ?? root,
  };
}

/** The folders above `rels` (relative), without the root. */
function parentsOf(rels: readonly string[]): string[] {
  const out = new Set<string>();
  for (const r of rels) for (let i = r.indexOf('/'); i > 0; i = r.indexOf('/', i + 1)) out.add(r.slice(0, i));
  return [...out];
}

/**
 * Moves a DEST path into the backup folder under its relative path (its folders made as needed); an earlier backup of
 * the same path is replaced.
 */
async function moveToBackup(side: DestSide, from: string, backupDir: string, rel: string): Promise<void> {
  const to = sidePath(side.remote, backupDir, rel);
  try {
    await side.rename(from, to);
  } catch (e) {
    if (await side.stat(to)) await side.remove(to);
    else await makeFolders(side, backupDir, parentsOf([rel]));
    await side.rename(from, to).catch((again: unknown) => {
      throw SluiceError.from(again ?? e);
    });
  }
}

/**
 * Before the copies: the steps job's folders (once), and with a backup folder the files the copies replace moved
 * there (a target that already has the source's size and time is the new copy, left alone).
 * @param copies the copy jobs this run sends
 * @param steps the batch's steps job (stored, current options)
 * @throws SluiceError from DEST (a folder that cannot be made, a backup move refused), ABORTED when `signal` fires
 */
export async function prepareSync(
  engine: SyncEngine,
  store: QueueStore,
  steps: QueuedJob,
  copies: readonly QueuedJob[],
  signal?: AbortSignal,
): Promise<void> {
  const s = syncOptionsOf(steps) as SyncStepsOptions;
  const side = destSide(engine, steps.direction);
  if (!s.foldersDone) {
    await makeFolders(side, s.destRoot, s.folders, { signal, rootExists: s.destRootExists });
    store.jobs.mergeOptions(steps.id, { sync: { foldersDone: true } });
  }
  if (s.backupDir === undefined) return;
  const backupDir = s.backupDir;
  const replaced = copies.filter((j) => (syncOptionsOf(j) as SyncCopyOptions).replaces);
  await eachInFlight(
    replaced,
    async (j) => {
      const c = syncOptionsOf(j) as SyncCopyOptions;
      const target = sidePath(side.remote, s.destRoot, c.rel);
      const st = await side.stat(target);
      if (!st || (st.size === c.size && Math.abs(st.mtimeMs - c.mtimeMs) < 1000)) return;
      await moveToBackup(side, target, backupDir, c.rel);
    },
    signal,
  );
}

/**
 * The engine request for a sync batch's copy jobs: their files as listed, each to its target below DEST's root;
 * replaced without asking (the plan decided), modification times kept. Add the journal of the copy claims.
 * @param id the transfer's id in events (the app's queue uses the batch id)
 * @param folders the plan's folders on their way: each file waits for its own folder ({@link makeFolderChains})
 */
export function syncTransferRequest(
  id: string,
  copies: readonly QueuedJob[],
  verify?: 'size' | 'sha256',
  folders?: FolderChains,
): TransferRequest {
  const first = copies[0];
  const remoteDest = first.direction === 'upload';
  const files = copies.map((j) => {
    const c = syncOptionsOf(j) as SyncCopyOptions;
    const name = remoteDest ? path.basename(j.source) : path.posix.basename(j.source);
    const f = { src: j.source, dst: sidePath(remoteDest, j.dest, name), size: c.size, mtimeMs: c.mtimeMs };
    return folders
      ? { ...f, ready: folders.ready(c.rel.includes('/') ? c.rel.slice(0, c.rel.lastIndexOf('/')) : '') }
      : f;
  });
  return {
    id,
    direction: remoteDest ? 'put' : 'get',
    sources: copies.map((j) => j.source),
    dest: first.dest,
    recursive: false,
    files,
    conflict: 'overwrite',
    preserveTimes: true,
    ...(verify ? { verify } : {}),
  };
}

/** How a run of the steps job ended. */
export type StepsOutcome =
  /** Every deletion (or move) done: the steps job is `done`. */
  | { state: 'done'; deleted: number; moved: number }
  /** Some copy of the batch is not done: nothing was deleted; the steps job waits for a later run. */
  | { state: 'waiting'; copiesLeft: number }
  /** Some deletions failed (the others done): each named with DEST's message. */
  | {
      state: 'failed';
      deleted: number;
      moved: number;
      failures: Array<{ path: string; code: string; message: string }>;
    };

/**
 * The deletions of a sync batch, once every copy job of its batch is `done` in the queue (call it after settling the
 * copies). Each path of the plan's deletions is removed (or moved under the backup folder), deepest first, many at
 * once per level; a path already gone counts as deleted (a run killed half-way and run again).
 * @param onDeleted told of each path deleted or moved (DEST's full path)
 * @throws SluiceError ABORTED when `signal` fires (the deletions done so far stay done)
 */
export async function runSyncSteps(
  engine: SyncEngine,
  store: QueueStore,
  steps: QueuedJob,
  o: { signal?: AbortSignal; onDeleted?: (p: string, moved: boolean) => void } = {},
): Promise<StepsOutcome> {
  const s = syncOptionsOf(steps) as SyncStepsOptions;
  const count = (sql: string): number =>
    (
      store.q
        .stmt(`SELECT COUNT(*) AS n FROM jobs WHERE batch_id = ? AND id != ? AND ${sql}`)
        .get(steps.batchId, steps.id) as {
        n: number;
      }
    ).n;
  // A batch whose rows were not all written (restBooking.ts) waits: the copies missing from it are not counted.
  const copiesLeft = s.booking ? Math.max(1, s.copies - count(`state = 'done'`)) : count(`state != 'done'`);
  if (copiesLeft > 0) return { state: 'waiting', copiesLeft };
  const side = destSide(engine, steps.direction);
  const failures: Array<{ path: string; code: string; message: string }> = [];
  let deleted = 0;
  let moved = 0;
  const levels = byDepth(s.deletions.map((d) => d.rel)).reverse();
  const kinds = new Map(s.deletions.map((d) => [d.rel, d.kind] as const));
  for (const level of levels) {
    await eachInFlight(
      level,
      async (rel) => {
        const p = sidePath(side.remote, s.destRoot, rel);
        const kind = kinds.get(rel) ?? 'file';
        try {
          if (s.backupDir !== undefined && kind === 'file') await moveToBackup(side, p, s.backupDir, rel);
          else await side.remove(p, kind);
          if (s.backupDir !== undefined && kind === 'file') moved++;
          else deleted++;
          o.onDeleted?.(p, s.backupDir !== undefined && kind === 'file');
        } catch (e) {
          const err = SluiceError.from(e);
          if (err.code === 'NO_SUCH_FILE' || (await side.stat(p).catch(() => undefined)) === null) return;
          failures.push({ path: p, code: err.code, message: err.message });
        }
      },
      o.signal,
    );
  }
  return failures.length ? { state: 'failed', deleted, moved, failures } : { state: 'done', deleted, moved };
}

/** How a runner's run of a sync batch ended: the copies' report, or a failure of the jobs still open. */
export type SyncRunEnd = { report: TransferReport } | { failure: { code: string; message: string } };

/**
 * A queue runner's run of claimed jobs of one sync batch (the app's queue: service/queueRun.ts): the folders, the
 * copies as one transfer with the run's journal, then, when the steps job is among them, its deletions. The runner
 * settles each copy job from the transfer's file events as they come (the copies must be `done` in the queue when
 * the transfer returns, for the deletions to run); a steps job whose deletions could not run (a copy not done) or
 * failed ends the run as a failure, which the runner gives to the jobs still open: the steps job.
 * @param jobIds the run's jobs (claimed, `running`), all of one sync batch
 * @param o.id the transfer's id in events (the batch id)
 */
export async function runSyncJobs(
  engine: SyncEngine,
  store: QueueStore,
  jobIds: readonly string[],
  o: { id: string; signal?: AbortSignal; onEvent?: EventSink; journal?: TransferJournal },
): Promise<SyncRunEnd> {
  const jobs = jobIds.map((id) => store.jobs.get(id)).filter((j): j is QueuedJob => j !== undefined);
  const { copies, steps } = splitSyncJobs(jobs.map((job) => ({ job })));
  const batchSteps = steps?.job ?? store.jobs.batch(jobs[0].batchId).find((j) => syncOptionsOf(j)?.role === 'steps');
  try {
    if (batchSteps)
      await prepareSync(
        engine,
        store,
        batchSteps,
        copies.map((c) => c.job),
        o.signal,
      );
    const report: TransferReport = copies.length
      ? await engine.transfer(
          {
            ...syncTransferRequest(
              o.id,
              copies.map((c) => c.job),
            ),
            ...(o.journal ? { journal: o.journal } : {}),
          },
          { signal: o.signal, onEvent: o.onEvent },
        )
      : { files: 0, skipped: 0, bytes: 0, failed: [], elapsedMs: 0, movedBytes: 0 };
    if (!steps) return { report };
    const end = await runSyncSteps(engine, store, steps.job, { signal: o.signal });
    if (end.state === 'done') return { report };
    if (end.state === 'waiting')
      return {
        failure: {
          code: 'INVALID_STATE',
          message: `nothing deleted: ${plural(end.copiesLeft, 'copy', 'copies')} not done`,
        },
      };
    const first = end.failures[0];
    return { failure: { code: first.code, message: `cannot delete ${first.path}: ${first.message}` } };
  } catch (e) {
    const err = SluiceError.from(e);
    return { failure: { code: err.code, message: err.message } };
  }
}
