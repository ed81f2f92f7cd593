/**
 * The Properties dialog's permissions (#26 item 2): a rwx grid (owner, group, others × read, write, execute) and an
 * octal field kept in step, and FileZilla's recursion choice for a folder. Pure state: views/ModeGrid.tsx shows it.
 */
import type { ChmodScope } from '../../app/common/ipc/contract';

export const WHO = ['owner', 'group', 'others'] as const;
export const PERMS = ['read', 'write', 'execute'] as const;
export type Who = (typeof WHO)[number];
export type Perm = (typeof PERMS)[number];

/** The bit of one checkbox of the grid, e.g. owner × write = 0o200. */
export function modeBit(who: Who, perm: Perm): number {
  return (4 >> PERMS.indexOf(perm)) << (3 * (2 - WHO.indexOf(who)));
}

export interface ModeForm {
  /** The bits shown by the grid (0o7777: the set-id and sticky bits kept from the server, or typed in octal). */
  mode: number;
  /** The octal field's text, as typed (may be invalid while typing). */
  octal: string;
  /** The mode as the server had it: Apply is needed only when `mode` differs, or with recursion. */
  original: number;
  /** A folder only: also change what is inside, and which kinds. */
  recurse: boolean;
  scope: ChmodScope;
}

/** The mode's bits as the octal field shows them: three digits, four with a set-id or sticky bit. */
export function octalText(mode: number): string {
  const bits = mode & 0o7777;
  return bits.toString(8).padStart(bits > 0o777 ? 4 : 3, '0');
}

/** The form for a path whose mode is `mode`. */
export function modeForm(mode: number): ModeForm {
  const bits = mode & 0o7777;
  return { mode: bits, octal: octalText(bits), original: bits, recurse: false, scope: 'all' };
}

/** A checkbox flipped: the octal field follows. */
export function toggleBit(f: ModeForm, who: Who, perm: Perm): ModeForm {
  const mode = f.mode ^ modeBit(who, perm);
  return { ...f, mode, octal: octalText(mode) };
}

/** Octal text typed: 1 to 4 octal digits set the grid; other text stays in the field and is reported invalid. */
export function typeOctal(f: ModeForm, text: string): ModeForm {
  const t = text.trim();
  return /^[0-7]{1,4}$/.test(t) ? { ...f, octal: text, mode: parseInt(t, 8) } : { ...f, octal: text };
}

/** Why the octal field cannot be applied, or null. */
export function octalError(f: ModeForm): string | null {
  return /^[0-7]{1,4}$/.test(f.octal.trim()) ? null : 'Permissions are 3 or 4 octal digits, e.g. 644 or 0755';
}

/** What Apply sends, or null when nothing would change (or the octal field is invalid). */
export function chmodRequest(f: ModeForm): { mode: number; recurse?: ChmodScope } | null {
  if (octalError(f)) return null;
  if (f.recurse) return { mode: f.mode, recurse: f.scope };
  return f.mode === f.original ? null : { mode: f.mode };
}
