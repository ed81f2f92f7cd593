/**
 * The Properties dialog's channels (#26 item 2): `remote.stat` (what a remote path is: type, size, modified, mode,
 * owner and group, a symlink's target) and `remote.chmod` (SSH_FXP_SETSTAT of a mode, recursively with FileZilla's
 * "apply to files only / folders only").
 */
import { z } from 'zod';

const id = z.string().min(1).max(200);
const path = z.string().min(1).max(4096);

/** Which entries a recursive chmod changes: every one, files only, or folders only (FileZilla's three choices). */
export const CHMOD_SCOPES = ['all', 'files', 'folders'] as const;
export type ChmodScope = (typeof CHMOD_SCOPES)[number];

export const remoteStatSchema = z.strictObject({ siteId: id, path });

export const remoteChmodSchema = z.strictObject({
  siteId: id,
  path,
  /** The permission bits to set (0 to 0o7777). */
  mode: z.number().int().min(0).max(0o7777),
  /** Absent: the path alone. Present: the path and everything below a folder, filtered by kind. */
  recurse: z.enum(CHMOD_SCOPES).optional(),
});

/** A remote path's properties, as the server gives them (untrusted text: the renderer shows it as text). */
export interface RemoteProps {
  /** The path as asked for. */
  path: string;
  /** The entry itself (a symlink is `symlink`, not its target's type). */
  type: 'file' | 'dir' | 'symlink' | 'other';
  /** Bytes (a symlink: its target's when the target exists, else the link's own). */
  size: number;
  /** Modification time, ms since the epoch. */
  mtimeMs: number;
  /** Permission bits (0o7777); a symlink: its target's (what chmod changes), else the link's own. */
  mode: number;
  /** Owner's and group's numeric ids, when the server sent them (draft-ietf-secsh-filexfer-02 §5 UIDGID). */
  uid?: number;
  gid?: number;
  /** A symlink: the path it names (SSH_FXP_READLINK, as stored), the type of what it names (absent: broken). */
  link?: { target: string; targetType?: 'file' | 'dir' | 'symlink' | 'other' };
}

/** What a `remote.chmod` did. */
export interface ChmodReport {
  /** SETSTATs answered OK. */
  changed: number;
  /** Entries already in the mode asked for, or left out by the scope (no request sent). */
  unchanged: number;
  /** Symlinks inside the tree, left alone (as chmod -R does). */
  links: number;
}
