/**
 * How `sluice sync --two-way` shows its plan: one line per path (`ACTION  PATH  (reason)`, 80 columns by default, a
 * path too long cut into pieces), the counts, and under `--json` the plan as JSON lines. Paths come from the server
 * and the local disk: every one is escaped (app/common/displayText.ts) before it is shown.
 */
import { displayText } from '../../common/displayText';
import { plural } from './units';
import { TWO_WAY_REASON_TEXT, type TwoWayAction, type TwoWayItem, type TwoWayPlan } from '../sync/twoWay';

const LABEL: Record<TwoWayAction, string> = {
  upload: 'upload',
  download: 'download',
  'delete-remote': 'rm remote',
  'delete-local': 'rm local',
  conflict: 'conflict',
  same: 'same',
  skip: 'skip',
};
const INDENT = ' '.repeat(11);

/** The reason of one item as shown (a conflict names where the server's copy goes). */
function reasonOf(it: TwoWayItem): string {
  const text = TWO_WAY_REASON_TEXT[it.reason];
  return it.conflictPath ? `${text}: the server's copy kept as ${displayText(it.conflictPath, Infinity)}` : text;
}

/** One item as lines of at most `width` columns. */
export function twoWayItemLines(it: TwoWayItem, width = 80): string[] {
  const room = Math.max(20, width - INDENT.length);
  const shown = displayText(it.path, Infinity) + (it.kind === 'dir' ? '/' : '');
  const lines: string[] = [];
  for (let i = 0; i < shown.length; i += room)
    lines.push((i === 0 ? LABEL[it.action].padEnd(INDENT.length) : INDENT) + shown.slice(i, i + room));
  const reason = `(${reasonOf(it)})`;
  const last = lines.length - 1;
  if (lines[last].length + 2 + reason.length <= width) lines[last] += `  ${reason}`;
  else lines.push(INDENT + reason);
  return lines;
}

/** Counts per action: `{upload: 2, …}`. */
export function twoWayCounts(plan: TwoWayPlan): Record<TwoWayAction, number> {
  const c: Record<TwoWayAction, number> = {
    upload: 0,
    download: 0,
    'delete-remote': 0,
    'delete-local': 0,
    conflict: 0,
    same: 0,
    skip: 0,
  };
  for (const it of plan.items) c[it.action]++;
  return c;
}

/** `sluice: sync --two-way: 2 to upload, 1 to download, 1 conflict` (what the run will do). */
export function twoWaySummary(plan: TwoWayPlan): string {
  const c = twoWayCounts(plan);
  const parts: string[] = [];
  if (c.upload) parts.push(`${c.upload} to upload`);
  if (c.download) parts.push(`${c.download} to download`);
  if (c['delete-remote']) parts.push(`${c['delete-remote']} to delete on the server`);
  if (c['delete-local']) parts.push(`${c['delete-local']} to delete here`);
  if (c.conflict) parts.push(plural(c.conflict, 'conflict'));
  const what = parts.length ? parts.join(', ') : 'both sides are the same';
  return `sluice: sync --two-way: ${what}${plan.firstRun ? ' (first run: nothing is deleted)' : ''}`;
}

/** The dry run's text: the items (same ones only when `verbose`), then the counts and what is withheld. */
export function twoWayPlanLines(plan: TwoWayPlan, o: { verbose?: boolean; width?: number } = {}): string[] {
  const lines: string[] = [];
  for (const it of plan.items) if (it.action !== 'same' || o.verbose) lines.push(...twoWayItemLines(it, o.width));
  lines.push(
    '',
    'Plan (dry run: nothing was changed):',
    twoWaySummary(plan).replace(/^sluice: sync --two-way: /, '  '),
  );
  if (plan.deletionsWithheld) lines.push(`  deletions withheld: ${plan.deletionsWithheld}`);
  return lines;
}

/** The plan as JSON lines: `{"type":"two-way-item",…}` per item, then `{"type":"two-way-plan",…}`. */
export function twoWayJsonLines(plan: TwoWayPlan, dryRun: boolean): string[] {
  const items = plan.items.map((it) => JSON.stringify({ type: 'two-way-item', ...it, reasonText: reasonOf(it) }));
  const { firstRun, deletionsWithheld, refused } = plan;
  const head = { type: 'two-way-plan', dryRun, firstRun, counts: twoWayCounts(plan), deletionsWithheld, refused };
  return [...items, JSON.stringify(head)];
}
