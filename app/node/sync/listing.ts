/**
 * A sync's view of one side: every file and folder below the synced folder (relative, `/`-separated paths), the
 * folders that could not be listed, and what was left out. {@link walkTree} is the walk both sides share: bounded in
 * depth and in entries, cancelled by a signal, filtered as it goes (an excluded folder is not listed); the local and
 * the remote side (localListing.ts, remoteListing.ts) only read one folder each.
 */
import { SluiceError, isInterruption } from '../errors';
import type { PathFilter } from './filters';

/**
 * A file or folder as a listing saw it. Special files are not listed, nor links but to a file inside the synced folder
 * ({@link linkEntry}; see {@link Listing.skipped}).
 */
export interface ListedEntry {
  kind: 'file' | 'dir';
  /** Bytes (0 for a folder). */
  size: number;
  /** Modification time, ms since epoch. */
  mtimeMs: number;
}

/** A folder the listing could not read: deletions are withheld (plan.ts) when there is any. */
export interface ListingError {
  /** Relative path of the folder ('' for the synced folder itself). */
  path: string;
  code: string;
  message: string;
}

/** One side of a sync, listed. */
export interface Listing {
  /** Every file and folder found below the root, by relative path (the root itself is not an entry). */
  entries: Map<string, ListedEntry>;
  errors: ListingError[];
  /** Paths left out and why (symlinks, special files, unsafe or repeated names); never deleted, never copied. */
  skipped: Array<{ path: string; reason: string }>;
  /** False when the walk stopped early (entry bound): deletions are withheld. */
  complete: boolean;
  /** False when the synced folder does not exist (DEST before its first sync). */
  rootExists: boolean;
  /** How finely this side keeps modification times, ms: 1 on a local disk, 1000 over SFTP v3 (whole seconds). */
  timePrecisionMs: number;
}

/** A name as one folder's reading returns it. */
export interface RawEntry {
  name: string;
  kind: 'file' | 'dir' | 'symlink' | 'other';
  size: number;
  mtimeMs: number;
  /** A link left out: why (linkEntry). */
  linkReason?: string;
}

/**
 * get's and put's symlink policy for a sync (TransferRequest.followSymlinks false): a link to a file inside the synced
 * folder stands for that file (its size and time; the copy reads through it); a link to a folder, to a file outside
 * the folder, or to nothing is left out, with the reason.
 * @param target what the link resolves to (stat, following links), null when it resolves to nothing
 * @param real the link's resolved path (realpath), and whether it lies inside the synced folder
 */
export function linkEntry(
  name: string,
  target: { isDir: boolean; size: number; mtimeMs: number } | null,
  real: { path: string; inside: boolean } | null,
): RawEntry {
  const left = (linkReason: string): RawEntry => ({ name, kind: 'symlink', size: 0, mtimeMs: 0, linkReason });
  if (!target || !real) return left('a symlink whose target does not exist');
  if (target.isDir) return left('a folder symlink (sync does not follow folder links)');
  if (!real.inside) return left(`a symlink to ${real.path}, outside the folder being synced`);
  return { name, kind: 'file', size: target.size, mtimeMs: Math.trunc(target.mtimeMs) };
}

/** Bounds and cancellation of a walk. */
export interface WalkLimits {
  filter: PathFilter;
  signal?: AbortSignal;
  /** Entries kept at most (default {@link DEFAULT_MAX_ENTRIES}); more is an error (the listing is incomplete). */
  maxEntries?: number;
  /** Folders nested deeper than this are an error, not walked (default 64, as OpenSSH's sftp). */
  maxDepth?: number;
  /** Folders read at once (default 8). */
  concurrency?: number;
}

/** Reads one folder (`rel`, '' for the root), handing its names over in batches; throws what the read fails with. */
export type ReadFolder = (rel: string, onNames: (names: RawEntry[]) => void, signal: AbortSignal) => Promise<void>;

/** Entries a listing holds at most by default: 2 million (about 400 MB of plan at the worst). */
export const DEFAULT_MAX_ENTRIES = 2_000_000;

/** Why a name from a listing cannot be a path of the plan, or undefined when it can. */
function unsafeName(name: string): string | undefined {
  if (name === '' || name === '.' || name === '..') return `the name ${JSON.stringify(name)} is not a file name`;
  if (name.includes('/') || name.includes('\0')) return 'the name holds a / or a NUL';
  return undefined;
}

/** Runs `fn` over a growing queue with at most `limit` at a time. */
async function drain<T>(queue: T[], limit: number, fn: (t: T) => Promise<void>): Promise<void> {
  let running = 0;
  await new Promise<void>((resolve, reject) => {
    const next = (): void => {
      if (!queue.length && running === 0) {
        resolve();
        return;
      }
      while (queue.length && running < limit) {
        const item = queue.shift() as T;
        running++;
        fn(item).then(() => {
          running--;
          next();
        }, reject);
      }
    };
    next();
  });
}

