/**
 * Pure display formatters shared by the views. No DOM, no React: unit-tested under node:test.
 */

import { windowsCrumbs } from '../../app/common/localPaths';
import { formatBytes as formatByteCount, formatDuration as formatClock } from '../../app/common/units';

/** Formats a byte count with binary units, e.g. `1536` → `"1.5 KiB"`, `"512 MiB"` (three digits); unknown → `"—"`. */
export function formatBytes(bytes: number): string {
  return formatByteCount(bytes, { unknown: '—', wholeFrom: 100 });
}

/** Formats a rate in bytes per second, e.g. `"12.3 MiB/s"`; 0 → `"0 B/s"`. */
export function formatRate(bytesPerSecond: number): string {
  return `${formatBytes(Math.max(0, bytesPerSecond))}/s`;
}

/**
 * Estimated time left for `remaining` bytes at `rate` bytes per second, as `h:mm:ss` or `m:ss`.
 * Returns `"—"` when the rate is zero or unknown (never "infinity").
 */
export function formatEta(remainingBytes: number, bytesPerSecond: number): string {
  if (!(bytesPerSecond > 0) || !Number.isFinite(remainingBytes) || remainingBytes < 0) return '—';
  return formatDuration((remainingBytes / bytesPerSecond) * 1000);
}

/** Formats a duration in milliseconds as `h:mm:ss` (over an hour) or `m:ss`; a negative one as `0:00`. */
export function formatDuration(ms: number): string {
  return formatClock(Math.max(0, ms)) ?? '—';
}

/** Where and how a date is shown: the user's locale and time zone unless a test names them. */
export interface DateStyle {
  /** With seconds (the log, host keys' first/last seen). */
  seconds?: boolean;
  /** BCP 47 locale; default the user's (the browser's, i.e. the system's in Electron). */
  locale?: string;
  /** IANA time zone; default the system's. */
  timeZone?: string;
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();
function dateFormat(style: DateStyle, withDate: boolean): Intl.DateTimeFormat {
  const key = `${style.locale ?? ''}|${style.timeZone ?? ''}|${style.seconds ? 's' : ''}|${withDate ? 'd' : ''}`;
  let f = dateFormats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(style.locale, {
      ...(withDate ? { year: 'numeric', month: '2-digit', day: '2-digit' } : {}),
      hour: '2-digit',
      minute: '2-digit',
      ...(style.seconds ? { second: '2-digit' } : {}),
      ...(style.timeZone ? { timeZone: style.timeZone } : {}),
    });
    dateFormats.set(key, f);
  }
  return f;
}

/**
 * The one date format of the app (file lists, host keys' first/last seen, the cipher measurement, the conflict dialog):
 * the user's locale, numeric, date and time (e.g. `11/28/2026, 02:11 AM` in en-US, `28.11.2026, 02:11` in de-DE);
 * missing → `""`.
 */
export function formatDate(epochMs: number | undefined, style: DateStyle = {}): string {
  if (epochMs === undefined || !Number.isFinite(epochMs)) return '';
  return dateFormat(style, true).format(epochMs);
}

/** A time of day in the same locale style, with seconds (the log's lines); missing → `""`. */
export function formatTime(epochMs: number | undefined, style: DateStyle = {}): string {
  if (epochMs === undefined || !Number.isFinite(epochMs)) return '';
  return dateFormat({ ...style, seconds: true }, false).format(epochMs);
}

/** Percentage 0–100 of `done` over `total` (an empty total counts as complete only when `complete`). */
export function percent(done: number, total: number, complete = false): number {
  if (total <= 0) return complete ? 100 : 0;
  return Math.min(100, Math.max(0, (done / total) * 100));
}

/** Joins POSIX path segments: `joinRemote('/a/', 'b')` → `/a/b`. */
export function joinRemote(dir: string, name: string): string {
  if (dir === '' || dir === '/') return `/${name}`;
  return `${dir.replace(/\/+$/, '')}/${name}`;
}

/** Parent of a POSIX path; the parent of `/` is `/`. */
export function parentRemote(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  const i = trimmed.lastIndexOf('/');
  return i <= 0 ? '/' : trimmed.slice(0, i);
}

/** One clickable breadcrumb: the label shown and the absolute path it opens. */
export interface Crumb {
  label: string;
  path: string;
}

/**
 * Breadcrumbs of an absolute path, root first: POSIX (`/a/b`), or Windows (This PC, `C:` or `\\server\share`,
 * then each folder: app/common/localPaths.ts).
 * @param sep the separator of the pane's file system (`/` remote and POSIX local, `\\` Windows local)
 */
export function breadcrumbs(path: string, sep: '/' | '\\' = '/'): Crumb[] {
  if (sep === '\\') return windowsCrumbs(path);
  const crumbs: Crumb[] = [{ label: '/', path: '/' }];
  let acc = '';
  for (const part of path.split('/').filter(Boolean)) {
    acc = `${acc}/${part}`;
    crumbs.push({ label: part, path: acc });
  }
  return crumbs;
}

export { plural } from '../../app/common/plural';

/** Plain one-line summaries for engine error codes whose messages are long (OpenSSH-style host-key texts). */
const ERROR_SUMMARIES: Readonly<Record<string, string>> = {
  HOSTKEY_CHANGED: 'The server’s host key has changed. Connection refused.',
  HOSTKEY_REVOKED: 'The server’s host key is revoked. Connection refused.',
  HOSTKEY_REJECTED: 'The host key was not accepted.',
  HOSTKEY_UNKNOWN: 'The host key is unknown and was not accepted.',
};

/**
 * One short line for a banner: a fixed summary for known codes, else the first sentence of the message
 * (OpenSSH-style texts open with a row of `@`, which is dropped), cut to `max` characters.
 */
export function summarizeError(code: string, message: string, max = 160): string {
  const known = ERROR_SUMMARIES[code];
  if (known) return known;
  // OpenSSH frames its warnings with lines of @ and a lone @ at both ends of each line.
  const text = message
    .replace(/(^|\s)@+(?=\s|$)/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const cut = text.search(/[.!](\s|$)/);
  const first = cut > 0 ? text.slice(0, cut + 1) : text;
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
}

/** A session's state for the status bar: `connected`, or `reconnecting (attempt 2)` while a lost session reconnects. */
export function sessionStateText(status: { state: string; attempt?: number }): string {
  return status.state === 'reconnecting' && status.attempt !== undefined
    ? `reconnecting (attempt ${status.attempt})`
    : status.state;
}
