/**
 * Promise forms of single SFTP requests on a channel, whose failures name the request and the path, and the
 * mapping of a range copy's errors.
 */
import fs from 'node:fs';
import type { OpenMode, SFTPWrapper } from 'ssh2';
import {
  SFTP_STATUS,
  SluiceError,
  fromLocalError,
  fromSftpError,
  type SftpOperation,
  type SluiceErrorInfo,
} from '../../errors';
import { LongerFileError, ShortFileError, type TaggedSftpError } from '../../sftp/pipeline';
import type { KeptAttributes, RemoteStat } from '../workerProtocol';
import { ssh2OpenMode } from '../../ssh2x';

export const S_IFMT = 0o170000;
export const S_IFREG = 0o100000;

/**
 * The callback {@link call} hands to an ssh2 SFTP method. Its value is optional, so one type fits every method's
 * callback (ssh2's `Callback` of a request answered by a status alone, and `(err, value)` of the others) without casts.
 */
export type SftpDone<T> = (err: Error | null | undefined, value?: T) => void;

/**
 * Promise form of one ssh2 SFTP request; a failure names the request (`what`) and the path.
 * @param fn sends the request with the callback, e.g. `(done) => s.realpath(p, done)`; `T` is the method's value
 *   (`void` for a request answered by SSH_FXP_STATUS alone)
 */
export function call<T>(
  fn: (done: SftpDone<T>) => void,
  remotePath: string,
  what?: SftpOperation | string,
): Promise<T> {
  const op = typeof what === 'string' ? { op: what } : what;
  return new Promise<T>((resolve, reject) => {
    fn((err, v) => (err ? reject(fromSftpError(err, remotePath, op)) : resolve(v as T)));
  });
}

/** ATTRS as RemoteStat; a field the server left out reads as 0 (a missing type: 'other'). */
export function statToRemote(a: { mode?: number; size?: number; mtime?: number }): RemoteStat {
  const mode = a.mode ?? 0;
  const fmt = mode & S_IFMT;
  const type = fmt === 0o040000 ? 'dir' : fmt === S_IFREG ? 'file' : fmt === 0o120000 ? 'symlink' : 'other';
  return { type, size: a.size ?? 0, mtimeMs: (a.mtime ?? 0) * 1000, mode: mode & 0o7777 };
}

/** ATTRS with the owner, group and access time kept (RemoteStat's `long` fields), and a listing's `longname`. */
export function statToRemoteLong(
  a: { mode?: number; size?: number; mtime?: number; atime?: number; uid?: number; gid?: number },
  longname?: string,
): RemoteStat {
  const st: RemoteStat = { ...statToRemote(a), uid: a.uid, gid: a.gid, format: (a.mode ?? 0) & S_IFMT };
  if (a.atime !== undefined) st.atimeMs = a.atime * 1000;
  if (longname !== undefined) st.longname = longname;
  return st;
}

/**
 * SSH_FXP_OPEN (draft-ietf-secsh-filexfer-02 §6.3).
 * @param flags ssh2's fopen-style string, or SSH_FXF_* bits ({@link OPEN_MODE})
 * @param mode permissions of a file the open creates; the server's default when undefined
 */
export async function openRemote(
  s: SFTPWrapper,
  p: string,
  flags: OpenMode | number,
  mode?: number,
  op = 'OPEN',
): Promise<Buffer> {
  return call<Buffer>((cb) => s.open(p, flags, mode === undefined ? {} : { mode }, cb), p, op);
}

export async function closeRemote(s: SFTPWrapper, h: Buffer, p: string): Promise<void> {
  await call<void>((cb) => s.close(h, cb), p, 'CLOSE');
}

export async function openLocal(p: string, flags: string, mode?: number): Promise<fs.promises.FileHandle> {
  try {
    return await fs.promises.open(p, flags, mode);
  } catch (e) {
    throw fromLocalError(e, p);
  }
}

