/**
 * The engine's side of the one error type (app/common/errors.ts, re-exported here): Node fs errors and SFTP status
 * replies mapped onto {@link SluiceError}s whose messages name the path, the request and the server's own text, and
 * text made safe for a terminal.
 */

export {
  ERROR_CODES,
  SluiceError,
  exitCodeFor,
  isErrorCode,
  isInterruption,
  isSluiceError,
  type ErrorCode,
  type SluiceErrorInfo,
} from '../common/errors';
import { SluiceError, type ErrorCode } from '../common/errors';

export { displayText, terminalText } from '../common/displayText';
import { displayText } from '../common/displayText';
import { NAME_MAX_BYTES, utf8Bytes } from '../common/nameBytes';

interface ErrnoLike {
  code?: unknown;
  errno?: unknown;
  message?: unknown;
  name?: unknown;
}

function asErrnoLike(e: unknown): ErrnoLike {
  return typeof e === 'object' && e !== null ? (e as ErrnoLike) : {};
}

const LOCAL_REASONS: Readonly<Record<string, [ErrorCode, string]>> = {
  ENOSPC: ['DISK_FULL', 'no space left on device'],
  EDQUOT: ['DISK_FULL', 'disk quota exceeded'],
  EFBIG: ['DISK_FULL', 'file too large for the file system'],
  EACCES: ['LOCAL_IO', 'permission denied'],
  EPERM: ['LOCAL_IO', 'permission denied (operation not permitted)'],
  EROFS: ['LOCAL_IO', 'permission denied (read-only file system)'],
  ENOENT: ['LOCAL_IO', 'no such file or directory'],
  ENOTDIR: ['LOCAL_IO', 'a parent is not a directory'],
  EISDIR: ['LOCAL_IO', 'is a directory'],
  EEXIST: ['EXISTS', 'already exists'],
  ENOTEMPTY: ['LOCAL_IO', 'directory not empty'],
  EMFILE: ['LOCAL_IO', 'too many open files'],
  ENFILE: ['LOCAL_IO', 'too many open files in the system'],
  EIO: ['LOCAL_IO', 'input/output error'],
  ENAMETOOLONG: ['LOCAL_IO', 'file name too long'],
  ELOOP: ['LOCAL_IO', 'too many levels of symbolic links'],
  EXDEV: ['LOCAL_IO', 'cross-device link'],
  EBUSY: ['LOCAL_IO', 'resource busy'],
};

/**
 * Maps a Node fs error to a {@link SluiceError} whose message names the local path:
 * ENOSPC/EDQUOT/EFBIG → DISK_FULL ("Local disk full: PATH (…)"); EACCES/EPERM/EROFS → LOCAL_IO "permission denied";
 * ENOENT and other errno codes → LOCAL_IO; EEXIST → EXISTS; an AbortError → ABORTED. A SluiceError is returned
 * unchanged.
 * @param e what a `node:fs` call threw or passed to its callback
 * @param path the local path involved
 * @param action optional verb for the message, e.g. `'write'` → "cannot write /x: …"
 */
export function fromLocalError(e: unknown, path: string, action?: string): SluiceError {
  if (e instanceof SluiceError) return e;
  const err = asErrnoLike(e);
  if (err.name === 'AbortError' || err.code === 'ABORT_ERR') {
    return new SluiceError('ABORTED', `Aborted while accessing ${displayText(path)}`, { cause: e });
  }
  const errno = typeof err.code === 'string' ? err.code : undefined;
  const known = errno ? LOCAL_REASONS[errno] : undefined;
  const prefix = action ? `Cannot ${action} ${displayText(path)}` : `Local file ${displayText(path)}`;
  if (known?.[0] === 'DISK_FULL') {
    return new SluiceError(
      'DISK_FULL',
      `Local disk full: ${displayText(path)} (${action ? `cannot ${action}: ` : ''}${known[1]}, ${errno})`,
      { cause: e },
    );
  }
  if (errno === 'ENAMETOOLONG') {
    return new SluiceError('LOCAL_IO', `${prefix}: ${localNameTooLong(path)} (${errno})`, { cause: e });
  }
  if (known) return new SluiceError(known[0], `${prefix}: ${known[1]} (${errno})`, { cause: e });
  const detail = typeof err.message === 'string' && err.message ? err.message : String(e);
  return new SluiceError('LOCAL_IO', `${prefix}: ${displayText(detail)}${errno ? ` (${errno})` : ''}`, { cause: e });
}

/** Bytes of UTF-8 in the longest name of a path (`/` or `\\` separated). */
const longestName = (p: string): number => Math.max(0, ...p.split(/[\\/]/).map(utf8Bytes));
const nameOverMax = (bytes: number): string =>
  `file name too long: a name of ${bytes} bytes, more than the ${NAME_MAX_BYTES} a file system holds`;

/** ENAMETOOLONG told precisely: which limit, a name's (NAME_MAX) or the whole path's (PATH_MAX). */
function localNameTooLong(p: string): string {
  const longest = longestName(p);
  if (longest > NAME_MAX_BYTES) return nameOverMax(longest);
  return `path too long (${utf8Bytes(p)} bytes; no name in it is over ${NAME_MAX_BYTES})`;
}

