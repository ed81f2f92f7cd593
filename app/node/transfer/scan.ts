/**
 * Resolves a job's sources against its destination with `cp` semantics and walks folders, handing each file to the
 * job as it is found (the transfer starts while the scan goes on). Remote paths starting with `~` are resolved
 * through SSH_FXP_REALPATH of the login folder; special files (FIFOs, sockets, devices) are reported and skipped
 * (refused as a source); symlinks follow the policy of {@link TransferRequest.followSymlinks}.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SluiceError, fromLocalError, isInterruption } from '../errors';
import type { Session } from '../ssh/session';
import type { RemoteEntry, RemoteStat } from '../ssh/workerProtocol';
import { FolderNames, localNameRules, type LocalNameRules } from './localNames';
import { safeLocalJoin } from './safeNames';
import type { TransferRequest } from './types';

/** One file to move: `src` on the source side, `dst` its final name on the other side. */
export interface FileItem {
  src: string;
  dst: string;
  size: number;
  mode: number;
  /** Source modification time, ms since epoch (shown when the target exists). */
  mtimeMs: number;
}

/** Where the scan reports what it finds; `file` may wait (backpressure while the queue is full). */
export interface ScanSink {
  file(item: FileItem): Promise<void>;
  fail(item: Pick<FileItem, 'src' | 'dst'>, e: SluiceError): void;
  /** A source that is not copied, and why (a special file, a symlink outside the tree). */
  skip(item: Pick<FileItem, 'src' | 'dst'>, reason: string): void;
  log(level: 'info' | 'warn', message: string): void;
  /** True once the job was interrupted: the walk stops. */
  stopped(): boolean;
  /** Fires when the job is interrupted: a listing under way is cancelled at once. */
  signal?: AbortSignal;
}

const WALK_CONCURRENCY = 16;

/** Runs `fn` over items with at most `limit` at a time. */
async function eachLimited<T>(items: T[], limit: number, fn: (t: T) => Promise<void>): Promise<void> {
  let i = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (i < items.length) await fn(items[i++]);
  });
  await Promise.all(workers);
}

export function remoteJoin(dir: string, name: string): string {
  if (dir === '' || dir === '.') return name;
  return dir.endsWith('/') ? dir + name : `${dir}/${name}`;
}

function remoteBase(p: string): string {
  return path.posix.basename(p.replace(/\/+$/, '')) || p;
}

/**
 * Resolves `~` and `~/…` (and the empty path) against the login folder: SSH_FXP_REALPATH of "." (servers differ on
 * what they make of a literal `~`; only the app expanded it before). Other paths are returned as they are.
 */
export async function expandRemoteHome(session: Pick<Session, 'realpath'>, p: string): Promise<string> {
  if (p !== '' && p !== '~' && !p.startsWith('~/')) return p;
  const home = await session.realpath('.');
  const rest = p.startsWith('~/') ? p.slice(2) : '';
  return rest ? remoteJoin(home, rest) : home;
}

