/**
 * The file manager's requests that make a new file: an empty one (SSH_FXP_OPEN with CREAT|EXCL, then CLOSE) and a copy
 * made by the server itself (the `copy-data` extension, OpenSSH PROTOCOL §4.10, sftp-server 9.0 and later).
 */
import { SluiceError, displayText } from '../../errors';
import type { WorkerOps } from '../workerProtocol';
import type { WorkerConn } from './conn';
import { OPEN_MODE, call, closeRemote, openRemote, statOn } from './sftpCalls';

/**
 * An empty file at `a.path`, never over an existing one: SSH_FXP_OPEN with WRITE|CREAT|EXCL
 * (draft-ietf-secsh-filexfer-02 §6.3: EXCL fails when the file exists), then SSH_FXP_CLOSE.
 * @throws SluiceError EXISTS when something has that name; the server's refusal naming the path
 */
export async function createFile(conn: WorkerConn, a: WorkerOps['createFile'][0]): Promise<void> {
  const s = conn.sftpOf(a.channel);
  let h: Buffer;
  try {
    h = await openRemote(s, a.path, OPEN_MODE.WRITE | OPEN_MODE.CREAT | OPEN_MODE.EXCL);
  } catch (e) {
    // A server answers an existing name with SSH_FX_FAILURE (v3 has no FILE_ALREADY_EXISTS): say what is there.
    if (await statOn(s, a.path, false).catch(() => null))
      throw new SluiceError('EXISTS', `cannot create ${displayText(a.path)}: a file or folder of that name exists`);
    throw e;
  }
  await closeRemote(s, h, a.path);
}

/**
 * A copy of the file `a.from` at `a.to` made by the server (`copy-data`: read handle, offset 0, length 0 = to the end,
 * write handle, offset 0), never over an existing file (the target is opened CREAT|EXCL); a failed copy's target is
 * removed again. @throws SluiceError REMOTE_FAILURE when the server does not offer `copy-data`; EXISTS; the server's
 * refusal naming the path
 */
export async function copyData(conn: WorkerConn, a: WorkerOps['copyData'][0]): Promise<void> {
  if (!conn.hasExt('copy-data'))
    throw new SluiceError('REMOTE_FAILURE', `${displayText(a.from)}: the server does not offer copy-data`);
  const s = conn.sftpOf(a.channel);
  const src = await openRemote(s, a.from, OPEN_MODE.READ);
  try {
    const attrs = await call<{ mode?: number }>((cb) => s.fstat(src, cb), a.from, 'FSTAT');
    const mode = attrs.mode === undefined ? undefined : attrs.mode & 0o7777;
    const dst = await openRemote(s, a.to, OPEN_MODE.WRITE | OPEN_MODE.CREAT | OPEN_MODE.EXCL, mode).catch(
      async (e: unknown) => {
        if (await statOn(s, a.to, false).catch(() => null))
          throw new SluiceError('EXISTS', `cannot copy to ${displayText(a.to)}: a file or folder of that name exists`);
        throw e;
      },
    );
    try {
      await call<void>((cb) => s.ext_copy_data(src, 0, 0, dst, 0, cb), a.to, 'copy-data');
    } catch (e) {
      await closeRemote(s, dst, a.to).catch(() => undefined);
      await call<void>((cb) => s.unlink(a.to, cb), a.to, 'REMOVE').catch(() => undefined);
      throw e;
    }
    await closeRemote(s, dst, a.to);
  } finally {
    await closeRemote(s, src, a.from).catch(() => undefined);
  }
}
