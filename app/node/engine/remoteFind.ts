/**
 * The remote find (#26 item 5, app/common/ipc/find.ts; the app's Find dialog through service/remoteFind.ts, and
 * `sluice find`): the tree under a folder walked by engine/remoteTree.ts (64
 * requests in flight across folders, symlinks to folders entered and each folder listed once, so a loop is visited
 * once and reported), every name tested against the pattern (app/common/namePattern.ts), matches sent in batches as
 * `find.hits` events at most every {@link FLUSH_MS}. Bounded in matches sent and folders listed; a cancel ends it at
 * once (the listings in flight are abandoned by the walk's signal).
 */
import {
  FIND_MAX_FOLDERS,
  FIND_MAX_NOTES,
  FIND_MAX_RESULTS,
  type FindHit,
  type FindHits,
  type FindNote,
  type FindReport,
} from '../../common/ipc/find';
import { namePattern } from '../../common/namePattern';
import { FILE_OPS_IN_FLIGHT, InFlight, type RemoteFiles } from './remoteFiles';
import { walkTree, type SkippedLink, type TreeFolder } from './remoteTree';
import { SluiceError } from '../errors';

/** How often matches found meanwhile are sent, ms. */
export const FLUSH_MS = 100;

/** What a find looks for and where (app/common/ipc/find.ts's request without the site). */
export interface FindRequest {
  findId: string;
  root: string;
  pattern: string;
  match: 'substring' | 'glob';
  caseSensitive?: boolean;
  maxResults?: number;
  maxFolders?: number;
}

/** One find's counters and the batch not sent yet. */
class FindRun {
  folders = 0;
  matched = 0;
  shown = 0;
  entered = 1;
  folderLimit = false;
  private notesSent = 0;
  moreNotes = 0;
  /** Links the walk did not enter: their (empty) listings are not folders listed. */
  readonly skipped = new Set<string>();
  private hits: FindHit[] = [];
  private notes: FindNote[] = [];
  readonly matches: (name: string) => boolean;
  private readonly maxResults: number;
  private readonly maxFolders: number;

  constructor(
    readonly req: FindRequest,
    private readonly send: (batch: FindHits) => void,
  ) {
    this.matches = namePattern(req.pattern, req.match, req.caseSensitive ?? false);
    this.maxResults = req.maxResults ?? FIND_MAX_RESULTS;
    this.maxFolders = req.maxFolders ?? FIND_MAX_FOLDERS;
  }

  /** Whether the walk may enter one more folder (else the folder bound was reached). */
  enter(): boolean {
    if (this.entered >= this.maxFolders) {
      this.folderLimit = true;
      return false;
    }
    this.entered++;
    return true;
  }

  found(hit: FindHit): void {
    this.matched++;
    if (this.shown >= this.maxResults) return;
    this.shown++;
    this.hits.push(hit);
  }

  note(n: FindNote): void {
    if (this.notesSent + this.notes.length >= FIND_MAX_NOTES) this.moreNotes++;
    else this.notes.push(n);
  }

  flush(): void {
    if (this.hits.length === 0 && this.notes.length === 0) return;
    const batch = { findId: this.req.findId, hits: this.hits, folders: this.folders, matched: this.matched };
    this.notesSent += this.notes.length;
    this.send({ ...batch, notes: this.notes });
    this.hits = [];
    this.notes = [];
  }
}

/** A link the walk did not enter, as a note. */
function skippedNote(s: SkippedLink): FindNote {
  return { path: s.path, kind: s.kind, detail: s.target };
}

/** Waits for a folder's listing, matches its names, then does the same for its sub-folders (all at once). */
async function visit(node: TreeFolder, run: FindRun, signal: AbortSignal): Promise<void> {
  let entries;
  try {
    entries = await node.listing;
  } catch (e) {
    if (!signal.aborted) run.note({ path: node.path, kind: 'error', detail: SluiceError.from(e).message });
    return;
  }
  if (run.skipped.has(node.path)) return;
  run.folders++;
  for (const e of entries) {
    if (!run.matches(e.name)) continue;
    run.found({ dir: node.path, name: e.name, type: e.type, size: e.size, mtimeMs: e.mtimeMs });
  }
  await Promise.all(node.children.map((c) => visit(c, run, signal)));
}

/**
 * Runs a find to its end (all folders listed, the folder bound, or `signal`), sending matches to `send` in batches.
 * @throws the server's message when the root itself cannot be resolved
 */
export async function findRemote(
  files: RemoteFiles,
  req: FindRequest,
  signal: AbortSignal,
  send: (batch: FindHits) => void,
): Promise<FindReport> {
  const p = req.root;
  const root = await files.pool.realpath(p === '~' ? '.' : p.startsWith('~/') ? p.slice(2) : p);
  const run = new FindRun(req, send);
  const tree = walkTree(
    files,
    root,
    {
      inFlight: new InFlight(FILE_OPS_IN_FLIGHT, signal),
      follow: true,
      enter: () => run.enter(),
      onSkipped: (s) => {
        run.skipped.add(s.path);
        run.note(skippedNote(s));
      },
      signal,
    },
    root,
  );
  const timer = setInterval(() => run.flush(), FLUSH_MS);
  const aborted = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  try {
    await Promise.race([visit(tree, run, signal), aborted]);
  } finally {
    clearInterval(timer);
  }
  run.flush();
  const ended = signal.aborted ? 'cancelled' : run.folderLimit ? 'folderLimit' : 'done';
  return {
    findId: req.findId,
    root,
    ended,
    folders: run.folders,
    matched: run.matched,
    shown: run.shown,
    moreNotes: run.moreNotes,
  };
}