/** What kind of special file `st` is, for the message that skips it. */
function specialKind(st: fs.Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** True when `p` is `root` or lies below it (both absolute, resolved). */
function inside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

interface LocalWalk {
  session: Session;
  sink: ScanSink;
  follow: boolean;
  /** Real path of the folder being copied: a symlink is copied by default only when its target lies inside it. */
  treeRoot: string;
  /** DEST as the user named it: it may be a link; a folder link below it on the server is not written through. */
  destRoot: string;
  /** `-K` ({@link TransferRequest.keepDirlinks}): write into a folder symlink inside the destination. */
  keepDirlinks: boolean;
}

/**
 * Whether a put may write into remote folder `dir`, which SSH_FXP_MKDIR found existing: not when it is a symlink
 * (SSH_FXP_LSTAT) below the destination the user named, unless `-K` asks for it.
 * @returns why not, or undefined
 */
async function linkedRemoteFolder(w: LocalWalk, dir: string): Promise<string | undefined> {
  if (w.keepDirlinks || dir === w.destRoot) return undefined;
  const st = await w.session.call('stat', { path: dir, follow: false });
  if (st?.type !== 'symlink') return undefined;
  const to = await w.session.call('readlink', { path: dir }).catch(() => '?');
  return `${dir}: folder not written, it is a symlink to ${to} inside the destination (-K writes into it)`;
}

/** Decides what one entry of a local folder is; null when it is reported and skipped. */
async function localEntry(w: LocalWalk, src: string, dst: string, isLink: boolean): Promise<fs.Stats | null> {
  let st: fs.Stats;
  try {
    st = await fs.promises.stat(src);
  } catch (err) {
    if (isLink) { w.sink.skip({ src, dst }, 'a symlink whose target does not exist'); return null; }
    w.sink.fail({ src, dst }, fromLocalError(err, src));
    return null;
  }
  if (isLink && !w.follow) {
    const target = await fs.promises.realpath(src).catch(() => src);
    if (st.isDirectory()) { w.sink.skip({ src, dst }, 'a folder symlink (use -L to follow)'); return null; }
    if (!inside(w.treeRoot, target)) { w.sink.skip({ src, dst }, `a symlink to ${target}, outside the folder being copied (use -L to follow)`); return null; }
  }
  if (!st.isFile() && !st.isDirectory()) { w.sink.skip({ src, dst }, `${specialKind(st)}, not copied`); return null; }
  return st;
}

/** @param ancestors real paths of the folders above `localDir` (a followed folder symlink must not loop) */
async function walkPut(w: LocalWalk, localDir: string, remoteDir: string, ancestors: ReadonlySet<string>): Promise<void> {
  const made = await w.session.call('mkdir', { path: remoteDir });
  const linked = made === 'exists' ? await linkedRemoteFolder(w, remoteDir) : undefined;
  if (linked) { w.sink.fail({ src: localDir, dst: remoteDir }, new SluiceError('REMOTE_FAILURE', linked)); return; }
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(localDir, { withFileTypes: true });
  } catch (e) {
    w.sink.fail({ src: localDir, dst: remoteDir }, fromLocalError(e, localDir));
    return;
  }
  const dirs: Array<[string, string, ReadonlySet<string>]> = [];
  for (const e of entries) {
    if (w.sink.stopped()) return;
    const src = path.join(localDir, e.name);
    const dst = remoteJoin(remoteDir, e.name);
    const st = await localEntry(w, src, dst, e.isSymbolicLink());
    if (!st) continue;
    if (st.isDirectory()) {
      const real = w.follow ? await fs.promises.realpath(src).catch(() => src) : src;
      if (ancestors.has(real)) { w.sink.skip({ src, dst }, 'a folder symlink to a folder above it (a loop)'); continue; }
      dirs.push([src, dst, w.follow ? new Set([...ancestors, real]) : ancestors]);
    } else await w.sink.file({ src, dst, size: st.size, mode: st.mode & 0o777, mtimeMs: st.mtimeMs });
  }
  await eachLimited(dirs, WALK_CONCURRENCY, ([s, d, a]) => walkPut(w, s, d, a).catch((err) => w.sink.fail({ src: s, dst: d }, SluiceError.from(err))));
}

/**
 * SSH_FXP_STAT of a remote symlink met in a walk. A server answering anything but NO_SUCH_FILE (FAILURE for a loop,
 * BAD_MESSAGE for an over-long target on OpenSSH, PERMISSION_DENIED) fails that entry alone: undefined, reported.
 * A lost connection or an abort still ends the walk (thrown).
 * @returns the target's attributes, null when the target does not exist, undefined when the entry was failed
 */
async function statLink(session: Session, sink: ScanSink, src: string, dst: string): Promise<RemoteStat | null | undefined> {
  try {
    return await session.stat(src);
  } catch (err) {
    const e = SluiceError.from(err);
    if (isInterruption(e.code)) throw e;
    sink.fail({ src, dst }, new SluiceError(e.code, `cannot follow the symlink: ${e.message}`, { cause: e }));
    return undefined;
  }
}

/** A get's folder walk: the depth limit and, per folder, the real paths of the folders above it. */
interface RemoteWalk {
  session: Session;
  sink: ScanSink;
  /** Folders deeper than this below the source are failed, not walked ({@link TransferRequest.maxDepth}). */
  maxDepth: number;
  /** What the destination can hold: names refused or colliding there are failed, not copied. */
  names: LocalNameRules;
  /** `-L`: every symlink followed ({@link TransferRequest.followSymlinks}); else put's policy, {@link remoteLink}. */
  follow: boolean;
  /** SSH_FXP_REALPATH of the source folder, set by its walk (depth 0): a link is copied only when it stays inside. */
  treeRoot?: string;
  /** DEST as the user named it (resolved): it may be a link; a link below it is not written through by default. */
  destRoot: string;
  /** `-K` ({@link TransferRequest.keepDirlinks}): write into a folder symlink inside the destination. */
  keepDirlinks: boolean;
}