/**
 * SFTP status codes. v3 (draft-ietf-secsh-filexfer-02 §7, what OpenSSH and ssh2 speak) defines 0–8;
 * 9–31 come from later drafts (draft-ietf-secsh-filexfer-13 §9.1) and are sent by a few servers anyway.
 */
export const SFTP_STATUS = {
  OK: 0,
  EOF: 1,
  NO_SUCH_FILE: 2,
  PERMISSION_DENIED: 3,
  FAILURE: 4,
  BAD_MESSAGE: 5,
  NO_CONNECTION: 6,
  CONNECTION_LOST: 7,
  OP_UNSUPPORTED: 8,
  INVALID_HANDLE: 9,
  NO_SUCH_PATH: 10,
  FILE_ALREADY_EXISTS: 11,
  WRITE_PROTECT: 12,
  NO_MEDIA: 13,
  NO_SPACE_ON_FILESYSTEM: 14,
  QUOTA_EXCEEDED: 15,
  LOCK_CONFLICT: 17,
  DIR_NOT_EMPTY: 18,
  NOT_A_DIRECTORY: 19,
  INVALID_FILENAME: 20,
  LINK_LOOP: 21,
  FILE_IS_A_DIRECTORY: 24,
} as const;

const SFTP_REASONS: Readonly<Record<number, [ErrorCode, string]>> = {
  [SFTP_STATUS.EOF]: ['REMOTE_FAILURE', 'unexpected end of file'],
  [SFTP_STATUS.NO_SUCH_FILE]: ['NO_SUCH_FILE', 'no such file or directory'],
  [SFTP_STATUS.PERMISSION_DENIED]: ['PERMISSION_DENIED', 'permission denied'],
  [SFTP_STATUS.FAILURE]: ['REMOTE_FAILURE', 'the server reported a failure'],
  [SFTP_STATUS.BAD_MESSAGE]: ['REMOTE_FAILURE', 'the server rejected a malformed request'],
  [SFTP_STATUS.NO_CONNECTION]: ['CONNECTION_LOST', 'no connection'],
  [SFTP_STATUS.CONNECTION_LOST]: ['CONNECTION_LOST', 'connection lost'],
  [SFTP_STATUS.OP_UNSUPPORTED]: ['REMOTE_FAILURE', 'operation not supported by the server'],
  [SFTP_STATUS.INVALID_HANDLE]: ['REMOTE_FAILURE', 'invalid handle'],
  [SFTP_STATUS.NO_SUCH_PATH]: ['NO_SUCH_FILE', 'no such path'],
  [SFTP_STATUS.FILE_ALREADY_EXISTS]: ['EXISTS', 'already exists'],
  [SFTP_STATUS.WRITE_PROTECT]: ['PERMISSION_DENIED', 'write protected'],
  [SFTP_STATUS.NO_MEDIA]: ['REMOTE_FAILURE', 'no media'],
  [SFTP_STATUS.NO_SPACE_ON_FILESYSTEM]: ['REMOTE_FAILURE', 'no space left on the remote file system'],
  [SFTP_STATUS.QUOTA_EXCEEDED]: ['REMOTE_FAILURE', 'remote quota exceeded'],
  [SFTP_STATUS.LOCK_CONFLICT]: ['REMOTE_FAILURE', 'lock conflict'],
  [SFTP_STATUS.DIR_NOT_EMPTY]: ['REMOTE_FAILURE', 'directory not empty'],
  [SFTP_STATUS.NOT_A_DIRECTORY]: ['NO_SUCH_FILE', 'not a directory'],
  [SFTP_STATUS.INVALID_FILENAME]: ['REMOTE_FAILURE', 'invalid file name'],
  [SFTP_STATUS.LINK_LOOP]: ['REMOTE_FAILURE', 'too many levels of symbolic links'],
  [SFTP_STATUS.FILE_IS_A_DIRECTORY]: ['REMOTE_FAILURE', 'is a directory'],
};

/**
 * HOST_NOT_FOUND for a connection whose host name does not resolve (getaddrinfo ENOTFOUND: no such name; EAI_AGAIN:
 * the resolver could not answer, e.g. no network), as ssh(1)'s "Could not resolve hostname"; undefined for any other
 * error.
 * @param host the name that was looked up (after ssh_config's HostName)
 */
export function hostNotFoundError(e: unknown, host: string): SluiceError | undefined {
  const code = asErrnoLike(e).code;
  if (code === 'ENOTFOUND')
    return new SluiceError(
      'HOST_NOT_FOUND',
      `host not found: ${displayText(host, 200)} (the name does not resolve: getaddrinfo ENOTFOUND)`,
      { cause: e },
    );
  if (code === 'EAI_AGAIN') {
    return new SluiceError(
      'HOST_NOT_FOUND',
      `host not found: ${displayText(host, 200)} (the name could not be looked up now: getaddrinfo EAI_AGAIN; is the network up?)`,
      { cause: e },
    );
  }
  return undefined;
}

