/**
 * What a job's scan (scan.ts) hands on, and what its two folder walks share: the sink that takes each file as it is
 * found, a bounded concurrency over sub-folders, remote path joins.
 */
import type { SluiceError } from '../errors';

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
  /**
   * How the scan read the destination: a folder the sources go into (`isDir`), or their new name; `fresh` when it
   * was read now, not taken from an earlier try or run (then it is recorded for the next ones).
   */
  destination(isDir: boolean, fresh: boolean): void;
  /** True once the job was interrupted: the walk stops. */
  stopped(): boolean;
  /** Fires when the job is interrupted: a listing under way is cancelled at once. */
  signal?: AbortSignal;
}

/** Sub-folders a walk lists at once. */
export const WALK_CONCURRENCY = 16;

/** Runs `fn` over items with at most `limit` at a time. */
export async function eachLimited<T>(items: T[], limit: number, fn: (t: T) => Promise<void>): Promise<void> {
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
