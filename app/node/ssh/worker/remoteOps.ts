/**
 * Single remote operations: STAT, folder listings, MKDIR, the commit's rename, handles opened ahead.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import { SluiceError, displayText, fromSftpError } from '../../errors';
import { hiddenSiblingName } from '../../../common/nameBytes';
import { LeftoverJournal } from '../../stores/leftovers';
import type { CallContext, RemoteEntry, RemoteStat, WorkerOps } from '../workerProtocol';
import type { WorkerConn } from './conn';
import {
  OPEN_MODE,
  SEGMENT_FLAGS,
  SSH_FX_EOF,
  S_IFMT,
  S_IFREG,
  call,
  closeRemote,
  openRemote,
  statOn,
  statToRemote,
  statToRemoteLong,
} from './sftpCalls';

export async function openAhead(conn: WorkerConn, a: WorkerOps['openAhead'][0]): Promise<void> {
  for (const channel of a.channels) {
    const s = conn.sftpOf(channel);
    conn.handlesAhead.add(s, a.remotePath, openRemote(s, a.remotePath, SEGMENT_FLAGS, a.mode));
  }
  // And on the early channels still opening, behind their INIT (earlyAhead.ts).
  conn.earlyAhead.path(a.remotePath, a.mode);
}

/**
 * Whether the existing file `a.path` may be written (see WorkerOps.canWrite): an SSH_FXP_OPEN with WRITE alone,
 * whose handle is closed without waiting for the answer.
 * @throws SluiceError other than a refusal (a lost connection)
 */
export async function canWrite(conn: WorkerConn, a: WorkerOps['canWrite'][0]): Promise<boolean> {
  const s = conn.sftpOf(a.channel);
  try {
    const h = await openRemote(s, a.path, OPEN_MODE.WRITE);
    void closeRemote(s, h, a.path).catch(() => undefined);
    return true;
  } catch (e) {
    const code = SluiceError.from(e).code;
    if (code === 'PERMISSION_DENIED' || code === 'NO_SUCH_FILE') return false;
    throw e;
  }
}

/** SSH_FXP_STAT, or SSH_FXP_LSTAT with `follow: false`; null when the path does not exist. */
export async function stat(conn: WorkerConn, a: WorkerOps['stat'][0]): Promise<RemoteStat | null> {
  return statOn(conn.sftpOf(a.channel), a.path, a.follow !== false);
}

/** One name of an SSH_FXP_NAME answer; its ATTRS fields are each optional (draft-ietf-secsh-filexfer-02 §5). */
export type DirEntry = {
  filename: string;
  longname?: string;
  attrs: { mode?: number; size?: number; mtime?: number; atime?: number; uid?: number; gid?: number };
};

/** LSTATs of names listed without attributes sent at once (a server that never sends ATTRS in NAME answers). */
const BARE_STATS_AT_ONCE = 32;

/** A name listed without its type (no PERMISSIONS in its ATTRS), or a regular file without its SIZE. */
function isBare(e: DirEntry): boolean {
  const { mode, size } = e.attrs;
  return mode === undefined || ((mode & S_IFMT) === S_IFREG && size === undefined);
}

/**
 * The listing's names as RemoteEntries. Names whose ATTRS lack the type or a file's size (legal in SFTP v3: every
 * ATTRS field is optional) are asked with SSH_FXP_LSTAT, at most {@link BARE_STATS_AT_ONCE} at a time; one that
 * no longer exists is left out, one whose LSTAT fails keeps what the listing said.
 */
async function toEntries(s: SFTPWrapper, dir: string, names: DirEntry[], long = false): Promise<RemoteEntry[]> {
  const attrsOf = (e: DirEntry) => (long ? statToRemoteLong(e.attrs, e.longname) : statToRemote(e.attrs));
  const out = names.map((e): RemoteEntry | null => (isBare(e) ? null : { name: e.filename, ...attrsOf(e) }));
  const bare = names.flatMap((e, i) => (isBare(e) ? [i] : []));
  let next = 0;
  const statOne = async (i: number): Promise<void> => {
    const name = names[i].filename;
    const p = dir.endsWith('/') ? dir + name : `${dir}/${name}`;
    const st = await statOn(s, p, false, long).catch(() => attrsOf(names[i]));
    if (st) out[i] = { name, ...st };
  };
  await Promise.all(
    Array.from({ length: Math.min(BARE_STATS_AT_ONCE, bare.length) }, async () => {
      while (next < bare.length) await statOne(bare[next++]);
    }),
  );
  return out.filter((e): e is RemoteEntry => e !== null);
}

