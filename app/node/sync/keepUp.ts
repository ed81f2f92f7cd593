/**
 * Keep remote up to date (#27): the local folder watched (watch.ts, chokidar: a file is taken once its size stopped
 * changing) and each change applied on the server as it settles — a file written is uploaded (times kept), a folder
 * made is made, a path removed is removed there only with `delete`. Shared by `sluice sync --watch`
 * (cli/syncWatch.ts) and the app's keep-up (service/keepUp.ts), which each bring the server side and say what happened
 * in their own words.
 *
 * Renames: chokidar reports a local rename as `unlink` of the old name, then (once settled) `add` of the new one. With
 * `delete`, a removal waits {@link PAIR_MS} for an `add` of a file with the same size, time and inode; a pair is one
 * remote rename (no bytes sent) when the server's old file is still the copy we know (same size, time within the
 * modify window) and the new name is free there; otherwise it is an upload and a removal. A folder renamed is paired
 * the same way (its files as they were against the new folder's). Without `delete` nothing is ever removed or renamed
 * away on the server: a rename is an upload under the new name, and the old name stays (as WinSCP's keep-up without
 * "Delete files" and `rclone copy` do).
 *
 * A lost connection: the caller's `reconnect` brings the server back (the CLI's retry schedule, the app's session),
 * then a re-sync (both sides listed and planned as `sluice sync` plans) catches up on what changed meanwhile.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isTransient } from '../../common/retry';
import { SluiceError } from '../errors';
import { compileFilters, type FilterRule, type PathFilter } from './filters';
import type { Listing } from './listing';
import { listLocalTree } from './localListing';
import { listRemoteTree, type RemoteLister } from './remoteListing';
import { planSync } from './plan';
import type { SyncEngine } from './runBatch';
import { sendFiles, type FileToSend } from './keepUpSend';
import { isTempName } from './twoWay';
import { SETTLE_MS, watchFolder, type SeenFile } from './watch';

/** How long events are gathered before they are applied (ms); a file settles first (watch.ts SETTLE_MS). */
const GATHER_MS = 100;
/** How long a removal waits for the `add` that would make it a rename (ms): the new name settles first. */
export const PAIR_MS = SETTLE_MS + 1000;
/** Times on the server may be cut to whole seconds (SFTP v3 times). */
const SERVER_TIME_PRECISION_MS = 1000;

/** The server side as keep-up uses it: engine/engine.ts's Engine and its listerOf. */
export interface KeepUpTarget {
  engine: SyncEngine;
  lister: RemoteLister;
}

/** What keep-up did, for the caller's words (paths relative to both roots, `/`-separated, untrusted). */
export type KeepUpEvent =
  | { type: 'watching' }
  | { type: 'created'; path: string }
  | { type: 'uploaded'; path: string; bytes: number }
  | { type: 'renamed'; from: string; path: string; dir: boolean }
  | { type: 'deleted'; path: string; dir: boolean }
  | { type: 'kept'; path: string }
  | { type: 'failed'; op: 'upload' | 'create' | 'rename' | 'delete'; path: string; message: string }
  | { type: 'lost'; message: string }
  | { type: 'reconnected' };

export interface KeepUpInput {
  /** Absolute; the remote one with `~` expanded. */
  localRoot: string;
  remoteRoot: string;
  rules: readonly FilterRule[];
  delete?: boolean;
  sizeOnly?: boolean;
  modifyWindow?: number;
  signal: AbortSignal;
  /** Whether to re-sync first (default true: the CLI's first sync ran before; the app's "sync first"). */
  catchUp?: boolean;
  /** The server side now (after a reconnect, the new one). @throws when there is none (the watch ends) */
  target(): Promise<KeepUpTarget>;
  /** Brings the server back after `lost`; resolves when target() works again. @throws when it cannot (watch ends) */
  reconnect(lost: SluiceError): Promise<void>;
  onEvent(e: KeepUpEvent): void;
}

type Change =
  { kind: 'write' } | { kind: 'remove'; due: number; dir: boolean } | { kind: 'rename'; from: string; seen: SeenFile };

