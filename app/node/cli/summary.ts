/**
 * The human summary printed on stderr when a job ends: what failed (each file by the user's own paths, never only
 * a temporary `.NAME.sluice-XXXXXXXX.part` name) and the totals, claiming a verification level only when files were
 * committed and the engine reports one.
 */
import { displayText } from '../errors';
import type { EngineEvent, TransferReport } from '../transfer/types';
import { averageRate, formatBytes, formatElapsed, formatRate, plural } from './units';

/** An engine `file` event. */
type FileEvent = Extract<EngineEvent, { type: 'file' }>;

/**
 * What the summary needs of a job's `file` events: where each failed file was going (by source path, so that a
 * failure whose message names only a temporary file still shows the target the user asked for), which failures were
 * already said as they happened (each is said once), and why files were skipped.
 */
export class JobNotes {
  private readonly bySource = new Map<string, string>();
  private readonly said = new Set<string>();
  /** Files skipped for each reason (not counting files an earlier run committed). */
  readonly skipReasons = new Map<string, number>();

  /**
   * Records a `file` event; other states than failed and skipped are ignored.
   * @param said the failure was printed as it happened, with its message
   */
  note(e: FileEvent, said = false): void {
    if (e.state === 'failed') {
      if (e.target) this.bySource.set(e.path, e.target);
      if (said) this.said.add(e.path);
    } else if (e.state === 'skipped' && !e.earlier) {
      const reason = displayText(e.reason ?? 'no reason given', 200);
      this.skipReasons.set(reason, (this.skipReasons.get(reason) ?? 0) + 1);
    }
  }

  /** The target recorded for `source`, if any. */
  targetOf(source: string): string | undefined {
    return this.bySource.get(source);
  }

  /** Whether the failure of `source` was already printed. */
  wasSaid(source: string): boolean {
    return this.said.has(source);
  }
}

/**
 * `SOURCE → TARGET` (or `SOURCE` when the target is unknown or the same), made safe for a terminal.
 * @param source the file's source path as the user gave it or the walk found it
 * @param target its destination path, when known
 */
export function fileRoute(source: string, target: string | undefined): string {
  return target && target !== source
    ? `${displayText(source, 500)} → ${displayText(target, 500)}`
    : displayText(source, 500);
}

/**
 * `SOURCE → TARGET: MESSAGE` ({@link fileRoute}), made safe for a terminal.
 * @param message the failure's text
 */
export function describeFailure(source: string, target: string | undefined, message: string): string {
  return `${fileRoute(source, target)}: ${displayText(message, 2000)}`;
}

/** `2 skipped (the target exists)`, `3 skipped (the target exists: 2, same size (10 bytes): 1)`. */
function skippedText(count: number, reasons: ReadonlyMap<string, number> | undefined): string {
  const known = [...(reasons ?? [])].sort((a, b) => b[1] - a[1]);
  if (known.length === 0) return `${count} skipped`;
  if (known.length === 1) return `${count} skipped (${known[0][0]})`;
  const shown = known.slice(0, 3).map(([why, n]) => `${why}: ${n}`);
  return `${count} skipped (${shown.join(', ')}${known.length > 3 ? ', …' : ''})`;
}

/**
 * The totals line: files copied, what this run moved with its time and average rate (IEC units), what was already
 * there (bytes an interrupted run had moved, files it had committed), the verification level reached (only when
 * files were committed and `report.verify` is set), the bytes `--conflict append` kept, skipped (with their reasons,
 * from `notes`) and failed counts. A run that moved nothing and copied nothing shows no time or rate.
 */
export function totalsLine(report: TransferReport, notes?: JobNotes): string {
  const earlierFiles = report.earlierFiles ?? 0;
  const already = (report.resumedBytes ?? 0) + (report.earlierBytes ?? 0);
  const sent = Math.max(0, report.bytes - (report.resumedBytes ?? 0));
  const rate = sent > 0 ? averageRate(sent, report.elapsedMs) : undefined;
  let head = report.files > 0 ? `${plural(report.files, 'file')} copied` : 'no file copied';
  if (sent > 0 || report.files > 0)
    head += `, ${formatBytes(sent)} in ${formatElapsed(report.elapsedMs)}${rate !== undefined ? ` (${formatRate(rate)})` : ''}`;
  const parts = [head];
  if (already > 0)
    parts.push(
      `${formatBytes(already)} already there${earlierFiles ? ` (${plural(earlierFiles, 'file')} done earlier)` : ''}`,
    );
  else if (earlierFiles) parts.push(`${plural(earlierFiles, 'file')} done earlier`);
  if (report.files > 0 && report.verify !== undefined) parts.push(`verified: ${report.verify}`);
  if (report.appendedAfterBytes) parts.push(`appended after ${formatBytes(report.appendedAfterBytes)} already there`);
  const skipped = report.skipped - earlierFiles;
  if (skipped > 0) parts.push(skippedText(skipped, notes?.skipReasons));
  if (report.failed.length) parts.push(`${report.failed.length} FAILED`);
  return parts.join(', ');
}

/**
 * The summary's lines: the failures not yet said as they happened (`N FAILED:` and one indented line each,
 * {@link describeFailure}), then {@link totalsLine}, left out when the failures are all there is to say (nothing
 * copied, moved, skipped or done earlier): each failure is said once.
 * @param report the engine's report
 * @param notes the job's `file` events, noted by the output
 */
export function formatSummary(report: TransferReport, notes: JobNotes): string[] {
  const lines: string[] = [];
  const unsaid = report.failed.filter((f) => !notes.wasSaid(f.path));
  if (unsaid.length) {
    lines.push(`${unsaid.length} FAILED:`);
    for (const f of unsaid) lines.push(`  ${describeFailure(f.path, notes.targetOf(f.path), f.message)}`);
  }
  const onlyFailures = report.failed.length > 0 && report.files === 0 && report.skipped === 0 && report.bytes === 0;
  if (!onlyFailures) lines.push(totalsLine(report, notes));
  return lines;
}