/** One SSH_FXP_READDIR on an open folder handle: its names, or null at end of folder (SSH_FX_EOF). */
export function readdirOnce(s: SFTPWrapper, h: Buffer, p: string): Promise<DirEntry[] | null> {
  return new Promise((resolve, reject) => {
    s.readdir(h, (err: (Error & { code?: number }) | undefined, list: DirEntry[]) => {
      if (err?.code === SSH_FX_EOF) resolve(null);
      else if (err) reject(fromSftpError(err, p));
      else resolve(list);
    });
  });
}

/**
 * Names one listing may hold: a server that never ends a folder (READDIR answering names forever) would otherwise
 * grow memory without end (~22 MB per 100k names). Generous: OpenSSH's sftp has no limit, and a folder of a million
 * files is already beyond what people keep in one folder.
 */
export const MAX_LISTING_NAMES = 1_000_000;
/** SSH_FXP_NAME answers without a name, in a row, before a listing is given up (a server that never says EOF). */
export const MAX_EMPTY_ANSWERS = 100;

/**
 * Reads a folder: SSH_FXP_OPENDIR, then SSH_FXP_READDIRs two at a time on its handle (answered in order,
 * draft-ietf-secsh-filexfer-02 §6.7; OpenSSH sends up to 100 names per answer, so the second usually says EOF),
 * and an SSH_FXP_CLOSE that is not waited for: two round trips for most folders, where ssh2's readdir(path)
 * takes four. An answer after the end of the folder is ignored, error or not. Each answer's names (without `.` and
 * `..`) go to `onNames` as they arrive; the next READDIRs wait for it. A READDIR waits as long as any request does:
 * the SFTP reply watchdog (worker/signals.ts) ends a connection whose server stops answering.
 * @returns the number of names
 * @throws SluiceError REMOTE_FAILURE past {@link MAX_LISTING_NAMES} names or {@link MAX_EMPTY_ANSWERS} empty answers;
 *   ABORTED once `signal` fires (no READDIR is sent after it)
 */
async function readFolder(
  conn: WorkerConn,
  dir: string,
  channel: number | undefined,
  signal: AbortSignal,
  onNames: (names: RemoteEntry[]) => Promise<void>,
  long = false,
): Promise<number> {
  const s = conn.sftpOf(channel);
  const h = await call<Buffer>((cb) => s.opendir(dir, cb), dir);
  let count = 0;
  let empty = 0;
  try {
    for (;;) {
      if (signal.aborted) throw new SluiceError('ABORTED', `listing of ${displayText(dir)} cancelled`);
      const answers = [readdirOnce(s, h, dir), readdirOnce(s, h, dir)];
      // Marked handled up front: after an error or the end, the other answer is not awaited.
      answers.forEach((answer) => answer.catch(() => undefined));
      for (const answer of answers) {
        const names = await answer;
        if (names === null) return count;
        empty = names.length === 0 ? empty + 1 : 0;
        if (empty >= MAX_EMPTY_ANSWERS) {
          throw new SluiceError(
            'REMOTE_FAILURE',
            `READDIR ${displayText(dir)}: the server answered ` +
              `${MAX_EMPTY_ANSWERS} times in a row with no names and never ended the folder`,
          );
        }
        count += names.length;
        if (count > MAX_LISTING_NAMES) {
          throw new SluiceError(
            'REMOTE_FAILURE',
            `READDIR ${displayText(dir)}: the folder lists more than ` +
              `${MAX_LISTING_NAMES.toLocaleString('en-US')} names, the limit of one listing; not read further`,
          );
        }
        const entries = await toEntries(
          s,
          dir,
          names.filter((e) => e.filename !== '.' && e.filename !== '..'),
          long,
        );
        if (entries.length) await onNames(entries);
      }
    }
  } finally {
    void closeRemote(s, h, dir).catch(() => undefined);
  }
}

