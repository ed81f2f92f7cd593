/**
 * Who owns a remote entry, as the server names it: SSH_FXP_NAME's `ls -l` line (draft-ietf-secsh-filexfer-02 §7)
 * carries the owner's and group's names, the ATTRS only the numeric ids (§5). Used by `sluice ls -l` / `stat`
 * (cli/fileFormat.ts) and the app's remote listing (service/remoteListing.ts).
 */
import { displayText } from '../errors';
import type { RemoteStat } from '../ssh/workerProtocol';

/**
 * The link count, owner and group of an entry: from the server's `ls -l` line (OpenSSH, ProFTPD and SFTPGo send
 * one whose 2nd to 5th fields are links, owner, group and size) when its size agrees with the ATTRS', else the
 * numeric ids, as `sftp -n` shows them, and `?` for the unknown link count. Names are escaped (displayText) and cut at
 * 32 characters (marked …).
 */
export function ownership(e: Pick<RemoteStat, 'longname' | 'uid' | 'gid' | 'size'>): {
  links: string;
  owner: string;
  group: string;
} {
  const m = e.longname === undefined ? null : /^\S{10}\S?\s+(\d+)\s+(\S+)\s+(\S+)\s+(\d+)\s/.exec(e.longname);
  if (m && Number(m[4]) === e.size) return { links: m[1], owner: displayText(m[2], 32), group: displayText(m[3], 32) };
  return {
    links: '?',
    owner: e.uid === undefined ? '?' : String(e.uid),
    group: e.gid === undefined ? '?' : String(e.gid),
  };
}
