/**
 * The sync plan: two listings (SRC and DEST, listing.ts) compared into create / update / delete / same / skip, each
 * with its reason. Pure: nothing is read or written here. What counts as different follows rsync's and rclone's quick
 * check: the size, then the modification time within `--modify-window`; `--size-only` looks at the size alone.
 */
import type { Listing, ListedEntry } from './listing';

/** What the plan does with one path. `skip`: left alone on both sides (the reason says why). */
export type SyncAction = 'create' | 'update' | 'delete' | 'same' | 'skip';

/** Why an action was chosen: a stable code (for --json and tests) and the text shown. */
export type SyncReason =
  | 'missing'
  | 'missing-folder'
  | 'size-differs'
  | 'newer'
  | 'older'
  | 'same-size-time'
  | 'within-window'
  | 'within-precision'
  | 'same-size'
  | 'folder-exists'
  | 'not-in-source'
  | 'kind-differs'
  | 'same-checksum'
  | 'checksum-differs';

/** One line of the plan. `path` is relative to SRC and DEST, `/`-separated. */
export interface PlanItem {
  path: string;
  kind: 'file' | 'dir';
  action: SyncAction;
  reason: SyncReason;
  /** Bytes the action moves (create, update: the source's size) or frees (delete: DEST's size); else 0. */
  bytes: number;
  /** The source's and DEST's size and time, where each side has the path (bytes; ms since epoch). */
  src?: { size: number; mtimeMs: number };
  dest?: { size: number; mtimeMs: number };
}

/** How files are compared and what may be deleted. */
export interface CompareOptions {
  /** `--size-only`: files of the same size are the same, whatever their time. */
  sizeOnly?: boolean;
  /** `--modify-window`: times this close (ms) count as equal (rclone's flag; FAT keeps 2 s, some servers 1 s). */
  modifyWindowMs?: number;
  /** `--delete`: DEST's paths that SRC does not have are deleted (only when both listings completed). */
  delete?: boolean;
  /** `--max-delete N`: a plan deleting more than N paths is refused. */
  maxDelete?: number;
}

/** Counts and bytes per action. */
export type PlanTotals = Record<SyncAction, { files: number; folders: number; bytes: number }>;

/** The plan of one sync. */
export interface SyncPlan {
  items: PlanItem[];
  totals: PlanTotals;
  /** DEST's paths SRC does not have, kept because `--delete` was not given (or deletions were withheld). */
  onlyInDest: number;
  /** Set when `--delete` was given but no deletion is planned: the listing errors, in the words shown. */
  deletionsWithheld?: string;
  /** Set when the plan must not run: more deletions than `--max-delete`. */
  refused?: string;
}

/** The text shown for each reason (the dry run's last column). */
export const REASON_TEXT: Record<SyncReason, string> = {
  missing: 'not in DEST',
  'missing-folder': 'folder not in DEST',
  'size-differs': 'size differs',
  newer: 'SRC is newer',
  older: 'SRC is older',
  'same-size-time': 'same size and time',
  'within-window': 'same size, time within --modify-window',
  'within-precision': 'same size, time within the 1 s the server keeps',
  'same-size': 'same size (--size-only)',
  'folder-exists': 'folder in both',
  'not-in-source': 'not in SRC',
  'kind-differs': 'a file on one side, a folder on the other',
  'same-checksum': 'same size and SHA-256 (--checksum)',
  'checksum-differs': 'same size, SHA-256 differs (--checksum)',
};

/**
 * Compares one path both sides have. `precisionMs`: the coarser side's time precision; times closer than that are
 * the same (rclone's rule: an SFTP server keeps whole seconds, so a local time of 12:00:00.900 arrives as 12:00:00).
 */