/** Maps an error from a range copy to a SluiceError naming the side it came from. */
export function rangeError(e: unknown, remotePath: string, localPath: string): SluiceError {
  if (e instanceof SluiceError) return e;
  if (e instanceof LongerFileError) {
    return new SluiceError(
      'SOURCE_CHANGED',
      `${remotePath}: ${e.message}: the file is longer than listed (did it change ` +
        'during the transfer?), not saved',
    );
  }
  const err = e as NodeJS.ErrnoException & { name?: string };
  if (err?.name === 'AbortError') return new SluiceError('ABORTED', 'transfer aborted');
  if (typeof err?.code === 'string') return fromLocalError(e, localPath);
  if (typeof err?.code === 'number')
    return fromSftpError(e, remotePath, { op: (e as TaggedSftpError).sftpOp, offset: (e as TaggedSftpError).offset });
  return new SluiceError('REMOTE_FAILURE', `${remotePath}: ${err?.message ?? String(e)}`);
}

/**
 * {@link rangeError} for an upload: a local source that ends before the planned size was truncated while it was sent,
 * SOURCE_CHANGED (docs/cli.md), not the server's failure; nothing of it is committed.
 */
export function uploadError(e: unknown, remotePath: string, localPath: string): SluiceError {
  if (!(e instanceof ShortFileError)) return rangeError(e, remotePath, localPath);
  return new SluiceError(
    'SOURCE_CHANGED',
    `${localPath} changed while it was sent (it now ends at byte ${e.position}, ` +
      'before its planned size): the copy is not committed',
    { cause: e },
  );
}

/**
 * fsync@openssh.com on an open handle (OpenSSH PROTOCOL §4.6) when the server offers it (`offered`).
 * @returns whether it was sent and answered OK
 */
export async function fsyncRemote(s: SFTPWrapper, h: Buffer, p: string, offered: boolean): Promise<boolean> {
  if (!offered) return false;
  await call<unknown>((cb) => s.ext_openssh_fsync(h, cb), p, 'fsync@openssh.com');
  return true;
}

/**
 * SSH_FXP_FSETSTAT of `keep` on an open handle (draft-ietf-secsh-filexfer-02 §6.9): the modification time, sent as
 * the access time too (ATTRS carry both or neither, §5), and the permissions. Never rejects: a refusal is its result.
 * @returns undefined when set (or when there is nothing to set), else the refusal naming the request, path and status
 */
export async function fsetstatRemote(
  s: SFTPWrapper,
  h: Buffer,
  p: string,
  keep?: KeptAttributes,
): Promise<SluiceErrorInfo | undefined> {
  const attrs: { atime?: number; mtime?: number; mode?: number } = {};
  if (keep?.mtime !== undefined) attrs.atime = attrs.mtime = keep.mtime;
  if (keep?.mode !== undefined) attrs.mode = keep.mode;
  if (attrs.mtime === undefined && attrs.mode === undefined) return undefined;
  try {
    await call<void>((cb) => s.fsetstat(h, attrs, cb), p, 'FSETSTAT');
    return undefined;
  } catch (e) {
    return SluiceError.from(e).toInfo();
  }
}

/** SSH_FXP_STAT (or LSTAT when `follow` is false); null when the path does not exist. */
export async function statOn(s: SFTPWrapper, p: string, follow: boolean, long = false): Promise<RemoteStat | null> {
  try {
    const st = await call<{ mode?: number; size?: number; mtime?: number }>(
      (cb) => (follow ? s.stat(p, cb) : s.lstat(p, cb)),
      p,
    );
    return long ? statToRemoteLong(st) : statToRemote(st);
  } catch (e) {
    if (e instanceof SluiceError && e.code === 'NO_SUCH_FILE') return null;
    throw e;
  }
}

export const OPEN_MODE = ssh2OpenMode();
/** From the one status table, errors.ts SFTP_STATUS. */
export const SSH_FX_EOF = SFTP_STATUS.EOF;

/**
 * SSH_FXP_OPEN flags of every handle a segmented upload writes through, and of the probe that decides whether it may:
 * write-only, created if missing (the temporary name is new), never truncated, no append.
 */
export const SEGMENT_FLAGS = OPEN_MODE.WRITE | OPEN_MODE.CREAT;