/** A whole folder's names (see {@link readFolder}). */
export async function list(conn: WorkerConn, a: WorkerOps['list'][0], ctx: CallContext): Promise<RemoteEntry[]> {
  const out: RemoteEntry[] = [];
  await readFolder(
    conn,
    a.path,
    a.channel,
    ctx.signal,
    async (names) => {
      out.push(...names);
    },
    a.long === true,
  );
  return out;
}

/**
 * A folder's names handed to the caller as they arrive, with back-pressure (see WorkerOps.listEach); with `long`,
 * each with its owner, group, access time and the server's `ls -l` line.
 */
export function listEach(conn: WorkerConn, a: WorkerOps['listEach'][0], ctx: CallContext): Promise<number> {
  return readFolder(conn, a.path, a.channel, ctx.signal, (names) => ctx.items(names), a.long === true);
}

export async function mkdir(conn: WorkerConn, a: WorkerOps['mkdir'][0]): Promise<'created' | 'exists'> {
  const s = conn.sftpOf(a.channel);
  try {
    await call<void>((cb) => s.mkdir(a.path, a.mode === undefined ? {} : { mode: a.mode }, cb), a.path);
    return 'created';
  } catch (e) {
    const st = await stat(conn, { channel: a.channel, path: a.path });
    if (st?.type === 'dir') return 'exists';
    throw e;
  }
}

export function tempSibling(p: string, tag: string): string {
  const suffix = `.sluice-${randomBytes(4).toString('hex')}.${tag}`;
  return path.posix.join(path.posix.dirname(p), hiddenSiblingName(path.posix.basename(p), suffix));
}

/**
 * Renames `from` onto `to`. Overwrite: posix-rename@openssh.com (atomic replace, OpenSSH PROTOCOL §4.3);
 * where it is missing, SSH_FXP_RENAME (SFTPGo replaces the target with it), and where that fails onto an existing
 * target, a sequence that never deletes the target first: move the target aside (recorded in the leftovers journal
 * first, so a kill between the renames is repaired on the next connection), rename, then remove the old copy
 * (restoring it if the second rename fails). No-clobber: SSH_FXP_RENAME after checking the target.
 */
export async function rename(conn: WorkerConn, a: WorkerOps['rename'][0]): Promise<void> {
  const s = conn.sftpOf(a.channel);
  const plain = (from: string, to: string) =>
    call<void>((cb) => s.rename(from, to, cb), from === a.from ? a.to : to, 'RENAME');
  if (a.mode === 'no-clobber') {
    if (await stat(conn, { channel: a.channel, path: a.to, follow: false })) {
      throw new SluiceError('EXISTS', `${a.to} exists (--no-clobber)`);
    }
    return plain(a.from, a.to);
  }
  if (conn.hasExt('posix-rename@openssh.com')) {
    return call<void>((cb) => s.ext_openssh_rename(a.from, a.to, cb), a.to, 'posix-rename@openssh.com');
  }
  try {
    return await plain(a.from, a.to);
  } catch (e) {
    if (!(await stat(conn, { channel: a.channel, path: a.to, follow: false }))) throw e;
  }
  const c = conn.require();
  const journal = new LeftoverJournal(c.params.dataDir, {
    host: c.params.host,
    port: c.params.port,
    user: c.params.username,
  });
  const aside = tempSibling(a.to, 'old');
  const entry = journal.record({ kind: 'aside', path: aside, target: a.to });
  await plain(a.to, aside).catch((e: unknown) => {
    journal.forget(entry);
    throw e;
  });
  try {
    await plain(a.from, a.to);
  } catch (e) {
    await plain(aside, a.to).then(
      () => journal.forget(entry),
      () => undefined,
    );
    throw e;
  }
  await call<void>((cb) => s.unlink(aside, cb), aside, 'REMOVE').then(
    () => journal.forget(entry),
    () => undefined,
  );
}
