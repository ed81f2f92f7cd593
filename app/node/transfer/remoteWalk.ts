/**
 * A get's walk of a remote folder: names handled as each READDIR answer brings them, symlinks under the one policy of
 * both directions (`-L`, files inside the tree), names the local destination cannot hold refused, loops and depth
 * bounded (a hostile server can list a folder inside itself).
 */
import fs from 'node:fs';
import path from 'node:path';
import { SluiceError, fromLocalError, isInterruption } from '../errors';
import type { ConnectionPool } from '../ssh/connectionPool';
import type { RemoteEntry, RemoteStat } from '../ssh/workerProtocol';
import { FolderNames, type LocalNameRules } from './localNames';
import { safeLocalJoin } from './safeNames';
import { eachLimited, remoteJoin, WALK_CONCURRENCY, type ScanSink } from './scanSink';

/**
 * SSH_FXP_STAT of a remote symlink met in a walk. A server answering anything but NO_SUCH_FILE (FAILURE for a loop,
 * BAD_MESSAGE for an over-long target on OpenSSH, PERMISSION_DENIED) fails that entry alone: undefined, reported.
 * A lost connection or an abort still ends the walk (thrown).
 * @returns the target's attributes, null when the target does not exist, undefined when the entry was failed
 */
async function statLink(
  pool: ConnectionPool,
  sink: ScanSink,
  src: string,
  dst: string,
): Promise<RemoteStat | null | undefined> {
  try {
    return await pool.stat(src);
  } catch (err) {
    const e = SluiceError.from(err);
    if (isInterruption(e.code)) throw e;
    sink.fail({ src, dst }, new SluiceError(e.code, `cannot follow the symlink: ${e.message}`, { cause: e }));
    return undefined;
  }
}

/** A get's folder walk: the depth limit and, per folder, the real paths of the folders above it. */
export interface RemoteWalk {
  pool: ConnectionPool;
  sink: ScanSink;
  /** Folders deeper than this below the source are failed, not walked (TransferRequest.maxDepth). */
  maxDepth: number;
  /** What the destination can hold: names refused or colliding there are failed, not copied. */
  names: LocalNameRules;
  /** `-L`: every symlink followed (TransferRequest.followSymlinks); else put's policy, {@link remoteLink}. */
  follow: boolean;
  /** SSH_FXP_REALPATH of the source folder, set by its walk (depth 0): a link is copied only when it stays inside. */
  treeRoot?: string;
  /** DEST as the user named it (resolved): it may be a link; a link below it is not written through by default. */
  destRoot: string;
  /** `-K` (TransferRequest.keepDirlinks): write into a folder symlink inside the destination. */
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
  const target = await statLink(w.pool, w.sink, src, dst);
  if (target === undefined) return undefined;
  if (!target) {
    w.sink.skip({ src, dst }, 'a symlink whose target does not exist');
    return undefined;
  }
  const st = { ...e, ...target };
  if (w.follow) return st;
  if (st.type === 'dir') {
    w.sink.skip({ src, dst }, 'a folder symlink (use -L to follow)');
    return undefined;
  }
  const real = await w.pool.realpath(src).catch(() => undefined);
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
async function walkNames(
  w: RemoteWalk,
  remoteDir: string,
  localDir: string,
  names: RemoteEntry[],
  out: FolderWalk,
): Promise<void> {
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
      sink.fail(
        { src, dst: localDir },
        new SluiceError('UNSAFE_NAME', `refused remote name ${JSON.stringify(e.name)} in ${remoteDir}: ${reason}`),
      );
      continue;
    }
    const dst = safeLocalJoin(localDir, [e.name]);
    const st = e.type === 'symlink' ? await remoteLink(w, e, src, dst) : e;
    if (!st) continue;
    if (st.type === 'dir') out.dirs.push([src, dst]);
    else if (st.type === 'file')
      await sink.file({ src, dst, size: st.size, mode: st.mode & 0o777, mtimeMs: st.mtimeMs });
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
export async function walkGet(
  w: RemoteWalk,
  remoteDir: string,
  localDir: string,
  ancestors: ReadonlySet<string>,
  depth: number,
): Promise<void> {
  const { pool: session, sink } = w;
  if (depth > w.maxDepth) {
    sink.fail(
      { src: remoteDir, dst: localDir },
      new SluiceError(
        'REMOTE_FAILURE',
        `${remoteDir}: folder not copied, it is nested deeper than ${w.maxDepth} levels below the source (--max-depth)`,
      ),
    );
    return;
  }
  // The folder's real path, and its local folder made unless it is a loop or a symlink inside the destination.
  const ready = session
    .realpath(remoteDir)
    .catch(() => remoteDir)
    .then(async (real) => {
      if (ancestors.has(real)) {
        return {
          real,
          refused: new SluiceError(
            'REMOTE_FAILURE',
            `${remoteDir}: folder not copied, it is ${real} again (the server lists a folder inside itself: a loop)`,
          ),
        };
      }
      const linked = await linkedLocalFolder(w, localDir);
      if (linked) return { real, refused: new SluiceError('LOCAL_IO', linked) };
      await fs.promises.mkdir(localDir, { recursive: true }).catch((e: unknown) => {
        throw fromLocalError(e, localDir);
      });
      if (depth === 0) w.treeRoot = real;
      return { real, refused: undefined };
    });
  ready.catch(() => undefined);
  const stop = new AbortController();
  const onStop = () => stop.abort();
  sink.signal?.addEventListener('abort', onStop, { once: true });
  const out: FolderWalk = { dirs: [], seen: new Set(), names: new FolderNames(w.names) };
  try {
    await session.listEach(
      remoteDir,
      async (names) => {
        if ((await ready).refused || sink.stopped()) {
          stop.abort();
          return;
        }
        await walkNames(w, remoteDir, localDir, names, out);
      },
      stop.signal,
    );
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
  await eachLimited(out.dirs, WALK_CONCURRENCY, ([s, d]) =>
    walkGet(w, s, d, below, depth + 1).catch((err) => sink.fail({ src: s, dst: d }, SluiceError.from(err))),
  );
}
