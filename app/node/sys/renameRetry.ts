/**
 * Renames that wait out a file held open elsewhere. On Windows, MoveFileEx fails with EPERM, EACCES or EBUSY while an
 * editor, an antivirus scanner, OneDrive or the search indexer has the source or the target open without sharing its
 * deletion; such holds last milliseconds to seconds. graceful-fs (polyfills.js, `fs.rename` on win32) retries these
 * renames with a growing backoff for up to 60 s; ours wait at most RENAME_RETRY_MS, so a file held for good is
 * reported within seconds. On other platforms EPERM and EACCES are a real refusal and fail at once; EBUSY (a network
 * file system's server holding the file) is retried there too.
 */
import fs from 'node:fs';

/** The longest time a rename is tried again, ms. */
export const RENAME_RETRY_MS = 10_000;
/** The backoff grows by this much per try, ms (graceful-fs: 10 ms steps)… */
const BACKOFF_STEP_MS = 10;
/** …up to this, ms (graceful-fs: 100 ms). */
const BACKOFF_MAX_MS = 100;

/** What a test can replace: the platform, the rename itself, the clock and the limit. */
export interface RenameRetryOptions {
  platform?: NodeJS.Platform;
  /** The rename tried (default fs.promises.rename, or fs.renameSync for renameSyncRetrying). */
  rename?: (from: string, to: string) => Promise<void> | void;
  /** Overall limit, ms (default RENAME_RETRY_MS). */
  limitMs?: number;
}

/** Whether a rename that failed with `code` on `platform` is worth trying again: someone holds the file. */
export function isTransientRenameError(code: string | undefined, platform = process.platform): boolean {
  if (code === 'EBUSY') return true;
  return platform === 'win32' && (code === 'EPERM' || code === 'EACCES');
}

/**
 * `fs.promises.rename(from, to)`, tried again while it fails with a transient error (isTransientRenameError), with a
 * backoff of 10, 20 … 100 ms, for at most `limitMs` (RENAME_RETRY_MS).
 * @throws the last error of the rename (any other error at once)
 */
export async function renameRetrying(from: string, to: string, opts: RenameRetryOptions = {}): Promise<void> {
  const rename = opts.rename ?? ((a: string, b: string) => fs.promises.rename(a, b));
  const start = Date.now();
  for (let backoff = BACKOFF_STEP_MS; ; backoff = Math.min(backoff + BACKOFF_STEP_MS, BACKOFF_MAX_MS)) {
    try {
      await rename(from, to);
      return;
    } catch (e) {
      if (!isTransientRenameError((e as NodeJS.ErrnoException).code, opts.platform)) throw e;
      if (Date.now() - start + backoff > (opts.limitMs ?? RENAME_RETRY_MS)) throw e;
      await new Promise((resolve) => setTimeout(resolve, backoff));
    }
  }
}

/** Blocks the thread for `ms` (a synchronous store's retry: no event loop turn to wait in). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The synchronous {@link renameRetrying}, for stores written synchronously (the secrets file). */
export function renameSyncRetrying(from: string, to: string, opts: RenameRetryOptions = {}): void {
  const rename = opts.rename ?? ((a: string, b: string) => fs.renameSync(a, b));
  const start = Date.now();
  for (let backoff = BACKOFF_STEP_MS; ; backoff = Math.min(backoff + BACKOFF_STEP_MS, BACKOFF_MAX_MS)) {
    try {
      void rename(from, to);
      return;
    } catch (e) {
      if (!isTransientRenameError((e as NodeJS.ErrnoException).code, opts.platform)) throw e;
      if (Date.now() - start + backoff > (opts.limitMs ?? RENAME_RETRY_MS)) throw e;
      sleepSync(backoff);
    }
  }
}