/**
 * Whether a get may write into local folder `dir`: not when it is a symlink below the destination the user named
 * (`get -r` would write wherever it points; a lexical check on names cannot see it), unless `-K` asks for it.
 * @returns why not, or undefined
 */
async function linkedLocalFolder(w: RemoteWalk, dir: string): Promise<string | undefined> {
  if (w.keepDirlinks || dir === w.destRoot) return undefined;
  const st = await fs.promises.lstat(dir).catch(() => null);
  if (!st?.isSymbolicLink()) return undefined;
  const to = await fs.promises.readlink(dir).catch(() => '?');
  return `${dir}: folder not written, it is a symlink to ${to} inside the destination (-K writes into it)`;
}

/**
 * A remote symlink met in a get's walk, under the one policy of both directions (scan.ts localEntry for a put):
 * without `-L` a folder link is skipped, and a file link is copied only when its SSH_FXP_REALPATH lies inside the
 * folder being copied (a link to /etc/passwd is not downloaded); with `-L` every link is followed.
 * @returns the entry as its target, or undefined when it was reported (failed or skipped)
 */
async function remoteLink(w: RemoteWalk, e: RemoteEntry, src: string, dst: string): Promise<RemoteEntry | undefined> {
  const target = await statLink(w.session, w.sink, src, dst);
  if (target === undefined) return undefined;
  if (!target) { w.sink.skip({ src, dst }, 'a symlink whose target does not exist'); return undefined; }
  const st = { ...e, ...target };
  if (w.follow) return st;
  if (st.type === 'dir') { w.sink.skip({ src, dst }, 'a folder symlink (use -L to follow)'); return undefined; }
  const real = await w.session.realpath(src).catch(() => undefined);
  if (real === undefined || w.treeRoot === undefined || !remoteInside(w.treeRoot, real)) {
    const to = real ?? 'a target the server does not resolve';
    w.sink.skip({ src, dst }, `a symlink to ${to}, outside the folder being copied (use -L to follow)`);
    return undefined;
  }
  return st;
}

/** True when remote path `p` is `root` or lies below it (both absolute, as SSH_FXP_REALPATH returns them). */
function remoteInside(root: string, p: string): boolean {
  const rel = path.posix.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.posix.isAbsolute(rel));
}

/** OpenSSH's sftp refuses folders nested deeper than this below the source (sftp-client.c MAX_DIR_DEPTH). */
export const DEFAULT_MAX_DEPTH = 64;

/**
 * What a folder's walk keeps while its names arrive: the folders to walk next, the names seen (listed twice), the
 * names the destination already holds under another spelling.
 */
interface FolderWalk {
  dirs: Array<[string, string]>;
  seen: Set<string>;
  names: FolderNames;
}

/** Decides one batch of a remote folder's names: files to the sink as they come, folders kept for later. */
async function walkNames(w: RemoteWalk, remoteDir: string, localDir: string, names: RemoteEntry[],
  out: FolderWalk): Promise<void> {
  const { sink } = w;
  for (const e of names) {
    if (sink.stopped()) return;
    const src = remoteJoin(remoteDir, e.name);
    // A server can list a name twice (with different sizes): copied once, as first listed, the repeat reported.
    if (out.seen.has(e.name)) {
      sink.skip({ src, dst: localDir }, 'listed twice by the server in one listing, copied once');
      continue;
    }
    out.seen.add(e.name);
    const reason = out.names.refusal(e.name);
    if (reason) {
      sink.fail({ src, dst: localDir }, new SluiceError('UNSAFE_NAME', `refused remote name ${JSON.stringify(e.name)} in ${remoteDir}: ${reason}`));
      continue;
    }
    const dst = safeLocalJoin(localDir, [e.name]);
    const st = e.type === 'symlink' ? await remoteLink(w, e, src, dst) : e;
    if (!st) continue;
    if (st.type === 'dir') out.dirs.push([src, dst]);
    else if (st.type === 'file') await sink.file({ src, dst, size: st.size, mode: st.mode & 0o777, mtimeMs: st.mtimeMs });
    else sink.skip({ src, dst }, 'not a regular file, not copied');
  }
}

