/**
 * The plan of a two-way sync (`sluice sync --two-way`, #27): the local and the remote listing compared with the
 * stored listing of the last completed run (syncState.ts), as rclone bisync and Unison do, to tell on each side what
 * is new, changed and deleted since then. Pure: nothing is read or written here.
 *
 * - new or changed on one side only: copied to the other;
 * - changed on both sides to different contents: a conflict, both kept (the remote copy is renamed with
 *   {@link conflictName} and brought here, the local one goes there under the name);
 * - deleted on one side, unchanged on the other: deleted there (only when every listing completed); deleted on one side
 *   and changed on the other: the change wins and is copied back;
 * - without a stored listing (the first run) nothing is deleted: what one side lacks is copied, files that differ are
 *   conflicts kept both.
 */
import type { ListedEntry, Listing } from './listing';
import { totalsOf, type PlanItem, type SyncPlan } from './plan';

/** A file's size (bytes) and modification time (ms since epoch) on one side. */
export interface SideState {
  size: number;
  mtimeMs: number;
}

/** What the last completed run left at one path: its kind and, for a file, each side's size and time. */
export interface StoredEntry {
  kind: 'file' | 'dir';
  local?: SideState;
  remote?: SideState;
}

/** What a two-way plan does with a path. `kept`: a deletion withheld (a listing failed). */
export type TwoWayAction = 'upload' | 'download' | 'delete-remote' | 'delete-local' | 'conflict' | 'same' | 'skip';

export type TwoWayReason =
  | 'new-local'
  | 'new-remote'
  | 'changed-local'
  | 'changed-remote'
  | 'deleted-local'
  | 'deleted-remote'
  | 'changed-local-deleted-remote'
  | 'changed-remote-deleted-local'
  | 'changed-both'
  | 'differ-first-run'
  | 'unchanged'
  | 'same-contents'
  | 'kind-differs'
  | 'under-kind-differs'
  | 'deletion-withheld';

/** The text shown for each reason. */
export const TWO_WAY_REASON_TEXT: Record<TwoWayReason, string> = {
  'new-local': 'new here',
  'new-remote': 'new on the server',
  'changed-local': 'changed here',
  'changed-remote': 'changed on the server',
  'deleted-local': 'deleted here, unchanged on the server',
  'deleted-remote': 'deleted on the server, unchanged here',
  'changed-local-deleted-remote': 'changed here, deleted on the server: the change wins',
  'changed-remote-deleted-local': 'changed on the server, deleted here: the change wins',
  'changed-both': 'changed on both sides',
  'differ-first-run': 'differs, no earlier run to tell which changed',
  unchanged: 'unchanged',
  'same-contents': 'same size and time on both sides',
  'kind-differs': 'a file on one side, a folder on the other',
  'under-kind-differs': 'below a path that is a file on one side, a folder on the other',
  'deletion-withheld': 'deleted on one side: kept, a listing failed',
};

/** One path of a two-way plan (`/`-separated, relative to both roots). */
export interface TwoWayItem {
  path: string;
  kind: 'file' | 'dir';
  action: TwoWayAction;
  reason: TwoWayReason;
  local?: SideState;
  remote?: SideState;
  /** For a conflict: the name the server's copy gets (on both sides), relative as `path`. */
  conflictPath?: string;
}

/** How files are compared and what may be deleted. */
export interface TwoWayOptions {
  sizeOnly?: boolean;
  /** Times this close (ms) count as equal. */
  modifyWindowMs?: number;
  /** A plan deleting more than this many paths (both sides together) is refused. */
  maxDelete?: number;
  /** The suffix of a conflict's renamed copy, after `.conflict-` (e.g. `host-20261128-120000`). */
  conflictSuffix: string;
}

/** The plan of one two-way run. */
export interface TwoWayPlan {
  items: TwoWayItem[];
  /** True without a stored listing: nothing is deleted. */
  firstRun: boolean;
  /** Set when a deletion was due but none is planned: why. */
  deletionsWithheld?: string;
  /** Set when the plan must not run (more deletions than --max-delete, a side found empty): why. */
  refused?: string;
}

/**
 * Sluice's own temporary names (`.NAME.sluice-XXXXXXXX.part`, transfer/fileNames.ts): a copy of an interrupted run
 * in progress, resumed by the next run's batch. Neither side's is a file to sync.
 */
const TEMP_NAME = /(^|\/)\.[^/]*\.sluice-[0-9a-f]{8}\.part$/;

