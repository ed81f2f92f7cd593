/**
 * The one error type of Sluice, shared by every process: the engine, the service, IPC, the CLI and the renderer
 * (which reads codes as data). Every failure that leaves a module is a {@link SluiceError} with a stable
 * {@link ErrorCode}; it crosses worker_threads and IPC as plain `{code, message}` data (ipc/result.ts) and maps to
 * one CLI exit code. Mapping Node fs and SFTP errors onto it is the engine's (app/node/errors.ts).
 */

/** Stable machine-readable failure codes. */
export type ErrorCode =
  | 'USAGE'
  | 'AUTH_FAILED'
  | 'HOSTKEY_UNKNOWN'
  | 'HOSTKEY_CHANGED'
  | 'HOSTKEY_REVOKED'
  | 'HOSTKEY_REJECTED'
  | 'NO_SUCH_FILE'
  | 'PERMISSION_DENIED'
  | 'LOCAL_IO'
  | 'DISK_FULL'
  | 'UNSAFE_NAME'
  | 'CONNECTION_LOST'
  /** The server's port refused the TCP connection (nothing listens, or a firewall rejects): never connected. */
  | 'CONNECTION_REFUSED'
  | 'CONNECTION_STALLED'
  | 'TIMEOUT'
  | 'VERIFY_FAILED'
  | 'ABORTED'
  | 'REMOTE_FAILURE'
  | 'EXISTS'
  | 'UNSUPPORTED_KEY'
  /** An upload's local source changed while it was sent (size or modification time): nothing mixed is committed. */
  | 'SOURCE_CHANGED'
  /** The server's name does not resolve (getaddrinfo ENOTFOUND, EAI_AGAIN): a mistyped host or alias, or no DNS. */
  | 'HOST_NOT_FOUND'
  /**
   * The server and Sluice share no algorithm of a family (RFC 4253 §7.1: no matching cipher, MAC, key exchange, host
   * key).
   */
  | 'NEGOTIATION_FAILED'
  // The service's and IPC's own (app/common/ipc/contract.ts IpcErrorCode).
  | 'INVALID_REQUEST'
  | 'UNKNOWN_CHANNEL'
  | 'FORBIDDEN_SENDER'
  | 'NOT_FOUND'
  | 'NOT_CONNECTED'
  | 'FOLDER_NOT_EMPTY'
  | 'INSECURE_SECRET_STORAGE'
  | 'INVALID_STATE'
  | 'INTERNAL';

/** CLI exit code per error code (0 is success and has no error code). */
const EXIT_CODES: Readonly<Record<ErrorCode, number>> = {
  CONNECTION_LOST: 1,
  CONNECTION_REFUSED: 1,
  CONNECTION_STALLED: 1,
  TIMEOUT: 1,
  VERIFY_FAILED: 1,
  REMOTE_FAILURE: 1,
  EXISTS: 1,
  UNSAFE_NAME: 1,
  SOURCE_CHANGED: 1,
  NEGOTIATION_FAILED: 1,
  USAGE: 2,
  AUTH_FAILED: 3,
  UNSUPPORTED_KEY: 3,
  HOSTKEY_UNKNOWN: 4,
  HOSTKEY_CHANGED: 4,
  HOSTKEY_REVOKED: 4,
  HOSTKEY_REJECTED: 4,
  NO_SUCH_FILE: 5,
  PERMISSION_DENIED: 5,
  LOCAL_IO: 6,
  DISK_FULL: 6,
  HOST_NOT_FOUND: 7,
  ABORTED: 130,
  INVALID_REQUEST: 2,
  UNKNOWN_CHANNEL: 2,
  FORBIDDEN_SENDER: 1,
  NOT_FOUND: 5,
  NOT_CONNECTED: 1,
  FOLDER_NOT_EMPTY: 1,
  INSECURE_SECRET_STORAGE: 1,
  INVALID_STATE: 1,
  INTERNAL: 1,
};

/** Every {@link ErrorCode}, for validation of codes that arrive as data. */
export const ERROR_CODES: readonly ErrorCode[] = Object.keys(EXIT_CODES) as ErrorCode[];

/** True when `code` is one of the {@link ErrorCode}s. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(EXIT_CODES, code);
}

/** The serialisable form of a {@link SluiceError} (same shape as `ErrorInfo` in ipc/result.ts). */
export interface SluiceErrorInfo {
  code: string;
  message: string;
}

/** The one error type of Sluice: a code, a message safe to show (never a secret), and an optional cause. */
export class SluiceError extends Error {
  readonly code: ErrorCode;

  /**
   * @param code stable failure code, see {@link exitCodeFor}
   * @param message human-readable text naming the path/host involved; must never contain secrets
   * @param opts.cause the underlying error (kept locally, never serialised)
   */
  constructor(code: ErrorCode, message: string, opts?: { cause?: unknown }) {
    super(message, opts?.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'SluiceError';
    this.code = code;
  }

  /** `{code, message}`: what crosses worker_threads and IPC. */
  toInfo(): SluiceErrorInfo {
    return { code: this.code, message: this.message };
  }

  /**
   * `e` itself when it is a SluiceError; INTERNAL for a programming error of ours (TypeError, RangeError,
   * ReferenceError, SyntaxError: nothing the server did, and not worth a retry as a remote failure would be);
   * else a REMOTE_FAILURE; each carrying `e`'s message and `e` as the cause.
   */
  static from(e: unknown): SluiceError {
    if (e instanceof SluiceError) return e;
    const code = isProgrammingError(e) ? 'INTERNAL' : 'REMOTE_FAILURE';
    return new SluiceError(code, (e as Error)?.message ?? String(e), { cause: e });
  }

  /** Rebuilds an error from {@link toInfo} data (unknown codes become REMOTE_FAILURE). */
  static fromInfo(info: { code: string; message: string }): SluiceError {
    return new SluiceError(isErrorCode(info.code) ? info.code : 'REMOTE_FAILURE', String(info.message));
  }
}

/** A JavaScript engine error: a bug in the code that threw it, not a refusal of the server or the system. */
function isProgrammingError(e: unknown): boolean {
  return e instanceof TypeError || e instanceof RangeError || e instanceof ReferenceError || e instanceof SyntaxError;
}

/**
 * True for a code that interrupts a transfer rather than refusing it (ABORTED, CONNECTION_*, TIMEOUT): running the
 * same job again may finish it, and a partial copy the resume journal holds is worth keeping.
 */
export function isInterruption(code: string): boolean {
  return code === 'ABORTED' || code.startsWith('CONNECTION') || code === 'TIMEOUT';
}

/** True when `e` is a {@link SluiceError} (optionally with the given code). */
export function isSluiceError(e: unknown, code?: ErrorCode): e is SluiceError {
  return e instanceof SluiceError && (code === undefined || e.code === code);
}

/**
 * CLI exit code for an error code: 1 transfer failed (CONNECTION_*, TIMEOUT, VERIFY_FAILED, REMOTE_FAILURE,
 * EXISTS, UNSAFE_NAME), 2 usage, 3 auth (AUTH_FAILED, UNSUPPORTED_KEY), 4 host key (HOSTKEY_*),
 * 5 remote not found / permission denied, 6 local (LOCAL_IO, DISK_FULL), 7 host not found (HOST_NOT_FOUND),
 * 130 ABORTED (128 + SIGINT).
 * Success is 0 and has no code.
 */
export function exitCodeFor(code: ErrorCode): number {
  return EXIT_CODES[code] ?? 1;
}