const byPath = ([a]: [string, unknown], [b]: [string, unknown]): number => (a < b ? -1 : a > b ? 1 : 0);

/** The same file under another name: size and time equal, the inode too where both are known. */
function sameFile(a: SeenFile, b: SeenFile): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && (a.ino === 0 || b.ino === 0 || a.ino === b.ino);
}

/** The running keep-up: what is known here, what is pending, the one worker applying it. */
class KeepUp {
  private readonly pending = new Map<string, Change>();
  private readonly working = new Set<string>();
  /** Files as last seen here (ino 0: from a listing); removed ones stay in `gone` until their removal is applied. */
  private readonly known = new Map<string, SeenFile>();
  private readonly gone = new Map<string, SeenFile>();
  /** Files a folder rename already put on the server: their `add` is not uploaded again. */
  private readonly arrived = new Map<string, SeenFile>();
  /** Folders removed here (pending or done): what was in them goes with them, not one removal per file. */
  private readonly removedDirs = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private readonly filter: PathFilter;
  private failed: ((e: unknown) => void) | undefined;

  constructor(private readonly input: KeepUpInput) {
    this.filter = compileFilters(input.rules);
  }

  /** Paths changed and not yet applied (or being applied), sorted. */
  pendingPaths(): string[] {
    return [...new Set([...this.working, ...this.pending.keys()])].sort();
  }

  /** Records one watcher event (a path below the root) and schedules the worker. */
  note(event: string, full: string, seen?: SeenFile): void {
    const rel = path.relative(this.input.localRoot, full).split(path.sep).join('/');
    if (rel === '' || rel.startsWith('..') || isTempName(rel)) return;
    const dir = event === 'addDir' || event === 'unlinkDir';
    if (!this.filter.includes(rel, dir)) return;
    if (event === 'unlink' || event === 'unlinkDir') this.noteRemoved(rel, dir);
    else if (seen && !dir) this.noteFile(rel, seen, event === 'add');
    else {
      this.removedDirs.delete(rel);
      this.pending.set(rel, { kind: 'write' });
    }
    this.schedule(GATHER_MS);
  }

  private noteRemoved(rel: string, dir: boolean): void {
    const was = this.known.get(rel);
    const under = dir ? [...this.known].filter(([p]) => p.startsWith(`${rel}/`)) : [];
    for (const [p, w] of was ? [[rel, was] as const, ...under] : under) {
      this.gone.set(p, w);
      this.known.delete(p);
    }
    if (this.underRemovedDir(rel)) return;
    if (dir) this.removedDirs.add(rel);
    const wait = this.input.delete ? PAIR_MS : 0;
    this.pending.set(rel, { kind: 'remove', due: Date.now() + wait, dir });
  }

  /** Whether a folder above `rel` was removed here (its removal covers `rel`). */
  private underRemovedDir(rel: string): boolean {
    for (let at = rel.lastIndexOf('/'); at > 0; at = rel.lastIndexOf('/', at - 1))
      if (this.removedDirs.has(rel.slice(0, at))) return true;
    return false;
  }

  /** A file added or changed: uploaded, or the second half of a rename, or already there by a folder's rename. */
  private noteFile(rel: string, seen: SeenFile, added: boolean): void {
    this.known.set(rel, seen);
    const there = this.arrived.get(rel);
    this.arrived.delete(rel);
    if (there && sameFile(there, seen)) return;
    const from = this.input.delete && added ? this.pairOf(seen) : undefined;
    if (from) {
      this.pending.delete(from);
      this.gone.delete(from);
      this.pending.set(rel, { kind: 'rename', from, seen });
    } else this.pending.set(rel, { kind: 'write' });
  }