/**
 * Walks one remote folder. Its names are handled as each READDIR answer brings them (the first files move while a
 * large folder is still listed; the server is read on only as the walk keeps up), and the listing is cancelled at
 * once when the job stops. A server can list a folder inside itself (directly, or through a link it reports as a
 * folder): the SSH_FXP_REALPATH of each folder, asked alongside its listing, is checked against those above it
 * before any of its names is used, and the depth is bounded, so that a hostile tree fails one entry instead of
 * nesting local folders until ENAMETOOLONG.
 * @param ancestors real paths of the folders above `remoteDir`
 * @param depth folders between the source and `remoteDir` (0 for the source)
 */
async function walkGet(w: RemoteWalk, remoteDir: string, localDir: string, ancestors: ReadonlySet<string>,
  depth: number): Promise<void> {
  const { session, sink } = w;
  if (depth > w.maxDepth) {
    sink.fail({ src: remoteDir, dst: localDir }, new SluiceError('REMOTE_FAILURE',
      `${remoteDir}: folder not copied, it is nested deeper than ${w.maxDepth} levels below the source (--max-depth)`));
    return;
  }
  // The folder's real path, and its local folder made unless it is a loop or a symlink inside the destination.
  const ready = session.realpath(remoteDir).catch(() => remoteDir).then(async (real) => {
    if (ancestors.has(real)) {
      return { real, refused: new SluiceError('REMOTE_FAILURE',
        `${remoteDir}: folder not copied, it is ${real} again (the server lists a folder inside itself: a loop)`) };
    }
    const linked = await linkedLocalFolder(w, localDir);
    if (linked) return { real, refused: new SluiceError('LOCAL_IO', linked) };
    await fs.promises.mkdir(localDir, { recursive: true })
      .catch((e: unknown) => { throw fromLocalError(e, localDir); });
    if (depth === 0) w.treeRoot = real;
    return { real, refused: undefined };
  });
  ready.catch(() => undefined);
  const stop = new AbortController();
  const onStop = () => stop.abort();
  sink.signal?.addEventListener('abort', onStop, { once: true });
  const out: FolderWalk = { dirs: [], seen: new Set(), names: new FolderNames(w.names) };
  try {
    await session.listEach(remoteDir, async (names) => {
      if ((await ready).refused || sink.stopped()) { stop.abort(); return; }
      await walkNames(w, remoteDir, localDir, names, out);
    }, stop.signal);
  } catch (e) {
    // Cancelled here (a loop, a linked folder, the job stopped): not an error of the listing.
    if (!stop.signal.aborted) throw e;
  } finally {
    sink.signal?.removeEventListener('abort', onStop);
  }
  const { real, refused } = await ready;
  if (refused) {
    sink.fail({ src: remoteDir, dst: localDir }, refused);
    return;
  }
  if (sink.stopped()) return;
  const below = new Set([...ancestors, real]);
  await eachLimited(out.dirs, WALK_CONCURRENCY,
    ([s, d]) => walkGet(w, s, d, below, depth + 1).catch((err) => sink.fail({ src: s, dst: d }, SluiceError.from(err))));
}

/**
 * Whether `dest` is a folder the sources go into: as an earlier try of the run decided, else as an earlier run of the
 * job recorded in its journal, else as it is now (cp semantics), recorded for the next tries and runs.
 */
function decideDest(req: TransferRequest, isDirNow: boolean): boolean {
  const earlier = req.destDecision?.isDir ?? req.journal?.destIsDir?.();
  const isDir = earlier ?? isDirNow;
  if (req.destDecision) req.destDecision.isDir = isDir;
  if (earlier === undefined) req.journal?.recordDestIsDir?.(isDir);
  return isDir;
}

