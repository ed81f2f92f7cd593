/**
 * How `sluice sync --dry-run` shows its plan: one line per path (action, path, reason), wrapped to the terminal's
 * width (80 columns by default), then the counts and bytes per action; `--json` gives the plan as JSON lines. Paths
 * come from the server: every one is escaped (app/common/displayText.ts) before it is shown.
 */
import { displayText } from '../../common/displayText';
import { formatBytes, plural } from './units';
import { REASON_TEXT, type PlanItem, type SyncAction, type SyncPlan } from '../sync/plan';

const ACTIONS: SyncAction[] = ['create', 'update', 'delete', 'same', 'skip'];
const INDENT = '        ';

/** The seconds between two times, for "SRC is newer by 5 s". */
function secondsApart(a: number, b: number): string {
  const s = Math.abs(a - b) / 1000;
  return s >= 10 ? `${Math.round(s)} s` : `${Number(s.toFixed(3))} s`;
}

/** The reason of one item with its figures (sizes, how far apart the times are). */
export function reasonDetail(it: PlanItem): string {
  const text = REASON_TEXT[it.reason];
  const { src, dest } = it;
  switch (it.reason) {
    case 'missing':
      return `${text}, ${formatBytes(it.bytes)}`;
    case 'size-differs':
      return `${text}: SRC ${formatBytes(src?.size ?? 0)}, DEST ${formatBytes(dest?.size ?? 0)}`;
    case 'newer':
    case 'older':
      return `${text} by ${secondsApart(src?.mtimeMs ?? 0, dest?.mtimeMs ?? 0)}`;
    case 'not-in-source':
      return it.kind === 'file' ? `${text}, ${formatBytes(it.bytes)}` : `folder ${text}`;
    default:
      return text;
  }
}

/**
 * One item as lines of at most `width` columns: `ACTION  PATH  REASON`; a path too long for one line is cut into
 * pieces (nothing of it is dropped) and the reason goes on a line of its own when it does not fit after the path.
 */
export function itemLines(it: PlanItem, width = 80): string[] {
  const room = Math.max(20, width - INDENT.length);
  const shown = displayText(it.path, Infinity) + (it.kind === 'dir' ? '/' : '');
  const pieces: string[] = [];
  for (let i = 0; i < shown.length; i += room) pieces.push(shown.slice(i, i + room));
  const lines = pieces.map((p, i) => (i === 0 ? it.action.padEnd(INDENT.length) : INDENT) + p);
  const reason = `(${reasonDetail(it)})`;
  const last = lines.length - 1;
  if (lines[last].length + 2 + reason.length <= width) lines[last] += `  ${reason}`;
  else lines.push(INDENT + reason);
  return lines;
}

/** `3 files, 1 folder, 1.2 KiB` for one action's totals. */
function totalsText(action: SyncAction, t: SyncPlan['totals'][SyncAction]): string {
  const parts = [plural(t.files, 'file')];
  if (t.folders) parts.push(plural(t.folders, 'folder'));
  if (action !== 'same' && action !== 'skip') parts.push(formatBytes(t.bytes));
  return parts.join(', ');
}

/**
 * The dry run's text: the items (files and folders found the same only when `verbose`), the totals per action,
 * what DEST keeps, why deletions are withheld or the plan refused.
 * @param width the terminal's columns (80 when not a terminal)
 */
export function planLines(plan: SyncPlan, o: { verbose?: boolean; width?: number } = {}): string[] {
  const width = o.width ?? 80;
  const lines: string[] = [];
  for (const it of plan.items) if (it.action !== 'same' || o.verbose) lines.push(...itemLines(it, width));
  lines.push('', 'Plan (dry run: nothing was changed):');
  for (const a of ACTIONS) {
    const t = plan.totals[a];
    if (t.files || t.folders || a !== 'skip') lines.push(`  ${a.padEnd(7)} ${totalsText(a, t)}`);
  }
  if (plan.onlyInDest) {
    const why = plan.deletionsWithheld ? 'kept: deletions withheld' : 'kept (--delete removes them)';
    lines.push(`  ${plural(plan.onlyInDest, 'path')} only in DEST, ${why}`);
  }
  lines.push(`  to send  ${formatBytes(plan.totals.create.bytes + plan.totals.update.bytes)}`);
  return lines;
}

/**
 * The plan as JSON lines: `{"type":"plan-item",…}` per item (same ones included), then `{"type":"plan",…}` with
 * `dryRun` (false when the plan runs next), the totals, `onlyInDest`, `deletionsWithheld` and `refused` when set.
 * Paths are JSON strings, as the server sent them.
 */
export function planJsonLines(plan: SyncPlan, dryRun = true): string[] {
  const items = plan.items.map((it) => JSON.stringify({ type: 'plan-item', ...it, reasonText: reasonDetail(it) }));
  const { totals, onlyInDest, deletionsWithheld, refused } = plan;
  return [...items, JSON.stringify({ type: 'plan', dryRun, totals, onlyInDest, deletionsWithheld, refused })];
}

/** Whether a plan copies, creates and deletes nothing (DEST is already like SRC, as far as the plan may touch it). */
export function nothingToDo(plan: SyncPlan): boolean {
  return plan.items.every((it) => it.action === 'same' || it.action === 'skip');
}

/**
 * The lines of a run whose plan has nothing to do, as a run prints them (cli/syncRun.ts): the opening line, and with
 * `--json` the run's end (`{"type":"sync","state":"done",…}`).
 */
export function upToDateLines(json: boolean): void {
  const line = 'sluice: sync: nothing to copy or delete';
  if (!json) {
    process.stderr.write(`${line}\n`);
    return;
  }
  process.stdout.write(`${JSON.stringify({ type: 'log', level: 'info', message: line })}\n`);
  process.stdout.write(`${JSON.stringify({ type: 'sync', state: 'done', deleted: 0, moved: 0 })}\n`);
}
