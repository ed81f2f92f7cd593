/**
 * Result envelope: errors cross process boundaries (IPC, worker messages) as data, never as thrown exceptions.
 */
export interface ErrorInfo {
  /** Stable machine-readable code, e.g. `HOSTKEY_CHANGED`, `AUTH_FAILED`, `NO_SUCH_FILE`. */
  code: string;
  /** Human-readable text, safe to show (never contains secrets). */
  message: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: ErrorInfo };

/** Wraps a value as a successful {@link Result}. */
export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

/** Wraps an error code and message as a failed {@link Result}. */
export function err<T = never>(code: string, message: string): Result<T> {
  return { ok: false, error: { code, message } };
}
