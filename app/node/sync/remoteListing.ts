/**
 * The remote side of a sync: the synced folder walked over SFTP (walkTree in listing.ts), each folder read with the
 * worker's streamed READDIR (ConnectionPool.listEach: names as each SSH_FXP_NAME answer brings them, cancelled at once
 * by the signal). A link (SSH_FXP_READDIR's attributes are the link's own) is taken as get/put take it (listing.ts
 * linkEntry): SSH_FXP_REALPATH and STAT say whether it is a file inside the synced folder.
 */
import path from 'node:path';
import { SluiceError } from '../errors';
import type { RemoteEntry, RemoteStat } from '../ssh/workerProtocol';
import { linkEntry, walkTree, type Listing, type RawEntry, type WalkLimits } from './listing';

/** What the walk needs of a connection pool (ssh/connectionPool.ts ConnectionPool has all three). */
export interface RemoteLister {
  listEach(
    path: string,
    onNames: (names: RemoteEntry[]) => Promise<void> | void,
    signal?: AbortSignal,
  ): Promise<number>;
  stat(path: string): Promise<RemoteStat | null>;
  /** SSH_FXP_REALPATH; without it every link is left out. */
  realpath?(path: string): Promise<string>;
}

/** A remote link as get/put's policy takes it (listing.ts linkEntry): SSH_FXP_REALPATH and STAT of it. */
async function remoteLink(lister: RemoteLister, name: string, p: string, realRoot: string): Promise<RawEntry> {
  if (!lister.realpath) return linkEntry(name, null, null);
  const real = await lister.realpath(p).catch(() => null);
  const target = await lister.stat(p).catch(() => null);
  return linkEntry(
    name,
    target && { isDir: target.type === 'dir', size: target.size, mtimeMs: target.mtimeMs },
    real === null ? null : { path: real, inside: real.startsWith(`${realRoot}/`) },
  );
}

function remotePath(root: string, rel: string): string {
  return rel === '' ? root : path.posix.join(root, rel);
}

/**
 * The root folder's listing, sent while its STAT and REALPATH are still on their way: the names that come before the
 * walk takes the folder over wait (the worker reads on only when a batch is taken), then go to the walk as they come,
 * so its entry bound and its cancellation hold as for any folder.
 */
class RootAhead {
  private readonly cut = new AbortController();
  private batches: RemoteEntry[][] = [];
  private sink?: (names: RemoteEntry[]) => void;
  private open!: () => void;
  private readonly opened = new Promise<void>((resolve) => (this.open = resolve));
  private readonly reading: Promise<number>;

  constructor(lister: RemoteLister, root: string, signal?: AbortSignal) {
    if (signal?.aborted) this.cut.abort();
    else signal?.addEventListener('abort', () => this.cut.abort(), { once: true });
    this.reading = lister.listEach(
      root,
      async (names) => {
        if (this.sink) return this.sink(names);
        this.batches.push(names);
        await this.opened;
      },
      this.cut.signal,
    );
    this.reading.catch(() => undefined);
  }

  /** The walk reads the root: the names so far, then the rest; `signal` (the walk's own for this folder) cuts it. */
  async take(onNames: (names: RemoteEntry[]) => void, signal: AbortSignal): Promise<void> {
    signal.addEventListener('abort', () => this.cut.abort(), { once: true });
    for (const names of this.batches) onNames(names);
    this.batches = [];
    this.sink = onNames;
    this.open();
    await this.reading;
  }

  /** The root is missing or not a folder: the listing is stopped and its answer dropped. */
  drop(): void {
    this.cut.abort();
    this.open();
  }
}

/**
 * Remote folders a sync lists at once (walkTree's concurrency): each holds one handle while its OPENDIR, READDIRs and
 * CLOSE are in flight, and the worker spreads them over the channels as they open (the listing starts on the first).
 * A level of the tree that fits costs its two round trips once: 64 listed a level of 90 folders in two waves. 128 is
 * about 13 handles per channel at 10 channels; more channels, more at once (at most 256).
 * @param lanes the pool's channels open now
 */
export function foldersAtOnce(lanes: number): number {
  return Math.min(256, Math.max(128, lanes * 16));
}

/**
 * Lists a remote folder for a sync. The root's STAT, its REALPATH (for links) and its listing leave together: one
 * round trip instead of three before the walk fans out (a root that turns out missing or not a folder discards the
 * listing's answer, whatever it was).
 * @param root the synced folder, absolute or relative to the login folder (not `~`: expanded by the caller);
 *   when it does not exist the listing is empty with `rootExists` false
 * @throws SluiceError USAGE when `root` is not a folder, ABORTED when `limits.signal` fires, CONNECTION_* when
 *   the connection is lost; a folder the server refuses to list is a {@link Listing.errors} entry
 */
export async function listRemoteTree(lister: RemoteLister, root: string, limits: WalkLimits): Promise<Listing> {
  const ahead = new RootAhead(lister, root, limits.signal);
  // Only links need it: a server that cannot answer leaves the links out (no path lies inside NUL), not the listing.
  const real = lister.realpath ? lister.realpath(root).catch(() => '\0') : Promise.resolve(root);
  const st = await lister.stat(root).catch((e: unknown) => {
    ahead.drop();
    throw e;
  });
  if (!st || st.type !== 'dir') ahead.drop();
  if (st && st.type !== 'dir')
    throw new SluiceError('USAGE', `${root} is not a folder on the server (sync works on folders)`);
  const realRoot = st ? await real : root;
  const take = (
    rel: string,
    names: RemoteEntry[],
    onNames: (names: RawEntry[]) => void,
    links: Array<Promise<RawEntry>>,
  ) => {
    const plain = names.filter((e) => e.type !== 'symlink');
    onNames(plain.map((e) => ({ name: e.name, kind: e.type, size: e.size, mtimeMs: e.mtimeMs })));
    for (const e of names)
      if (e.type === 'symlink')
        links.push(remoteLink(lister, e.name, remotePath(remotePath(root, rel), e.name), realRoot));
  };
  const read = async (rel: string, onNames: (names: RawEntry[]) => void, signal: AbortSignal): Promise<void> => {
    const links: Array<Promise<RawEntry>> = [];
    const each = (names: RemoteEntry[]) => take(rel, names, onNames, links);
    if (rel === '') await ahead.take(each, signal);
    else await lister.listEach(remotePath(root, rel), each, signal);
    if (links.length) onNames(await Promise.all(links));
  };
  // SFTP v3 times are whole seconds (draft-ietf-secsh-filexfer-02 §5: ATTR_ACMODTIME, uint32 seconds).
  return { ...(await walkTree(read, limits, st !== null)), timePrecisionMs: 1000 };
}
