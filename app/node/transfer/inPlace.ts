/**
 * Uploads where only the target is writable (issue #14): an existing file the user may write, in a folder where
 * they may not create files, so the temporary name `.NAME.sluice-XXXXXXXX.part` is refused (SSH_FX_PERMISSION_DENIED
 * on its SSH_FXP_OPEN). OpenSSH's `sftp` succeeds there because it writes the target itself; so does Sluice then,
 * as WinSCP does when its temporary-name upload is refused: the target is truncated and written in place through
 * one handle (transferFile.ts `writeInPlace`), its attributes set, verified as usual, and the job warns once. The
 * journal still records the file's end; an interrupted in-place write leaves the target partial (`append` resumes
 * it when run again).
 */
import path from 'node:path';
import { displayText, type SluiceError } from '../errors';
import type { Lane } from '../ssh/connectionPool';

/** Whether `e` is the server refusing to create the temporary file `temp` (permission denied on its OPEN). */
export function tempCreationRefused(e: SluiceError, temp: string): boolean {
  return e.code === 'PERMISSION_DENIED' && /^OPEN\b/.test(e.message) && e.message.includes(displayText(temp));
}

/**
 * Whether `dst` exists as a regular file that the server lets us open for writing (SSH_FXP_STAT, then an
 * SSH_FXP_OPEN with WRITE alone, which neither creates nor truncates it).
 * @throws SluiceError of a lost connection
 */
export async function targetWritable(lane: Lane, dst: string): Promise<boolean> {
  const st = await lane.conn.call('stat', { channel: lane.channel, path: dst });
  return st?.type === 'file' && lane.conn.call('canWrite', { channel: lane.channel, path: dst });
}

/** Says, once per job as a warning (later files as information), that a target is written in place. */
export class InPlaceNotices {
  private warned = false;

  constructor(private readonly log: (level: 'info' | 'warn', message: string) => void) {}

  /** Tells the user that `dst` is written in place, and why. */
  writingInPlace(dst: string): void {
    const dir = path.posix.dirname(dst);
    this.log(this.warned ? 'info' : 'warn', `cannot create files in ${dir}: writing ${dst} in place`);
    this.warned = true;
  }
}
