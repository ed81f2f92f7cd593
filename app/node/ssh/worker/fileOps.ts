/**
 * The file manager's single requests that transfers never send: SSH_FXP_SETSTAT of a mode, SSH_FXP_SYMLINK,
 * statvfs@openssh.com, and a STAT that keeps the owner, group and access time.
 */
import { SluiceError, displayText } from '../../errors';
import { serverSoftware } from '../../ssh2x';
import type { FsStats, RemoteStat, WorkerOps } from '../workerProtocol';
import type { WorkerConn } from './conn';
import { call, statOn } from './sftpCalls';

/** SSH_FXP_STAT or LSTAT with the `long` fields (RemoteStat uid, gid, atimeMs, format); null when nothing is there. */
export function statLong(conn: WorkerConn, a: WorkerOps['statLong'][0]): Promise<RemoteStat | null> {
  return statOn(conn.sftpOf(a.channel), a.path, a.follow !== false, true);
}

/** SSH_FXP_SETSTAT with the PERMISSIONS field alone (draft-ietf-secsh-filexfer-02 §6.9, §5). */
export function setMode(conn: WorkerConn, a: WorkerOps['setMode'][0]): Promise<void> {
  const s = conn.sftpOf(a.channel);
  return call<void>((cb) => s.setstat(a.path, { mode: a.mode & 0o7777 }, cb), a.path, 'SETSTAT');
}

/**
 * SSH_FXP_SYMLINK (draft-ietf-secsh-filexfer-02 §6.10). OpenSSH's sftp-server reads the two paths in the other order
 * than the draft (OpenSSH PROTOCOL §3.1: target first, then the link), and so do ProFTPD's mod_sftp and SFTPGo (Go's
 * pkg/sftp), as tests here show (WinSCP reverses them for these servers too). ssh2 sends OpenSSH's order only to a
 * server whose identification says OpenSSH or dropbear, the draft's to the others: for those the two are given to it
 * swapped, so every server gets OpenSSH's order.
 */
export function symlink(conn: WorkerConn, a: WorkerOps['symlink'][0]): Promise<void> {
  const s = conn.sftpOf(a.channel);
  const openSshOrder = /^(?:OpenSSH|dropbear)/i.test(serverSoftware(conn.require().client));
  return call<void>(
    (cb) => (openSshOrder ? s.symlink(a.target, a.path, cb) : s.symlink(a.path, a.target, cb)),
    a.path,
    'SYMLINK',
  );
}

/** One uint64 of the answer as a number (ssh2 gives a number, or a bigint or string past 2^53 with biOpt). */
const num = (v: unknown): number => Number(v ?? 0);

/**
 * statvfs@openssh.com (OpenSSH PROTOCOL §4.4): the sizes and free space of the file system holding `a.path`.
 * @throws SluiceError REMOTE_FAILURE naming the extension when the server did not offer it; the server's refusal
 */
export async function statvfs(conn: WorkerConn, a: WorkerOps['statvfs'][0]): Promise<FsStats> {
  if (!conn.hasExt('statvfs@openssh.com')) {
    throw new SluiceError(
      'REMOTE_FAILURE',
      `${displayText(a.path)}: the server does not offer statvfs@openssh.com ` +
        '(an OpenSSH extension), so it cannot tell the size and free space of its file systems',
    );
  }
  const s = conn.sftpOf(a.channel);
  const v = await call<Record<string, unknown>>(
    (cb) => s.ext_openssh_statvfs(a.path, cb),
    a.path,
    'statvfs@openssh.com',
  );
  return {
    bsize: num(v.f_bsize),
    frsize: num(v.f_frsize),
    blocks: num(v.f_blocks),
    bfree: num(v.f_bfree),
    bavail: num(v.f_bavail),
    files: num(v.f_files),
    ffree: num(v.f_ffree),
    favail: num(v.f_favail),
    flag: num(v.f_flag),
    namemax: num(v.f_namemax),
  };
}