/** Keeps one folder's names: files and folders the filter lets through; returns the folders to walk. */
function takeNames(l: Listing, rel: string, names: RawEntry[], seen: Set<string>): string[] {
  const dirs: string[] = [];
  for (const e of names) {
    const path = rel === '' ? e.name : `${rel}/${e.name}`;
    const unsafe = unsafeName(e.name);
    if (unsafe) {
      l.skipped.push({ path: `${rel}/${e.name}`, reason: unsafe });
      continue;
    }
    if (seen.has(e.name)) {
      l.skipped.push({ path, reason: 'listed twice in one folder: the first kept' });
      continue;
    }
    seen.add(e.name);
    if (e.kind === 'symlink') {
      l.skipped.push({ path, reason: e.linkReason ?? 'a symlink' });
      continue;
    }
    if (e.kind === 'other') {
      l.skipped.push({ path, reason: 'not a regular file or folder' });
      continue;
    }
    l.entries.set(path, { kind: e.kind, size: e.kind === 'file' ? e.size : 0, mtimeMs: e.mtimeMs });
    if (e.kind === 'dir') dirs.push(path);
  }
  return dirs;
}

/** A promise that rejects ABORTED when `signal` fires (never otherwise); handled, so it cannot go unobserved. */
function cancelledBy(signal: AbortSignal | undefined): Promise<never> {
  const cancelled = new Promise<never>((_, reject) => {
    const fire = (): void => reject(new SluiceError('ABORTED', 'listing cancelled'));
    if (signal?.aborted) fire();
    else signal?.addEventListener('abort', fire, { once: true });
  });
  cancelled.catch(() => undefined);
  return cancelled;
}

/**
 * Walks a tree from its root: every folder read once through `read`, `concurrency` at a time. A folder that cannot
 * be read is recorded in {@link Listing.errors} and the walk goes on; a lost connection, a timeout or the signal
 * ends the walk (thrown). Excluded paths (`filter`) are neither kept nor walked.
 * @param rootExists false for a DEST that does not exist yet: an empty, complete listing
 * @throws SluiceError ABORTED when `signal` fires, CONNECTION_* / TIMEOUT from `read`
 */
export async function walkTree(read: ReadFolder, limits: WalkLimits, rootExists = true): Promise<Listing> {
  const listing: Listing = {
    entries: new Map(),
    errors: [],
    skipped: [],
    complete: true,
    rootExists,
    timePrecisionMs: 1,
  };
  if (!rootExists) return listing;
  const maxEntries = limits.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const maxDepth = limits.maxDepth ?? 64;
  const queue: string[] = [''];
  let counted = 0;
  const cancelled = cancelledBy(limits.signal);
  const overflow = (rel: string): void => {
    if (!listing.complete) return;
    listing.complete = false;
    listing.errors.push({
      path: rel,
      code: 'REMOTE_FAILURE',
      message: `more than ${maxEntries} entries: listing stopped`,
    });
    queue.length = 0;
  };
  const readOne = async (rel: string): Promise<void> => {
    if (limits.signal?.aborted) throw new SluiceError('ABORTED', 'listing cancelled');
    if (!listing.complete) return;
    const depth = rel === '' ? 0 : rel.split('/').length;
    if (depth > maxDepth) {
      listing.errors.push({
        path: rel,
        code: 'REMOTE_FAILURE',
        message: `nested deeper than ${maxDepth} levels, not listed`,
      });
      return;
    }
    const batches: RawEntry[][] = [];
    const folder = new AbortController();
    const onAbort = (): void => folder.abort();
    limits.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const reading = read(
        rel,
        (names) => {
          batches.push(names);
          counted += names.length;
          // Counted as the names arrive: a folder that never ends is cut here, not after it ends.
          if (counted > maxEntries) {
            overflow(rel);
            folder.abort();
          }
        },
        folder.signal,
      );
      // The worker stops sending READDIRs on abort but waits for one in flight; the walk does not wait for it.
      await Promise.race([reading, cancelled]);
    } catch (err) {
      const e = SluiceError.from(err);
      if (limits.signal?.aborted || (isInterruption(e.code) && listing.complete)) throw e;
      if (listing.complete) listing.errors.push({ path: rel, code: e.code, message: e.message });
    } finally {
      limits.signal?.removeEventListener('abort', onAbort);
    }
    if (!listing.complete) return;
    const seen = new Set<string>();
    for (const names of batches) {
      const kept = names.filter((n) =>
        limits.filter.includes(rel === '' ? n.name : `${rel}/${n.name}`, n.kind === 'dir'),
      );
      queue.push(...takeNames(listing, rel, kept, seen));
    }
  };
  await drain(queue, limits.concurrency ?? 8, readOne);
  if (limits.signal?.aborted) throw new SluiceError('ABORTED', 'listing cancelled');
  return listing;
}