/** A put's sources against its remote destination. */
async function scanPut(session: Session, req: TransferRequest, sink: ScanSink): Promise<void> {
  const destPath = await expandRemoteHome(session, req.dest);
  const destStat = await session.stat(destPath);
  const destIsDir = decideDest(req, destStat?.type === 'dir');
  if (!destStat && destPath.endsWith('/')) throw new SluiceError('NO_SUCH_FILE', `folder ${destPath} does not exist on the server`);
  if (req.sources.length > 1 && !destIsDir) throw new SluiceError('USAGE', `target ${destPath} is not a folder (several sources need a folder)`);
  for (const src of req.sources) {
    let st: fs.Stats;
    try {
      st = await fs.promises.stat(src);
    } catch (e) {
      sink.fail({ src, dst: destPath }, fromLocalError(e, src));
      continue;
    }
    const target = destIsDir ? remoteJoin(destPath, path.basename(path.resolve(src))) : destPath;
    if (st.isDirectory()) {
      if (!req.recursive) { sink.fail({ src, dst: target }, new SluiceError('USAGE', `${src} is a folder (use -r)`)); continue; }
      const treeRoot = await fs.promises.realpath(src).catch(() => path.resolve(src));
      const walk = { session, sink, follow: req.followSymlinks === true, treeRoot };
      const dest = { destRoot: destPath, keepDirlinks: req.keepDirlinks === true };
      await walkPut({ ...walk, ...dest }, src, target, new Set([treeRoot]));
    } else if (st.isFile()) {
      await sink.file({ src, dst: target, size: st.size, mode: st.mode & 0o777, mtimeMs: st.mtimeMs });
    } else {
      sink.fail({ src, dst: target }, new SluiceError('USAGE', `${src} is ${specialKind(st)}: only regular files and folders can be copied`));
    }
  }
}

/** A get's remote sources against its local destination. */
async function scanGet(session: Session, req: TransferRequest, sink: ScanSink): Promise<void> {
  const destPath = path.resolve(req.dest);
  const destStat = await fs.promises.stat(destPath).catch(() => null);
  const destIsDir = decideDest(req, destStat?.isDirectory() ?? false);
  if (!destStat && /[\\/]$/.test(req.dest)) throw new SluiceError('LOCAL_IO', `folder ${destPath} does not exist`);
  if (req.sources.length > 1 && !destIsDir) throw new SluiceError('USAGE', `target ${destPath} is not a folder (several sources need a folder)`);
  const rules = await localNameRules(destPath, req.recursive || req.sources.length > 1, req.namePlatform);
  const topNames = new FolderNames(rules);
  for (const src0 of req.sources) {
    const src = await expandRemoteHome(session, src0);
    const st = await session.stat(src).catch((e: unknown) => { sink.fail({ src, dst: destPath }, SluiceError.from(e)); return undefined; });
    if (st === undefined) continue;
    if (st === null) { sink.fail({ src, dst: destPath }, new SluiceError('NO_SUCH_FILE', `${src}: no such file or folder on the server`)); continue; }
    let target = destPath;
    if (destIsDir) {
      const name = remoteBase(src);
      const reason = topNames.refusal(name);
      if (reason) { sink.fail({ src, dst: destPath }, new SluiceError('UNSAFE_NAME', `refused remote name ${JSON.stringify(name)}: ${reason}`)); continue; }
      target = safeLocalJoin(destPath, [name]);
    }
    if (st.type === 'dir') {
      if (!req.recursive) sink.fail({ src, dst: target }, new SluiceError('USAGE', `${src} is a folder (use -r)`));
      else {
        const walk = { session, sink, maxDepth: req.maxDepth ?? DEFAULT_MAX_DEPTH, follow: req.followSymlinks === true,
          names: rules };
        const dest = { destRoot: destPath, keepDirlinks: req.keepDirlinks === true };
        await walkGet({ ...walk, ...dest }, src, target, new Set(), 0);
      }
    } else if (st.type === 'file') {
      await sink.file({ src, dst: target, size: st.size, mode: st.mode & 0o777, mtimeMs: st.mtimeMs });
    } else {
      sink.fail({ src, dst: target }, new SluiceError('USAGE', `${src} is not a regular file or folder on the server`));
    }
  }
}

/**
 * Scans a job: every file found goes to `sink.file`, every source that cannot be copied to `sink.fail` or
 * `sink.skip`.
 * @throws SluiceError USAGE (several sources into a non-folder), NO_SUCH_FILE / LOCAL_IO (a destination folder
 *   named with a trailing slash that does not exist)
 */
export function scanJob(session: Session, req: TransferRequest, sink: ScanSink): Promise<void> {
  return req.direction === 'put' ? scanPut(session, req, sink) : scanGet(session, req, sink);
}
