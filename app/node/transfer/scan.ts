/**
 * Resolves a job's sources against its destination with `cp` semantics and walks folders, handing each file to the
 * job as it is found (the transfer starts while the scan goes on). Remote paths starting with `~` are resolved
 * through SSH_FXP_REALPATH of the login folder; special files (FIFOs, sockets, devices) are reported and skipped
 * (refused as a source); symlinks follow the policy of {@link TransferRequest.followSymlinks}.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SluiceError, fromLocalError } from '../errors';
import type { ConnectionPool } from '../ssh/connectionPool';
import { FolderNames, localNameRules } from './localNames';
import { DEFAULT_MAX_DEPTH, walkGet } from './remoteWalk';
import { safeLocalJoin } from './safeNames';
import { eachLimited, remoteJoin, WALK_CONCURRENCY, type ScanSink } from './scanSink';
import type { TransferRequest } from './types';

export type { FileItem, ScanSink } from './scanSink';
export { DEFAULT_MAX_DEPTH } from './remoteWalk';

function remoteBase(p: string): string {
  return path.posix.basename(p.replace(/\/+$/, '')) || p;
}

/**
 * Resolves `~` and `~/…` (and the empty path) against the login folder: SSH_FXP_REALPATH of "." (servers differ on
 * what they make of a literal `~`; only the app expanded it before). Other paths are returned as they are.
 */
export async function expandRemoteHome(pool: Pick<ConnectionPool, 'realpath'>, p: string): Promise<string> {
  if (p !== '' && p !== '~' && !p.startsWith('~/')) return p;
  const home = await pool.realpath('.');
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
  pool: ConnectionPool;
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
  const st = await w.pool.call('stat', { path: dir, follow: false });
  if (st?.type !== 'symlink') return undefined;
  const to = await w.pool.call('readlink', { path: dir }).catch(() => '?');
  return `${dir}: folder not written, it is a symlink to ${to} inside the destination (-K writes into it)`;
}

/** Decides what one entry of a local folder is; null when it is reported and skipped. */
async function localEntry(w: LocalWalk, src: string, dst: string, isLink: boolean): Promise<fs.Stats | null> {
  let st: fs.Stats;
  try {
    st = await fs.promises.stat(src);
  } catch (err) {
    if (isLink) {
      w.sink.skip({ src, dst }, 'a symlink whose target does not exist');
      return null;
    }
    w.sink.fail({ src, dst }, fromLocalError(err, src));
    return null;
  }
  if (isLink && !w.follow) {
    const target = await fs.promises.realpath(src).catch(() => src);
    if (st.isDirectory()) {
      w.sink.skip({ src, dst }, 'a folder symlink (use -L to follow)');
      return null;
    }
    if (!inside(w.treeRoot, target)) {
      w.sink.skip({ src, dst }, `a symlink to ${target}, outside the folder being copied (use -L to follow)`);
      return null;
    }
  }
  if (!st.isFile() && !st.isDirectory()) {
    w.sink.skip({ src, dst }, `${specialKind(st)}, not copied`);
    return null;
  }
  return st;
}

/** @param ancestors real paths of the folders above `localDir` (a followed folder symlink must not loop) */
async function walkPut(
  w: LocalWalk,
  localDir: string,
  remoteDir: string,
  ancestors: ReadonlySet<string>,
): Promise<void> {
  const made = await w.pool.call('mkdir', { path: remoteDir });
  const linked = made === 'exists' ? await linkedRemoteFolder(w, remoteDir) : undefined;
  if (linked) {
    w.sink.fail({ src: localDir, dst: remoteDir }, new SluiceError('REMOTE_FAILURE', linked));
    return;
  }
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
      if (ancestors.has(real)) {
        w.sink.skip({ src, dst }, 'a folder symlink to a folder above it (a loop)');
        continue;
      }
      dirs.push([src, dst, w.follow ? new Set([...ancestors, real]) : ancestors]);
    } else await w.sink.file({ src, dst, size: st.size, mode: st.mode & 0o777, mtimeMs: st.mtimeMs });
  }
  await eachLimited(dirs, WALK_CONCURRENCY, ([s, d, a]) =>
    walkPut(w, s, d, a).catch((err) => w.sink.fail({ src: s, dst: d }, SluiceError.from(err))),
  );
}

/**
 * Whether `dest` is a folder the sources go into: as an earlier try of the run read it (TransferRequest.destIsDir),
 * else as an earlier run of the job recorded in its journal, else as it is now (cp semantics); handed to the sink
 * before anything is created there.
 */
function decideDest(req: TransferRequest, sink: ScanSink, isDirNow: boolean): boolean {
  const earlier = req.destIsDir ?? req.journal?.destIsDir?.();
  const isDir = earlier ?? isDirNow;
  sink.destination(isDir, earlier === undefined);
  return isDir;
}