function compareBoth(path: string, s: ListedEntry, d: ListedEntry, o: CompareOptions, precisionMs: number): PlanItem {
  const sides = { src: { size: s.size, mtimeMs: s.mtimeMs }, dest: { size: d.size, mtimeMs: d.mtimeMs } };
  if (s.kind !== d.kind) return { path, kind: s.kind, action: 'skip', reason: 'kind-differs', bytes: 0, ...sides };
  if (s.kind === 'dir') return { path, kind: 'dir', action: 'same', reason: 'folder-exists', bytes: 0 };
  const item = (action: SyncAction, reason: SyncReason): PlanItem => ({
    path,
    kind: 'file',
    action,
    reason,
    bytes: action === 'update' ? s.size : 0,
    ...sides,
  });
  if (s.size !== d.size) return item('update', 'size-differs');
  if (o.sizeOnly) return item('same', 'same-size');
  const delta = s.mtimeMs - d.mtimeMs;
  if (delta === 0) return item('same', 'same-size-time');
  if (Math.abs(delta) < precisionMs) return item('same', 'within-precision');
  if (Math.abs(delta) <= (o.modifyWindowMs ?? 0)) return item('same', 'within-window');
  return item('update', delta > 0 ? 'newer' : 'older');
}

/** Counts and bytes per action of `items`. */
export function totalsOf(items: readonly PlanItem[]): PlanTotals {
  const z = () => ({ files: 0, folders: 0, bytes: 0 });
  const totals: PlanTotals = { create: z(), update: z(), delete: z(), same: z(), skip: z() };
  for (const it of items) {
    const t = totals[it.action];
    if (it.kind === 'dir') t.folders++;
    else t.files++;
    t.bytes += it.bytes;
  }
  return totals;
}

/** Why deletions are withheld: every listing error of both sides, or undefined when both listings completed. */
function withholdReason(src: Listing, dest: Listing): string | undefined {
  const errors = [
    ...src.errors.map((e) => ({ side: 'SRC', ...e })),
    ...dest.errors.map((e) => ({ side: 'DEST', ...e })),
  ];
  if (!errors.length && src.complete && dest.complete) return undefined;
  if (!errors.length) return 'a listing did not complete';
  const first = errors[0];
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more listing error${errors.length > 2 ? 's' : ''})` : '';
  return `the listing of ${first.side} ${first.path === '' ? '(its top folder)' : first.path} failed: ${first.message}${more}`;
}

/**
 * Plans a sync of SRC onto DEST. Every path of SRC is created, updated or found the same; a path DEST has and SRC
 * does not is deleted only with `--delete` and only when both listings completed without an error (else none is,
 * and {@link SyncPlan.deletionsWithheld} says why); a path below a folder to delete is deleted with it (listed, so
 * its files and bytes count). A file on one side where the other has a folder is skipped, never replaced.
 * Items are sorted by path (code-unit order), deletions after the rest.
 * @param src the source's listing; its errors make deletions unsafe, its complete entries are still planned
 * @param dest DEST's listing (empty when DEST does not exist yet)
 */
export function planSync(src: Listing, dest: Listing, o: CompareOptions = {}): SyncPlan {
  const items: PlanItem[] = [];
  const precisionMs = Math.max(src.timePrecisionMs, dest.timePrecisionMs, 1);
  for (const [path, s] of src.entries) {
    const d = dest.entries.get(path);
    if (d) items.push(compareBoth(path, s, d, o, precisionMs));
    else if (s.kind === 'dir') items.push({ path, kind: 'dir', action: 'create', reason: 'missing-folder', bytes: 0 });
    else
      items.push({
        path,
        kind: 'file',
        action: 'create',
        reason: 'missing',
        bytes: s.size,
        src: { size: s.size, mtimeMs: s.mtimeMs },
      });
  }
  const extra = [...dest.entries].filter(([path]) => !src.entries.has(path));
  const withheld = o.delete ? withholdReason(src, dest) : undefined;
  const deleting = o.delete === true && withheld === undefined;
  const deletions: PlanItem[] = deleting
    ? extra.map(([path, d]) => ({
        path,
        kind: d.kind,
        action: 'delete',
        reason: 'not-in-source',
        bytes: d.kind === 'file' ? d.size : 0,
        dest: { size: d.size, mtimeMs: d.mtimeMs },
      }))
    : [];
  const byPath = (a: PlanItem, b: PlanItem) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  const all = [...items.sort(byPath), ...deletions.sort(byPath)];
  const plan: SyncPlan = { items: all, totals: totalsOf(all), onlyInDest: deleting ? 0 : extra.length };
  if (withheld) plan.deletionsWithheld = withheld;
  const deleteCount = deletions.length;
  if (o.maxDelete !== undefined && deleteCount > o.maxDelete) {
    plan.refused = `the plan deletes ${deleteCount} paths, more than --max-delete ${o.maxDelete}: nothing is done`;
  }
  return plan;
}
