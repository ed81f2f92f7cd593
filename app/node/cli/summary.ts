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
 * Where each failed file was going, by source path (the `path` of the engine's failed `file` events), so that a
 * failure whose message names only a temporary file still shows the target the user asked for.
 */
export class FailedTargets {
  private readonly bySource = new Map<string, string>();

  /** Records the target of a failed `file` event; other events are ignored. */
  note(e: FileEvent): void {
    if (e.state === 'failed' && e.target) this.bySource.set(e.path, e.target);
  }

  /** The target recorded for `source`, if any. */
  targetOf(source: string): string | undefined {
    return this.bySource.get(source);
  }
}

/**
 * `SOURCE → TARGET` (or `SOURCE` when the target is unknown or the same), made safe for a terminal.
 * @param source the file's source path as the user gave it or the walk found it
 * @param target its destination path, when known
 */
export function fileRoute(source: string, target: string | undefined): string {
  return target && target !== source ? `${displayText(source, 500)} → ${displayText(target, 500)}` : displayText(source, 500);
}

/**
 * `SOURCE → TARGET: MESSAGE` ({@link fileRoute}), made safe for a terminal.
 * @param message the failure's text
 */
export function describeFailure(source: string, target: string | undefined, message: string): string {
  return `${fileRoute(source, target)}: ${displayText(message, 2000)}`;
}

/**
 * The totals line: files copied, bytes moved, time and average rate (IEC units), the verification level reached
 * (only when files were committed and `report.verify` is set), the bytes `--conflict append` kept, skipped and
 * failed counts.
 */
export function totalsLine(report: TransferReport): string {
  const rate = report.bytes > 0 ? averageRate(report.bytes, report.elapsedMs) : undefined;
  const parts = [
    `${report.files > 0 ? `${plural(report.files, 'file')} copied` : 'no file copied'}, ${formatBytes(report.bytes)} in ${formatElapsed(report.elapsedMs)}`
      + (rate !== undefined ? ` (${formatRate(rate)})` : ''),
  ];
  if (report.files > 0 && report.verify !== undefined) parts.push(`verified: ${report.verify}`);
  if (report.appendedAfterBytes) parts.push(`appended after ${formatBytes(report.appendedAfterBytes)} already there`);
  if (report.skipped) parts.push(`${report.skipped} skipped`);
  if (report.failed.length) parts.push(`${report.failed.length} FAILED`);
  return parts.join(', ');
}

/**
 * The summary's lines: when anything failed, `N FAILED:` and one indented line per failure
 * ({@link describeFailure}), then {@link totalsLine}.
 * @param report the engine's report
 * @param targets the failed files' targets, from the job's `file` events
 */
export function formatSummary(report: TransferReport, targets: FailedTargets): string[] {
  const lines: string[] = [];
  if (report.failed.length) {
    lines.push(`${report.failed.length} FAILED:`);
    for (const f of report.failed) lines.push(`  ${describeFailure(f.path, targets.targetOf(f.path), f.message)}`);
  }
  lines.push(totalsLine(report));
  return lines;
}
