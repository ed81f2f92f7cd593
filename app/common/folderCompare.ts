/**
 * The app's Compare (#27, WinSCP's "Compare directories", FileZilla's "directory comparison"): the entries of two
 * shown folders (not their subfolders) marked by how each stands against the other side. Pure. The rules are
 * `sluice sync`'s (app/node/sync/plan.ts, checked against it by app/node/test/compareAgreesWithPlan.test.ts): a file is
 * the same when both sides have it with the same size and times closer than the coarser side's precision (an SFTP v3
 * server keeps whole seconds) or the modify window; folders are the same when both sides have them; links and special
 * files are not compared (sync leaves them out).
 */

/** How one entry stands against the other pane's folder. */
export type CompareStatus =
  'only-here' | 'newer-here' | 'newer-there' | 'same-size-different-time' | 'size-differs' | 'kind-differs' | 'same';

/** Every status, in the legend's order. `only-there` is the other pane's `only-here`. */
export const COMPARE_STATUSES: readonly CompareStatus[] = [
  'only-here',
  'newer-here',
  'newer-there',
  'same-size-different-time',
  'size-differs',
  'kind-differs',
  'same',
];

/** The words and the glyph of each status (a mark is never colour alone). */
export const COMPARE_TEXT: Record<CompareStatus, { text: string; glyph: string }> = {
  'only-here': { text: 'only here', glyph: '+' },
  'newer-here': { text: 'newer here', glyph: '▲' },
  'newer-there': { text: 'newer there', glyph: '▼' },
  'same-size-different-time': { text: 'same size, different time', glyph: '≈' },
  'size-differs': { text: 'size differs, same time', glyph: '≠' },
  'kind-differs': { text: 'a file on one side, a folder on the other', glyph: '!' },
  same: { text: 'same', glyph: '=' },
};

/** What the comparison reads of an entry (a pane's FsEntry fits). */
export interface CompareEntry {
  name: string;
  type: 'file' | 'dir' | 'symlink' | 'other';
  /** Bytes. */
  size: number;
  /** Modification time, ms since the epoch. */
  mtimeMs: number;
  /** A symbolic link (its type, size and time are its target's): not compared, as sync leaves links out. */
  link?: unknown;
}

/** One side of the comparison: its entries and how finely it keeps times (ms: 1 local, 1000 over SFTP v3). */
export interface CompareSide {
  entries: readonly CompareEntry[];
  timePrecisionMs: number;
}

/** How times are compared. */
export interface FolderCompareOptions {
  /** `--modify-window`: times this close (ms) count as equal. */
  modifyWindowMs?: number;
  /** `--size-only`: files of the same size are the same whatever their times. */
  sizeOnly?: boolean;
}

/** Each side's marks by name, and how many entries of each side have each status. */
export interface FolderComparison {
  left: Map<string, CompareStatus>;
  right: Map<string, CompareStatus>;
  leftCounts: Record<CompareStatus, number>;
  rightCounts: Record<CompareStatus, number>;
}

function compared(e: CompareEntry): boolean {
  return !e.link && (e.type === 'file' || e.type === 'dir');
}

/** Whether a status is a difference (what "differences only" keeps). */
export function isDifference(s: CompareStatus | undefined): boolean {
  return s !== undefined && s !== 'same';
}

/** The status of `a` against `b` (both present, both compared), from `a`'s side. */
function statusOf(a: CompareEntry, b: CompareEntry, o: FolderCompareOptions, precisionMs: number): CompareStatus {
  if (a.type !== b.type) return 'kind-differs';
  if (a.type === 'dir') return 'same';
  const delta = a.mtimeMs - b.mtimeMs;
  const windowMs = o.modifyWindowMs ?? 0;
  const timeEqual = delta === 0 || Math.abs(delta) < precisionMs || Math.abs(delta) <= windowMs;
  if (a.size !== b.size) return timeEqual ? 'size-differs' : delta > 0 ? 'newer-here' : 'newer-there';
  return o.sizeOnly === true || timeEqual ? 'same' : 'same-size-different-time';
}

const MIRROR: Partial<Record<CompareStatus, CompareStatus>> = {
  'newer-here': 'newer-there',
  'newer-there': 'newer-here',
};

function zeroCounts(): Record<CompareStatus, number> {
  return Object.fromEntries(COMPARE_STATUSES.map((s) => [s, 0])) as Record<CompareStatus, number>;
}

/**
 * Compares two folders' entries by name (exact, as sync does). Links and special files get no mark.
 * @returns each side's marks and counts; `left`'s `newer-here` is `right`'s `newer-there`
 */
export function compareFolders(left: CompareSide, right: CompareSide, o: FolderCompareOptions = {}): FolderComparison {
  const precisionMs = Math.max(left.timePrecisionMs, right.timePrecisionMs, 1);
  const rightByName = new Map<string, CompareEntry>();
  for (const e of right.entries) if (compared(e) && !rightByName.has(e.name)) rightByName.set(e.name, e);
  const result: FolderComparison = {
    left: new Map(),
    right: new Map(),
    leftCounts: zeroCounts(),
    rightCounts: zeroCounts(),
  };
  const mark = (side: 'left' | 'right', name: string, s: CompareStatus): void => {
    result[side].set(name, s);
    result[side === 'left' ? 'leftCounts' : 'rightCounts'][s]++;
  };
  for (const a of left.entries) {
    if (!compared(a) || result.left.has(a.name)) continue;
    const b = rightByName.get(a.name);
    if (!b) {
      mark('left', a.name, 'only-here');
      continue;
    }
    const s = statusOf(a, b, o, precisionMs);
    mark('left', a.name, s);
    mark('right', b.name, MIRROR[s] ?? s);
  }
  for (const b of rightByName.values()) if (!result.right.has(b.name)) mark('right', b.name, 'only-here');
  return result;
}