/** Socket-level errno codes that mean the connection is gone. */
const CONNECTION_ERRNOS = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ECONNREFUSED',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENOTCONN',
  'ERR_STREAM_DESTROYED',
  'ERR_STREAM_WRITE_AFTER_END',
]);

/** Below NAME_MAX, the shortest limit a common server file system has (eCryptfs: 143 bytes). */
const SHORT_NAME_MAX_BYTES = 143;

/**
 * OpenSSH's sftp-server answers ENAMETOOLONG (and EINVAL) with SSH_FX_BAD_MESSAGE, which reads as a malformed
 * request: when the path's longest name is long enough to be the cause, say so instead (undefined otherwise).
 */
function nameTooLongReason(remotePath: string): string | undefined {
  const longest = longestName(remotePath);
  if (longest > NAME_MAX_BYTES) return nameOverMax(longest);
  if (longest > SHORT_NAME_MAX_BYTES) {
    return `the server rejected the request; a name of ${longest} bytes may be too long for the server's file system`;
  }
  return undefined;
}

/** `SSH_FX_…` name of an SFTP status code, or `status N` for a code no draft names. */
export function sftpStatusName(code: number): string {
  const name = Object.entries(SFTP_STATUS).find(([, n]) => n === code)?.[0];
  return name ? `SSH_FX_${name}` : `status ${code}`;
}

/** The request that failed, for {@link fromSftpError}'s message. */
export interface SftpOperation {
  /** Request name as the protocol spells it: OPEN, WRITE, FSTAT, RENAME, fsync@openssh.com, … */
  op?: string;
  /** Byte offset of a READ or WRITE. */
  offset?: number;
}

/**
 * Maps an error from an ssh2 SFTP call to a {@link SluiceError} whose message names the request, the remote path,
 * the offset where one applies, the status name and the server's own text, e.g.
 * "WRITE /srv/.x.sluice-8f49be65.part at offset 1048576: the server reported a failure (SSH_FX_FAILURE, server: Disk
 * quota exceeded)". `err.code` is the numeric SFTP status (draft-ietf-secsh-filexfer-02 §7): 2 → NO_SUCH_FILE, 3 →
 * PERMISSION_DENIED, 4/5/8 → REMOTE_FAILURE, 6/7 → CONNECTION_LOST. ssh2's "No response from server" (channel closed
 * with requests pending) and socket errnos → CONNECTION_LOST; an AbortError → ABORTED. A SluiceError is returned
 * unchanged.
 * @param remotePath the path the request was about (callers that know the user's path add it in front)
 * @param what the request and its offset, when known
 */
export function fromSftpError(e: unknown, remotePath: string, what: SftpOperation = {}): SluiceError {
  if (e instanceof SluiceError) return e;
  const err = asErrnoLike(e);
  const at = what.offset !== undefined ? ` at offset ${what.offset}` : '';
  const where = what.op ? `${what.op} ${displayText(remotePath)}${at}` : `Remote ${displayText(remotePath)}${at}`;
  const serverText = typeof err.message === 'string' ? err.message : String(e);
  if (err.name === 'AbortError' || err.code === 'ABORT_ERR') {
    return new SluiceError('ABORTED', `Aborted while accessing ${displayText(remotePath)}`, { cause: e });
  }
  if (typeof err.code === 'number') {
    const known = SFTP_REASONS[err.code];
    const status = sftpStatusName(err.code);
    if (known) {
      // The server's text adds detail only when it says more than the generic status string.
      const generic =
        /^(failure|no such file|permission denied|eof|bad message|operation unsupported|unknown status)$/i;
      const extra = serverText && !generic.test(serverText.trim()) ? `, server: ${displayText(serverText, 200)}` : '';
      const reason = err.code === SFTP_STATUS.BAD_MESSAGE ? (nameTooLongReason(remotePath) ?? known[1]) : known[1];
      return new SluiceError(known[0], `${where}: ${reason} (${status}${extra})`, { cause: e });
    }
    return new SluiceError('REMOTE_FAILURE', `${where}: SFTP ${status} (server: ${displayText(serverText, 200)})`, {
      cause: e,
    });
  }
  if (typeof err.code === 'string' && CONNECTION_ERRNOS.has(err.code)) {
    return new SluiceError('CONNECTION_LOST', `${where}: connection lost (${err.code})`, { cause: e });
  }
  if (typeof err.code === 'string' && err.code === 'ETIMEDOUT') {
    return new SluiceError('TIMEOUT', `${where}: timed out (ETIMEDOUT)`, { cause: e });
  }
  if (/no response from server|not connected|channel (is )?closed|connection (lost|closed)/i.test(serverText)) {
    return new SluiceError('CONNECTION_LOST', `${where}: connection lost (${displayText(serverText, 200)})`, {
      cause: e,
    });
  }
  if (/does not support this extended request/i.test(serverText)) {
    return new SluiceError(
      'REMOTE_FAILURE',
      `${where}: operation not supported by the server (${displayText(serverText, 200)})`,
      { cause: e },
    );
  }
  return new SluiceError('REMOTE_FAILURE', `${where}: ${displayText(serverText, 200)}`, { cause: e });
}