/** Whether `rel` is one of Sluice's temporary names (see {@link TEMP_NAME}). */
export function isTempName(rel: string): boolean {
  return TEMP_NAME.test(rel);
}

const side = (e: ListedEntry | undefined): SideState | undefined =>
  e && e.kind === 'file' ? { size: e.size, mtimeMs: e.mtimeMs } : undefined;

/** Whether two files differ: size, then time beyond `precisionMs` (and the window), as plan.ts's quick check. */
function differs(a: SideState, b: SideState, precisionMs: number, o: TwoWayOptions): boolean {
  if (a.size !== b.size) return true;
  if (o.sizeOnly) return false;
  const delta = Math.abs(a.mtimeMs - b.mtimeMs);
  return delta !== 0 && delta >= precisionMs && delta > (o.modifyWindowMs ?? 0);
}

/**
 * `dir/name.conflict-SUFFIX.ext` for `dir/name.ext` (the suffix before the last extension, so the file still opens
 * with its program; a name without one, or a dot file, gets it at the end), `-2`, `-3`… added while `taken` has it.
 */
export function conflictName(rel: string, suffix: string, taken: (p: string) => boolean): string {
  const slash = rel.lastIndexOf('/');
  const dir = rel.slice(0, slash + 1);
  const base = rel.slice(slash + 1);
  const dot = base.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [base.slice(0, dot), base.slice(dot)] : [base, ''];
  for (let n = 1; n < 1000; n++) {
    const p = `${dir}${stem}.conflict-${suffix}${n > 1 ? `-${n}` : ''}${ext}`;
    if (!taken(p)) return p;
  }
  return `${dir}${stem}.conflict-${suffix}-${Date.now()}${ext}`;
}

type Decision = Pick<TwoWayItem, 'action' | 'reason'>;

/** The decision for a file present on at least one side. */
function decideFile(
  l: SideState | undefined,
  r: SideState | undefined,
  s: StoredEntry | undefined,
  precision: { local: number; remote: number },
  o: TwoWayOptions,
): Decision {
  const both = Math.max(precision.local, precision.remote);
  if (!s || s.kind !== 'file') {
    if (l && r)
      return differs(l, r, both, o) ? { action: 'conflict', reason: 'differ-first-run' } : same('same-contents');
    return l ? { action: 'upload', reason: 'new-local' } : { action: 'download', reason: 'new-remote' };
  }
  const lChanged = l !== undefined && (!s.local || differs(l, s.local, precision.local, o));
  const rChanged = r !== undefined && (!s.remote || differs(r, s.remote, precision.remote, o));
  if (l && r) {
    if (lChanged && rChanged)
      return differs(l, r, both, o) ? { action: 'conflict', reason: 'changed-both' } : same('same-contents');
    if (lChanged) return { action: 'upload', reason: 'changed-local' };
    if (rChanged) return { action: 'download', reason: 'changed-remote' };
    return same('unchanged');
  }
  if (l) return lChanged ? { action: 'upload', reason: 'changed-local-deleted-remote' } : del('local', 'remote');
  return rChanged ? { action: 'download', reason: 'changed-remote-deleted-local' } : del('remote', 'local');
}

function same(reason: TwoWayReason): Decision {
  return { action: 'same', reason };
}

/** Deleting on side `on` what the other side deleted. */
function del(on: 'local' | 'remote', deletedOn: 'local' | 'remote'): Decision {
  return { action: on === 'local' ? 'delete-local' : 'delete-remote', reason: `deleted-${deletedOn}` };
}

/** The ancestors of `rel` ('a/b/c' → 'a', 'a/b'). */
function ancestors(rel: string): string[] {
  const out: string[] = [];
  for (let i = rel.indexOf('/'); i > 0; i = rel.indexOf('/', i + 1)) out.push(rel.slice(0, i));
  return out;
}

/** Why deletions must wait: the listings' errors, or undefined. */
function withheldBy(local: Listing, remote: Listing): string | undefined {
  const e = [
    ...local.errors.map((x) => ({ ...x, side: 'here' })),
    ...remote.errors.map((x) => ({ ...x, side: 'on the server' })),
  ];
  if (!e.length && local.complete && remote.complete) return undefined;
  if (!e.length) return 'a listing did not complete';
  return `the listing of ${e[0].path || 'the top folder'} ${e[0].side} failed: ${e[0].message}`;
}