  /** A pending file removal of the same file, if any. */
  private pairOf(seen: SeenFile): string | undefined {
    for (const [rel, c] of this.pending) {
      const was = this.gone.get(rel);
      if (c.kind === 'remove' && !c.dir && was && sameFile(was, seen)) return rel;
    }
    return undefined;
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.kick(), ms);
  }

  /** Runs the worker after the one running now; a fatal failure (no reconnect) ends the watch. */
  kick(): void {
    this.running = this.running.then(() => this.drain()).catch((e: unknown) => this.failed?.(e));
  }

  /** Resolves never; rejects when the watch cannot go on. */
  failure(): Promise<never> {
    return new Promise((_, reject) => (this.failed = reject));
  }

  private remote(rel: string): string {
    return path.posix.join(this.input.remoteRoot, rel);
  }

  /** The changes due now, in path order (a folder before what is in it); the earliest one not due is rescheduled. */
  private takeDue(): Array<[string, Change]> {
    const now = Date.now();
    const due = [...this.pending].filter(([, c]) => c.kind !== 'remove' || c.due <= now).sort(byPath);
    for (const [rel] of due) this.pending.delete(rel);
    let next = Infinity;
    for (const c of this.pending.values()) next = Math.min(next, c.kind === 'remove' ? c.due : now);
    if (next !== Infinity) this.schedule(Math.max(GATHER_MS, next - now));
    // A removal inside a folder removed in the same batch goes with the folder.
    return due.filter(([rel, c]) => c.kind !== 'remove' || !this.underRemovedDir(rel));
  }

  /** Applies what is due; reconnects on a lost connection. */
  private async drain(): Promise<void> {
    for (let batch = this.takeDue(); batch.length && !this.input.signal.aborted; batch = this.takeDue()) {
      for (const [rel] of batch) this.working.add(rel);
      try {
        const target = await this.input.target();
        const writes: FileToSend[] = [];
        for (const [rel, change] of batch) {
          const write = await this.apply(target, rel, change);
          if (write) writes.push(write);
          else this.working.delete(rel);
        }
        await this.send(target, writes);
      } catch (e) {
        const err = SluiceError.from(e);
        if (!isTransient(err.code)) throw err;
        await this.reconnect(err);
      } finally {
        this.working.clear();
      }
    }
  }

  /**
   * One change, as the local folder has it now; a file written is returned, to be sent with the batch's others.
   * @throws transient errors (the caller reconnects)
   */
  private async apply(t: KeepUpTarget, rel: string, change: Change): Promise<FileToSend | undefined> {
    const full = path.join(this.input.localRoot, ...rel.split('/'));
    const st = await fs.promises.lstat(full).catch(() => null);
    let op: Extract<KeepUpEvent, { type: 'failed' }>['op'] = 'upload';
    try {
      if (st?.isDirectory()) {
        op = 'rename';
        if (await this.folderRenamed(t, rel)) return;
        op = 'create';
        await this.mkdirs(t, rel, true);
      } else if (st?.isFile()) {
        op = change.kind === 'rename' ? 'rename' : 'upload';
        if (change.kind === 'rename' && (await this.renamed(t, change.from, rel, change.seen))) return;
        op = 'upload';
        const write = { rel, full, size: st.size, mtimeMs: Math.trunc(st.mtimeMs) };
        if (change.kind !== 'rename') return write;
        // The old name goes only once the new one arrived.
        if (await this.send(t, [write])) await this.removeRemote(t, change.from);
      } else if (!st && change.kind === 'remove') {
        op = 'delete';
        await this.removeRemote(t, rel);
      }
    } catch (e) {
      const err = SluiceError.from(e);
      if (isTransient(err.code) || err.code === 'ABORTED') throw err;
      this.input.onEvent({ type: 'failed', op, path: rel, message: err.message });
    }
    return undefined;
  }

  /** Makes `rel` (when `self`) and its parents on the server, but those in `ensured` (which gets them). */
  private async mkdirs(t: KeepUpTarget, rel: string, self: boolean, ensured = new Set<string>()): Promise<void> {
    const names = rel.split('/');
    for (let i = 1; i <= names.length - (self ? 0 : 1); i++) {
      const dir = names.slice(0, i).join('/');
      if (ensured.has(dir)) continue;
      ensured.add(dir);
      const made = await t.engine.mkdir(this.remote(dir));
      if (made === 'created') this.input.onEvent({ type: 'created', path: dir });
    }
  }

  /**
   * Uploads files written (their folders made first) as one transfer. @returns whether every one arrived
   * @throws transient errors, ABORTED
   */
  private async send(t: KeepUpTarget, writes: readonly FileToSend[]): Promise<boolean> {
    const ensured = new Set<string>();
    let ok = true;
    const failed = (f: FileToSend, message: string): void => {
      ok = false;
      this.input.onEvent({ type: 'failed', op: 'upload', path: f.rel, message });
    };
    try {
      for (const w of writes) await this.mkdirs(t, w.rel, false, ensured);
      await sendFiles(t.engine, writes, {
        remoteRoot: this.input.remoteRoot,
        signal: this.input.signal,
        onDone: (f) => this.input.onEvent({ type: 'uploaded', path: f.rel, bytes: f.size }),
        onFailed: failed,
      });
    } catch (e) {
      const err = SluiceError.from(e);
      if (isTransient(err.code) || err.code === 'ABORTED') throw err;
      for (const w of writes) failed(w, err.message);
    }
    return ok;
  }

  /** Whether a server file is the copy of `seen` (size equal, time within the modify window). */
  private isCopyOf(st: { size: number; mtimeMs: number } | null, seen: SeenFile): boolean {
    if (!st || st.size !== seen.size) return false;
    return Math.abs(st.mtimeMs - seen.mtimeMs) < SERVER_TIME_PRECISION_MS + (this.input.modifyWindow ?? 0);
  }

  /** A file's rename done on the server. @returns false when it cannot be (old copy not ours, new name taken) */
  private async renamed(t: KeepUpTarget, from: string, rel: string, seen: SeenFile): Promise<boolean> {
    const [old, taken] = await Promise.all([t.engine.stat(this.remote(from)), t.engine.stat(this.remote(rel))]);
    if (old?.type !== 'file' || taken || !this.isCopyOf(old, seen)) return false;
    await this.mkdirs(t, rel, false);
    await t.engine.rename(this.remote(from), this.remote(rel));
    this.input.onEvent({ type: 'renamed', from, path: rel, dir: false });
    return true;
  }

  /**
   * A folder that appeared while a removed folder's removal waits: when its files are the removed one's (names, sizes,
   * times), and the server has the old folder and not the new, it is renamed there.
   */
  private async folderRenamed(t: KeepUpTarget, rel: string): Promise<boolean> {
    const removedDirs = [...this.pending].filter(([, c]) => c.kind === 'remove' && c.dir).map(([p]) => p);
    if (!this.input.delete || !removedDirs.length) return false;
    const now = await listLocalTree(path.join(this.input.localRoot, ...rel.split('/')), {
      filter: this.filter,
      signal: this.input.signal,
      maxEntries: 10_000,
    });
    if (!now.complete) return false;
    const files = [...now.entries].filter(([, e]) => e.kind === 'file');
    for (const from of removedDirs) {
      const was = [...this.gone].filter(([p]) => p.startsWith(`${from}/`));
      const same =
        was.length === files.length &&
        files.every(([p, e]) => {
          const w = this.gone.get(`${from}/${p}`);
          return w !== undefined && w.size === e.size && w.mtimeMs === e.mtimeMs;
        });
      if (!same || !files.length) continue;
      const [old, taken] = await Promise.all([t.engine.stat(this.remote(from)), t.engine.stat(this.remote(rel))]);
      if (old?.type !== 'dir' || taken) return false;
      await this.mkdirs(t, rel, false);
      await t.engine.rename(this.remote(from), this.remote(rel));
      for (const [p] of this.pending) if (p === from || p.startsWith(`${from}/`)) this.pending.delete(p);
      for (const [p, w] of was) {
        this.gone.delete(p);
        this.arrived.set(`${rel}${p.slice(from.length)}`, w);
      }
      this.input.onEvent({ type: 'renamed', from, path: rel, dir: true });
      return true;
    }
    return false;
  }

  private async removeRemote(t: KeepUpTarget, rel: string): Promise<void> {
    this.gone.delete(rel);
    if (!this.input.delete) {
      this.input.onEvent({ type: 'kept', path: rel });
      return;
    }
    const st = await t.engine.stat(this.remote(rel));
    if (!st) return;
    await t.engine.remove(this.remote(rel), st.type === 'dir');
    this.input.onEvent({ type: 'deleted', path: rel, dir: st.type === 'dir' });
  }

  private async reconnect(lost: SluiceError): Promise<void> {
    this.input.onEvent({ type: 'lost', message: lost.message });
    await this.input.reconnect(lost);
    this.input.onEvent({ type: 'reconnected' });
    await this.catchUp();
  }

  /** Lists the local folder and learns its files (a rename is paired against them). */
  async learnLocal(): Promise<Listing> {
    const local = await listLocalTree(this.input.localRoot, { filter: this.filter, signal: this.input.signal });
    for (const [rel, e] of local.entries)
      if (e.kind === 'file' && !this.known.has(rel)) this.known.set(rel, { size: e.size, mtimeMs: e.mtimeMs, ino: 0 });
    return local;
  }

  /** A re-sync: both sides listed and planned as `sluice sync` does, each difference applied as a change. */
  async catchUp(): Promise<void> {
    const limits = { filter: this.filter, signal: this.input.signal };
    const target = await this.input.target();
    const [local, remote] = await Promise.all([
      this.learnLocal(),
      listRemoteTree(target.lister, this.input.remoteRoot, { ...limits, concurrency: 64 }),
    ]);
    const plan = planSync(local, remote, {
      delete: this.input.delete,
      sizeOnly: this.input.sizeOnly,
      modifyWindowMs: this.input.modifyWindow,
    });
    for (const it of plan.items) {
      if (isTempName(it.path) || this.pending.has(it.path)) continue;
      if (it.action === 'create' || it.action === 'update') this.pending.set(it.path, { kind: 'write' });
      else if (it.action === 'delete') this.pending.set(it.path, { kind: 'remove', due: 0, dir: it.kind === 'dir' });
    }
  }
}