/** A put's sources against its remote destination. */
async function scanPut(pool: ConnectionPool, req: TransferRequest, sink: ScanSink): Promise<void> {
  const destPath = await expandRemoteHome(pool, req.dest);
  const destStat = await pool.stat(destPath);
  const destIsDir = decideDest(req, sink, destStat?.type === 'dir');
  if (!destStat && destPath.endsWith('/'))
    throw new SluiceError('NO_SUCH_FILE', `folder ${destPath} does not exist on the server`);
  if (req.sources.length > 1 && !destIsDir)
    throw new SluiceError('USAGE', `target ${destPath} is not a folder (several sources need a folder)`);
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
      if (!req.recursive) {
        sink.fail({ src, dst: target }, new SluiceError('USAGE', `${src} is a folder (use -r)`));
        continue;
      }
      const treeRoot = await fs.promises.realpath(src).catch(() => path.resolve(src));
      const walk = { pool, sink, follow: req.followSymlinks === true, treeRoot };
      const dest = { destRoot: destPath, keepDirlinks: req.keepDirlinks === true };
      await walkPut({ ...walk, ...dest }, src, target, new Set([treeRoot]));
    } else if (st.isFile()) {
      await sink.file({ src, dst: target, size: st.size, mode: st.mode & 0o777, mtimeMs: st.mtimeMs });
    } else {
      sink.fail(
        { src, dst: target },
        new SluiceError('USAGE', `${src} is ${specialKind(st)}: only regular files and folders can be copied`),
      );
    }
  }
}

/** A get's remote sources against its local destination. */
async function scanGet(pool: ConnectionPool, req: TransferRequest, sink: ScanSink): Promise<void> {
  const destPath = path.resolve(req.dest);
  const destStat = await fs.promises.stat(destPath).catch(() => null);
  const destIsDir = decideDest(req, sink, destStat?.isDirectory() ?? false);
  if (!destStat && /[\\/]$/.test(req.dest)) throw new SluiceError('LOCAL_IO', `folder ${destPath} does not exist`);
  if (req.sources.length > 1 && !destIsDir)
    throw new SluiceError('USAGE', `target ${destPath} is not a folder (several sources need a folder)`);
  const rules = await localNameRules(destPath, req.recursive || req.sources.length > 1, req.namePlatform);
  const topNames = new FolderNames(rules);
  for (const src0 of req.sources) {
    const src = await expandRemoteHome(pool, src0);
    const st = await pool.stat(src).catch((e: unknown) => {
      sink.fail({ src, dst: destPath }, SluiceError.from(e));
      return undefined;
    });
    if (st === undefined) continue;
    if (st === null) {
      sink.fail(
        { src, dst: destPath },
        new SluiceError('NO_SUCH_FILE', `${src}: no such file or folder on the server`),
      );
      continue;
    }
    let target = destPath;
    if (destIsDir) {
      const name = remoteBase(src);
      const reason = topNames.refusal(name);
      if (reason) {
        sink.fail(
          { src, dst: destPath },
          new SluiceError('UNSAFE_NAME', `refused remote name ${JSON.stringify(name)}: ${reason}`),
        );
        continue;
      }
      target = safeLocalJoin(destPath, [name]);
    }
    if (st.type === 'dir') {
      if (!req.recursive) sink.fail({ src, dst: target }, new SluiceError('USAGE', `${src} is a folder (use -r)`));
      else {
        const walk = {
          pool,
          sink,
          maxDepth: req.maxDepth ?? DEFAULT_MAX_DEPTH,
          follow: req.followSymlinks === true,
          names: rules,
        };
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

/** A job's files as listed (TransferRequest.files): handed on as they are, without a walk or a STAT. */
async function scanListed(files: NonNullable<TransferRequest['files']>, sink: ScanSink): Promise<void> {
  for (const f of files) {
    if (sink.stopped()) return;
    if (f.ready) {
      const failed = await f.ready.then(
        () => undefined,
        (e: unknown) => SluiceError.from(e),
      );
      if (failed) {
        sink.fail({ src: f.src, dst: f.dst }, failed);
        continue;
      }
      if (sink.stopped()) return;
    }
    await sink.file({ src: f.src, dst: f.dst, size: f.size, mtimeMs: f.mtimeMs, mode: f.mode ?? 0 });
  }
}

/**
 * Scans a job: every file found goes to `sink.file`, every source that cannot be copied to `sink.fail` or
 * `sink.skip`.
 * @throws SluiceError USAGE (several sources into a non-folder), NO_SUCH_FILE / LOCAL_IO (a destination folder
 *   named with a trailing slash that does not exist)
 */
export function scanJob(pool: ConnectionPool, req: TransferRequest, sink: ScanSink): Promise<void> {
  if (req.files) return scanListed(req.files, sink);
  return req.direction === 'put' ? scanPut(pool, req, sink) : scanGet(pool, req, sink);
}
