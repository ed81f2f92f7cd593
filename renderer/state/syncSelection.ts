/**
 * Synchronize…'s tick boxes (#27): which items of a previewed plan run. Every item starts ticked; what is unticked is
 * kept (it goes to `sync.run` as `leaveOut`). The rules keep a choice possible to carry out:
 *
 * - unticking a folder to create unticks what would be created below it; ticking an item below a folder to create
 *   ticks that folder (and its folders to create above);
 * - unticking anything below a folder to delete unticks that folder's deletion (it would take the item with it);
 *   ticking a folder's deletion ticks the deletions below it.
 *
 * A section's box ticks or unticks all of its items by the same rules. Pure.
 */
import type { SyncPreviewItem } from '../../app/common/ipc/contract';

export type SyncAction = SyncPreviewItem['action'];

/** The sections of the list, in order. */
export const SYNC_SECTIONS: readonly SyncAction[] = ['create', 'update', 'delete'];

/** Counts and bytes of the ticked items of one section, and of all its items. */
export interface SectionTotals {
  files: number;
  folders: number;
  bytes: number;
  /** Items in the section, ticked or not. */
  items: number;
  ticked: number;
}

/** The folders above `path` (`a/b/c` -> `a`, `a/b`). */
function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) out.push(path.slice(0, i));
  return out;
}

/** The paths of `items` with action `action` below folder `dir`. */
function below(items: readonly SyncPreviewItem[], dir: string, action: SyncAction): string[] {
  const prefix = `${dir}/`;
  return items.filter((i) => i.action === action && i.path.startsWith(prefix)).map((i) => i.path);
}

/** Folder items by action: the paths of the folders to create and to delete. */
function folderSets(items: readonly SyncPreviewItem[]): Record<'create' | 'delete', Set<string>> {
  const sets = { create: new Set<string>(), delete: new Set<string>() };
  for (const i of items) if (i.kind === 'dir' && i.action !== 'update') sets[i.action].add(i.path);
  return sets;
}

/**
 * Ticks (`on`) or unticks the items at `paths`, with what the rules bring along.
 * @param unticked the paths unticked now (not changed)
 * @returns the new set of unticked paths
 */
export function setTicked(
  items: readonly SyncPreviewItem[],
  unticked: ReadonlySet<string>,
  paths: readonly string[],
  on: boolean,
): Set<string> {
  const next = new Set(unticked);
  const byPath = new Map(items.map((i) => [i.path, i]));
  const folders = folderSets(items);
  for (const p of paths) {
    const item = byPath.get(p);
    if (!item) continue;
    if (on) {
      next.delete(p);
      if (item.action !== 'delete') for (const a of ancestors(p)) if (folders.create.has(a)) next.delete(a);
      if (item.action === 'delete' && item.kind === 'dir') for (const d of below(items, p, 'delete')) next.delete(d);
    } else {
      next.add(p);
      if (item.action === 'create' && item.kind === 'dir') {
        for (const d of below(items, p, 'create')) next.add(d);
        for (const d of below(items, p, 'update')) next.add(d);
      }
      for (const a of ancestors(p)) if (folders.delete.has(a)) next.add(a);
    }
  }
  return next;
}

/** Ticks or unticks every item of a section. */
export function setSection(
  items: readonly SyncPreviewItem[],
  unticked: ReadonlySet<string>,
  action: SyncAction,
  on: boolean,
): Set<string> {
  return setTicked(
    items,
    unticked,
    items.filter((i) => i.action === action).map((i) => i.path),
    on,
  );
}

/** Each section's totals over its ticked items. */
export function sectionTotals(
  items: readonly SyncPreviewItem[],
  unticked: ReadonlySet<string>,
): Record<SyncAction, SectionTotals> {
  const zero = (): SectionTotals => ({ files: 0, folders: 0, bytes: 0, items: 0, ticked: 0 });
  const t: Record<SyncAction, SectionTotals> = { create: zero(), update: zero(), delete: zero() };
  for (const i of items) {
    const s = t[i.action];
    s.items++;
    if (unticked.has(i.path)) continue;
    s.ticked++;
    if (i.kind === 'dir') s.folders++;
    else s.files++;
    s.bytes += i.bytes;
  }
  return t;
}
