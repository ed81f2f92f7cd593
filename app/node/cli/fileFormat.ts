/**
 * How the file commands print what a server says: `ls -l` lines in the layout of OpenSSH's sftp and ls(1), names in
 * columns, the `--json` object of an entry, `stat`'s and `df`'s texts. Every name, owner, group and link target is
 * server text and goes through displayText (controls and bidi characters escaped).
 */
import { modeString, octalMode } from '../../common/fileMode';
import { displayText } from '../errors';
import type { FsStats, RemoteStat } from '../ssh/workerProtocol';
import { formatBytes } from './units';
import { ownership } from '../engine/ownership';

/** An entry as the commands print it: its attributes, name (or path), and what a symlink names. */
export interface ShownEntry extends RemoteStat {
  name: string;
  target?: string;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** ls(1): a time more than six months away from now shows the year instead of the time of day. */
const SIX_MONTHS_MS = 182.5 * 24 * 3600 * 1000;

/** `Nov 28 07:34` within six months of `now`, else `Nov 28  2025` (local time, as ls and sftp). */
export function lsDate(ms: number, now = Date.now()): string {
  const d = new Date(ms);
  const day = String(d.getDate()).padStart(2, ' ');
  if (Math.abs(now - ms) < SIX_MONTHS_MS) {
    return `${MONTHS[d.getMonth()]} ${day} ${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  }
  return `${MONTHS[d.getMonth()]} ${day}  ${d.getFullYear()}`;
}

/** One `ls -l` line: `-rw-r--r--    1 alice    staff        1234 Nov 28 07:34 name -> target`. */
export function longLine(e: ShownEntry, now = Date.now()): string {
  const { links, owner, group } = ownership(e);
  const link = e.type === 'symlink' && e.target !== undefined ? ` -> ${displayText(e.target, Infinity)}` : '';
  return (
    `${modeString(e.mode, e.type, e.format)} ${links.padStart(4)} ${owner.padEnd(8)} ${group.padEnd(8)} ` +
    `${String(e.size).padStart(8)} ${lsDate(e.mtimeMs, now)} ${displayText(e.name, Infinity)}${link}`
  );
}

/** Names laid out in columns across `width` (ls -C: down the columns first), each escaped. */
export function columns(names: readonly string[], width: number): string[] {
  const shown = names.map((n) => displayText(n, Infinity));
  if (!shown.length) return [];
  const cell = Math.max(...shown.map((s) => s.length)) + 2;
  const cols = Math.max(1, Math.floor(width / cell));
  const rows = Math.ceil(shown.length / cols);
  const lines: string[] = [];
  for (let r = 0; r < rows; r++) {
    let line = '';
    for (let c = 0; c < cols && c * rows + r < shown.length; c++) line += shown[c * rows + r].padEnd(cell);
    lines.push(line.trimEnd());
  }
  return lines;
}

/**
 * One `--json` line: JSON.stringify, with the characters it leaves raw that reorder or control a terminal (C1, the
 * line and paragraph separators, the bidi controls) written as `\uNNNN` escapes: the same data, safe to look at.
 */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

const iso = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : new Date(ms).toISOString());

/**
 * The `--json` object of one entry (ls, stat): path, name, type, size (bytes), mode (octal text), permissions (the
 * mode string), mtime and atime (ISO 8601, UTC), uid, gid, owner and group (as the server's `ls -l` line names them),
 * target (a symlink's). Strings are the server's as they are (JSON escapes controls); absent fields are left out.
 */
export function entryJson(path: string, e: ShownEntry): Record<string, unknown> {
  const own = e.longname === undefined ? undefined : ownership(e);
  return {
    path,
    name: e.name,
    type: e.type,
    size: e.size,
    mode: octalMode(e.mode),
    permissions: modeString(e.mode, e.type, e.format),
    mtime: iso(e.mtimeMs),
    atime: iso(e.atimeMs),
    uid: e.uid,
    gid: e.gid,
    owner: own && own.owner !== String(e.uid) ? own.owner : undefined,
    group: own && own.group !== String(e.gid) ? own.group : undefined,
    target: e.target,
  };
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  file: 'regular file',
  dir: 'folder',
  symlink: 'symbolic link',
  other: 'special file',
};

/** `sluice stat`'s lines for one path (as stat(1)'s, shorter). */
export function statText(path: string, e: ShownEntry): string[] {
  const link = e.target !== undefined ? ` -> ${displayText(e.target, Infinity)}` : '';
  const ids = (label: string, n: number | undefined) => `${label}: ${n === undefined ? '?' : n}`;
  const when = (ms: number | undefined) =>
    ms === undefined
      ? '?'
      : new Date(ms)
          .toISOString()
          .replace('T', ' ')
          .replace(/\.\d+Z$/, ' UTC');
  return [
    `  File: ${displayText(path, Infinity)}${link}`,
    `  Type: ${TYPE_NAMES[e.type] ?? e.type}`,
    `  Size: ${e.size} bytes${e.size >= 1024 ? ` (${formatBytes(e.size)})` : ''}`,
    `  Mode: ${octalMode(e.mode)} (${modeString(e.mode, e.type, e.format)})  ${ids('Uid', e.uid)}  ${ids('Gid', e.gid)}`,
    `Modify: ${when(e.mtimeMs)}`,
    `Access: ${when(e.atimeMs)}`,
  ];
}

/** Sizes of a statvfs answer in bytes and inodes. */
export function fsUsage(s: FsStats): { size: number; used: number; avail: number; inodes: number; inodesFree: number } {
  const unit = s.frsize || s.bsize;
  return {
    size: s.blocks * unit,
    used: (s.blocks - s.bfree) * unit,
    avail: s.bavail * unit,
    inodes: s.files,
    inodesFree: s.ffree,
  };
}

/** `df -h`'s header and line for one path. */
export function dfLines(path: string, s: FsStats, inodes = false): string[] {
  const u = fsUsage(s);
  const pct = (used: number, avail: number) =>
    used + avail > 0 ? `${Math.ceil((used * 100) / (used + avail))}%` : '-';
  if (inodes) {
    const used = u.inodes - u.inodesFree;
    return [
      '  Inodes     IUsed     IFree IUse% Path',
      `${String(u.inodes).padStart(8)} ${String(used).padStart(9)} ${String(s.favail).padStart(9)} ${pct(used, s.favail).padStart(5)} ${displayText(path, Infinity)}`,
    ];
  }
  return [
    '      Size       Used      Avail Use% Path',
    `${formatBytes(u.size).padStart(10)} ${formatBytes(u.used).padStart(10)} ${formatBytes(u.avail).padStart(10)} ` +
      `${pct(u.used, u.avail).padStart(4)} ${displayText(path, Infinity)}`,
  ];
}