/** Refuses a run where one side lists nothing although the last run left files on it (an unmounted disk?). */
function emptySide(local: Listing, remote: Listing, stored: ReadonlyMap<string, StoredEntry>): string | undefined {
  if (stored.size === 0) return undefined;
  for (const [name, l] of [
    ['the local folder', local],
    ['the folder on the server', remote],
  ] as const) {
    if (l.entries.size === 0)
      return `${name} is empty or missing, but the last run left ${stored.size} paths there: nothing is done`;
  }
  return undefined;
}

/**
 * Plans a two-way run.
 * @param stored the listing the last completed run stored, or undefined on the first run (nothing is then deleted)
 * @returns the items sorted by path, deletions last; `refused` over --max-delete or when one side is empty
 */
export function planTwoWay(
  local: Listing,
  remote: Listing,
  stored: ReadonlyMap<string, StoredEntry> | undefined,
  o: TwoWayOptions,
): TwoWayPlan {
  const precision = { local: Math.max(local.timePrecisionMs, 1), remote: Math.max(remote.timePrecisionMs, 1) };
  const withheld = stored ? withheldBy(local, remote) : undefined;
  const paths = new Set([...local.entries.keys(), ...remote.entries.keys()].filter((p) => !isTempName(p)));
  const sorted = [...paths].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const items = new Map<string, TwoWayItem>();
  const odd = new Set<string>();
  for (const p of sorted) {
    const l = local.entries.get(p);
    const r = remote.entries.get(p);
    const s = stored?.get(p);
    const base = { path: p, local: side(l), remote: side(r) };
    if (ancestors(p).some((a) => odd.has(a))) {
      items.set(p, { ...base, kind: (l ?? r)!.kind, action: 'skip', reason: 'under-kind-differs' });
    } else if (l && r && l.kind !== r.kind) {
      odd.add(p);
      items.set(p, { ...base, kind: l.kind, action: 'skip', reason: 'kind-differs' });
    } else if ((l ?? r)!.kind === 'file') {
      items.set(p, { ...base, kind: 'file', ...decideFile(base.local, base.remote, s, precision, o) });
    }
  }
  decideFolders(sorted, local, remote, stored, items);
  const all = [...items.values()];
  for (const it of all) {
    if (withheld && (it.action === 'delete-local' || it.action === 'delete-remote')) {
      it.action = 'skip';
      it.reason = 'deletion-withheld';
    }
  }
  const taken = (p: string) => paths.has(p) || all.some((i) => i.conflictPath === p);
  for (const it of all) if (it.action === 'conflict') it.conflictPath = conflictName(it.path, o.conflictSuffix, taken);
  const deletes = (it: TwoWayItem) => it.action === 'delete-local' || it.action === 'delete-remote';
  const byPath = (a: TwoWayItem, b: TwoWayItem) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  const plan: TwoWayPlan = {
    items: [...all.filter((i) => !deletes(i)).sort(byPath), ...all.filter(deletes).sort(byPath)],
    firstRun: stored === undefined,
  };
  if (withheld && all.some((i) => i.reason === 'deletion-withheld')) plan.deletionsWithheld = withheld;
  const deletions = all.filter(deletes).length;
  const empty = stored ? emptySide(local, remote, stored) : undefined;
  if (empty) plan.refused = empty;
  else if (o.maxDelete !== undefined && deletions > o.maxDelete)
    plan.refused = `the plan deletes ${deletions} paths, more than --max-delete ${o.maxDelete}: nothing is done`;
  return plan;
}

/**
 * Folders: one on both sides is the same; one on one side only is created on the other, unless the other side
 * deleted it since the last run and nothing below it on this side is kept (everything deleted with it): then it is
 * deleted too. Deepest first, so a folder sees what its contents became.
 */
