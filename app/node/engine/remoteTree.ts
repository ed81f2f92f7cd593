/**
 * A remote folder tree listed with many folders at once (`sluice ls -R`, `chmod -R`, `rm -r`'s walk): every folder
 * found is listed as soon as a request slot is free, across the whole tree, instead of one READDIR after another as
 * OpenSSH's sftp and lftp do. With `follow` (ls -L), symlinks to folders are entered, and each folder is listed
 * once: a link to a folder already listed (a loop, when it is one of its own parents) is reported, not entered.
 */
import { SluiceError, displayText } from '../errors';
import type { RemoteEntry } from '../ssh/workerProtocol';
import { DEFAULT_MAX_DEPTH } from '../transfer/scan';
import { remoteChild, type InFlight, type RemoteFiles } from './remoteFiles';

/** Entries one walk lists at most: a server inventing folders without end cannot grow memory without end. */
export const MAX_TREE_ENTRIES = 5_000_000;

/** A listed name, with what a symlink names when asked for (`targets`). */
export interface TreeEntry extends RemoteEntry {
  /** SSH_FXP_READLINK of a symlink (with `targets`). */
  target?: string;
  /** With `follow`: the type of what a symlink points to (undefined: a dangling link). */
  targetType?: RemoteEntry['type'];
}

/** One folder of the tree, its listing promised as soon as its READDIRs are answered. */
export interface TreeFolder {
  /** The remote path as walked (through links, with `follow`). */
  path: string;
  depth: number;
  /** Its entries in name order (byte order of the UTF-16 names, as sftp's strcmp); rejects with the listing's error. */
  listing: Promise<TreeEntry[]>;
  /** Its sub-folders to walk, in name order; filled before `listing` resolves. */
  children: TreeFolder[];
}

/** A link not entered: `kind` loop (it names one of its own parent folders) or seen (a folder listed elsewhere). */
export interface SkippedLink {
  path: string;
  target: string;
  kind: 'loop' | 'seen' | 'depth';
}

export interface WalkOptions {
  inFlight: InFlight;
  /** Owner, group, access time and the server's `ls -l` line of each entry. */
  long?: boolean;
  /** READLINK every symlink listed. */
  targets?: boolean;
  /** Enter symlinks to folders (each folder once). */
  follow?: boolean;
  /** Which sub-folders to enter (ls -R without -a: not the hidden ones); default all. */
  enter?: (e: TreeEntry) => boolean;
  /** Folders deeper than this below the root are not entered (default transfer/scan.ts DEFAULT_MAX_DEPTH). */
  maxDepth?: number;
  onSkipped?: (s: SkippedLink) => void;
  signal?: AbortSignal;
}

const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** A walk's shared state: the folders seen (by canonical path, with `follow`) and the entries counted. */
class Walk {
  private readonly seen = new Set<string>();
  private entries = 0;

  constructor(
    private readonly files: RemoteFiles,
    private readonly o: WalkOptions,
  ) {}

  /** Lists `dir` (whose canonical path is `canonical`, with `follow`) and schedules its sub-folders. */
  folder(dir: string, depth: number, canonical: string, ancestors: readonly string[]): TreeFolder {
    this.seen.add(canonical);
    const node: TreeFolder = { path: dir, depth, children: [], listing: Promise.resolve([]) };
    node.listing = this.list(node, canonical, [...ancestors, canonical]);
    // A listing nobody awaits (a caller that stopped at the first error) must not be an unhandled rejection.
    node.listing.catch(() => undefined);
    return node;
  }

  private async list(node: TreeFolder, canonical: string, lineage: readonly string[]): Promise<TreeEntry[]> {
    const names: TreeEntry[] = [];
    await this.o.inFlight.run(() =>
      this.files.pool.call(
        'listEach',
        { path: node.path, long: this.o.long },
        {
          signal: this.o.signal,
          onItems: (batch) => {
            this.entries += batch.length;
            if (this.entries > MAX_TREE_ENTRIES) {
              throw new SluiceError(
                'REMOTE_FAILURE',
                `the tree under ${displayText(node.path)} lists more than ` +
                  `${MAX_TREE_ENTRIES.toLocaleString('en-US')} entries, the limit of one walk; not listed further`,
              );
            }
            names.push(...(batch as TreeEntry[]));
          },
        },
      ),
    );
    names.sort(byName);
    await Promise.all(names.map((e) => this.examine(node.path, e)));
    for (const e of names) {
      const sub = this.subFolder(node, e, canonical, lineage);
      if (sub) node.children.push(sub);
    }
    return names;
  }