/** A keep-up under way. */
export interface KeepUpRun {
  /** Resolves once the folder is watched and the first catch-up is planned (changes from then on are seen). */
  ready: Promise<void>;
  /** Rejects when it ends: SluiceError ABORTED when the signal fired, else why it could not go on. */
  done: Promise<never>;
  /** Paths changed and not yet applied. */
  pendingPaths(): string[];
}

/**
 * Starts keeping `remoteRoot` up to date with `localRoot` until `input.signal` fires (see the module comment).
 * @throws nothing: failures end `done` (SluiceError LOCAL_IO when the watcher fails, the connection's error when
 *   `reconnect` gave up, ABORTED when stopped)
 */
export function startKeepUp(input: KeepUpInput): KeepUpRun {
  const k = new KeepUp(input);
  let watchError: (e: Error) => void = () => undefined;
  const watcher = watchFolder(
    input.localRoot,
    (event, p, seen) => k.note(event, p, seen),
    (e) => watchError(e),
  );
  const broken = new Promise<never>(
    (_, reject) =>
      (watchError = (e) => reject(new SluiceError('LOCAL_IO', `watching ${input.localRoot}: ${e.message}`))),
  );
  const stopped = new Promise<never>((_, reject) => {
    const stop = (): void => reject(new SluiceError('ABORTED', 'watch stopped'));
    if (input.signal.aborted) stop();
    input.signal.addEventListener('abort', stop, { once: true });
  });
  const ready = (async () => {
    await Promise.race([watcher.ready, stopped]);
    // What changed while the first sync ran (or everything, for the app's "sync first"): caught up once the watcher
    // sees every later change.
    await Promise.race([input.catchUp === false ? k.learnLocal() : k.catchUp(), stopped]);
    k.kick();
    input.onEvent({ type: 'watching' });
  })();
  const done = (async (): Promise<never> => {
    try {
      await ready;
      return await Promise.race([stopped, k.failure(), broken]);
    } finally {
      await watcher.close();
    }
  })();
  ready.catch(() => undefined);
  done.catch(() => undefined);
  return { ready, done, pendingPaths: () => k.pendingPaths() };
}