function decideFolders(
  sorted: string[],
  local: Listing,
  remote: Listing,
  stored: ReadonlyMap<string, StoredEntry> | undefined,
  items: Map<string, TwoWayItem>,
): void {
  // A folder that must stay on a side: something below it there is not deleted.
  const keep = { local: new Set<string>(), remote: new Set<string>() };
  const mark = (it: TwoWayItem): void => {
    if (it.action !== 'delete-local' && local.entries.has(it.path))
      for (const a of ancestors(it.path)) keep.local.add(a);
    if (it.action !== 'delete-remote' && remote.entries.has(it.path))
      for (const a of ancestors(it.path)) keep.remote.add(a);
  };
  for (const it of items.values()) mark(it);
  const depth = (p: string) => p.split('/').length;
  const dirs = sorted.filter((p) => !items.has(p)).sort((a, b) => depth(b) - depth(a));
  for (const p of dirs) {
    const onLocal = local.entries.has(p);
    const onRemote = remote.entries.has(p);
    let it: TwoWayItem;
    if (onLocal && onRemote) it = { path: p, kind: 'dir', action: 'same', reason: 'unchanged' };
    else if (onLocal) {
      const deleted = stored?.get(p)?.kind === 'dir' && !keep.local.has(p);
      it = deleted
        ? { path: p, kind: 'dir', ...del('local', 'remote') }
        : {
            path: p,
            kind: 'dir',
            action: 'upload',
            reason: stored?.has(p) ? 'changed-local-deleted-remote' : 'new-local',
          };
    } else {
      const deleted = stored?.get(p)?.kind === 'dir' && !keep.remote.has(p);
      it = deleted
        ? { path: p, kind: 'dir', ...del('remote', 'local') }
        : {
            path: p,
            kind: 'dir',
            action: 'download',
            reason: stored?.has(p) ? 'changed-remote-deleted-local' : 'new-remote',
          };
    }
    items.set(p, it);
    mark(it);
  }
}

/** The one-way plans that carry out a two-way plan: local → server, then server → local (sync/enqueue.ts batches). */
export interface TwoWayBatches {
  upload: SyncPlan;
  download: SyncPlan;
  /** Renames on the server before the batches run: each conflict's server copy moves to its conflict name. */
  renames: Array<{ from: string; to: string }>;
}

function oneWay(items: PlanItem[]): SyncPlan {
  return { items, totals: totalsOf(items), onlyInDest: 0 };
}

/**
 * Splits a two-way plan into its two one-way plans. A conflict uploads the local file under its name (the server's
 * copy was renamed away first: a create) and downloads the server's copy under its conflict name.
 */
export function twoWayBatches(plan: TwoWayPlan): TwoWayBatches {
  const up: PlanItem[] = [];
  const down: PlanItem[] = [];
  const renames: TwoWayBatches['renames'] = [];
  const copy = (it: TwoWayItem, from?: SideState, to?: SideState, rel = it.path): PlanItem =>
    it.kind === 'dir'
      ? { path: rel, kind: 'dir', action: 'create', reason: 'missing-folder', bytes: 0 }
      : {
          path: rel,
          kind: 'file',
          action: to ? 'update' : 'create',
          reason: to ? 'size-differs' : 'missing',
          bytes: from!.size,
          src: from,
          ...(to ? { dest: to } : {}),
        };
  const gone = (it: TwoWayItem, was?: SideState): PlanItem => ({
    path: it.path,
    kind: it.kind,
    action: 'delete',
    reason: 'not-in-source',
    bytes: was?.size ?? 0,
    ...(was ? { dest: was } : {}),
  });
  for (const it of plan.items) {
    if (it.action === 'upload') up.push(copy(it, it.local, it.remote));
    else if (it.action === 'download') down.push(copy(it, it.remote, it.local));
    else if (it.action === 'delete-remote') up.push(gone(it, it.remote));
    else if (it.action === 'delete-local') down.push(gone(it, it.local));
    else if (it.action === 'conflict' && it.conflictPath) {
      renames.push({ from: it.path, to: it.conflictPath });
      up.push(copy(it, it.local, undefined));
      down.push(copy(it, it.remote, undefined, it.conflictPath));
    }
  }
  return { upload: oneWay(up), download: oneWay(down), renames };
}

/**
 * The listing to store once the plan ran to the end: every path both sides then have, with each side's size and
 * time (a copy's target has its source's, as the run keeps times); paths deleted are dropped, a conflict's server copy
 * is added under its new name. Skipped paths are left out (they are compared afresh next time).
 */
export function stateAfter(plan: TwoWayPlan): Map<string, StoredEntry> {
  const out = new Map<string, StoredEntry>();
  for (const it of plan.items) {
    const dir = it.kind === 'dir';
    if (it.action === 'same')
      out.set(it.path, dir ? { kind: 'dir' } : { kind: 'file', local: it.local, remote: it.remote });
    else if (it.action === 'upload')
      out.set(it.path, dir ? { kind: 'dir' } : { kind: 'file', local: it.local, remote: it.local });
    else if (it.action === 'download')
      out.set(it.path, dir ? { kind: 'dir' } : { kind: 'file', local: it.remote, remote: it.remote });
    else if (it.action === 'conflict' && it.conflictPath) {
      out.set(it.path, { kind: 'file', local: it.local, remote: it.local });
      out.set(it.conflictPath, { kind: 'file', local: it.remote, remote: it.remote });
    }
  }
  return out;
}