  /** READLINK of a symlink (with `targets`), and what it points to (with `follow`). */
  private async examine(dir: string, e: TreeEntry): Promise<void> {
    if (e.type !== 'symlink' || (!this.o.targets && !this.o.follow)) return;
    const p = remoteChild(dir, e.name);
    const tasks: Array<Promise<void>> = [];
    if (this.o.targets)
      tasks.push(
        this.o.inFlight
          .run(() => this.files.readlink(p))
          .then(
            (t) => {
              e.target = t;
            },
            () => undefined,
          ),
      );
    if (this.o.follow)
      tasks.push(
        this.o.inFlight
          .run(() => this.files.pool.call('stat', { path: p }))
          .then(
            (st) => {
              e.targetType = st?.type;
            },
            () => undefined,
          ),
      );
    await Promise.all(tasks);
  }

  /** The sub-folder an entry leads to, if it is to be walked; a link to a folder seen before is reported instead. */
  private subFolder(
    parent: TreeFolder,
    e: TreeEntry,
    canonical: string,
    lineage: readonly string[],
  ): TreeFolder | undefined {
    const isDir = e.type === 'dir' || (this.o.follow === true && e.type === 'symlink' && e.targetType === 'dir');
    if (!isDir || (this.o.enter && !this.o.enter(e))) return undefined;
    const p = remoteChild(parent.path, e.name);
    if (parent.depth + 1 > (this.o.maxDepth ?? DEFAULT_MAX_DEPTH)) {
      this.o.onSkipped?.({ path: p, target: '', kind: 'depth' });
      return undefined;
    }
    if (e.type === 'dir') return this.folder(p, parent.depth + 1, remoteChild(canonical, e.name), lineage);
    // A link: its canonical path decides whether it was listed already; the walk goes on meanwhile.
    const link: TreeFolder = { path: p, depth: parent.depth + 1, children: [], listing: Promise.resolve([]) };
    link.listing = this.o.inFlight
      .run(() => this.files.pool.realpath(p))
      .then((real) => {
        if (this.seen.has(real)) {
          this.o.onSkipped?.({ path: p, target: real, kind: lineage.includes(real) ? 'loop' : 'seen' });
          return [];
        }
        const sub = this.folder(p, parent.depth + 1, real, lineage);
        link.children = sub.children;
        return sub.listing;
      });
    link.listing.catch(() => undefined);
    return link;
  }
}

/**
 * Starts walking the tree under `root` (a folder; `~` paths resolved by the caller). Folders are listed as request
 * slots free up; the result's `listing` and each child's resolve as their READDIRs are answered.
 * @param canonical the root's canonical path (SSH_FXP_REALPATH), for `follow`'s loop check; default `root`
 */
export function walkTree(files: RemoteFiles, root: string, o: WalkOptions, canonical = root): TreeFolder {
  return new Walk(files, o).folder(root, 0, canonical, []);
}

/**
 * Visits every folder of a walk in `ls -R` order (a folder, then its sub-folders in name order, depth first),
 * each once its listing is in; a folder whose listing failed is handed over with its error.
 * @throws what `visit` throws (the walk's other listings are then left to end by themselves)
 */
export async function eachInOrder(
  node: TreeFolder,
  visit: (f: TreeFolder, entries: TreeEntry[] | undefined, error?: SluiceError) => void | Promise<void>,
): Promise<void> {
  let entries: TreeEntry[] | undefined;
  let error: SluiceError | undefined;
  try {
    entries = await node.listing;
  } catch (e) {
    error = SluiceError.from(e);
    if (error.code === 'ABORTED') throw error;
  }
  await visit(node, entries, error);
  for (const child of node.children) await eachInOrder(child, visit);
}
