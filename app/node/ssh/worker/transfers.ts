/**
 * Moving file data: byte ranges through the pipeline (segments), whole small and large files through one handle, and
 * the end of an upload (fsync, size, close) with its request order.
 */
import fs from 'node:fs';
import type { SFTPWrapper } from 'ssh2';
import {
  COUNTERS_PER_CHANNEL,
  COUNTER_BYTES,
  ShortFileError,
  downloadRange,
  uploadRange,
  type RangeOptions,
} from '../../sftp/pipeline';
import {
  tempFileMode,
  type CallContext,
  type GetFileTask,
  type KeptAttributes,
  type PutFileTask,
  type RangeTask,
  type UploadEnd,
  type WorkerOps,
} from '../workerProtocol';
import type { WorkerConn } from './conn';
import { closeSegmentHandles, closeUnlessAborted } from './handles';
import {
  OPEN_MODE,
  SEGMENT_FLAGS,
  call,
  closeRemote,
  fsetstatRemote,
  fsyncRemote,
  openLocal,
  openRemote,
  rangeError,
  uploadError,
} from './sftpCalls';
import { reserveSpace } from '../../sys/preallocate';
import type { RangeCheckpoints } from '../../sftp/rangeCheckpoints';
import type { SegmentHandle } from '../../sftp/segmentHandles';

/**
 * Pipeline options for one call: its channel's request budget and counters, the speed limits, the call's cancel
 * signal, and its progress reporter.
 */
export function rangeOptions(conn: WorkerConn, channel: number, chunkSize: number, ctx: CallContext): RangeOptions {
  const c = conn.require();
  return {
    signal: ctx.signal,
    chunkSize,
    slots: c.slots[channel],
    counters: c.counters.subarray(channel * COUNTERS_PER_CHANNEL, (channel + 1) * COUNTERS_PER_CHANNEL),
    onBytes: ctx.progress,
    rate: c.rate,
  };
}

/**
 * SSH_FXP_WRITEs one upload task keeps outstanding: 8 × 255 KiB fills the 2 MiB channel window sshd opens
 * (OpenSSH CHAN_SES_WINDOW_DEFAULT) on its own. More only wait in ssh2's channel buffer, where an abort's cleanup
 * would queue behind them, and cost memory and page faults up front: 20 segments at 24 each read ~120 MiB
 * before the first write left (measured 45–80 ms at 50 ms RTT). 4 to 24 measured alike, on loopback and at 50 ms.
 */
export const UPLOAD_MAX_IN_FLIGHT = 8;

/**
 * Runs one segment: copies [start, end) with the pipeline through the handle pair this channel kept for the file
 * (else opens both sides), and keeps the pair for the file's next segment unless the segment failed.
 */
export async function rangeTask(
  conn: WorkerConn,
  t: RangeTask,
  direction: 'download' | 'upload',
  ctx: CallContext,
): Promise<number> {
  const c = conn.require();
  const s = conn.sftpOf(t.channel);
  const down = direction === 'download';
  const released = conn.segmentHandles.releaseCount(t.remotePath);
  let h = conn.segmentHandles.take(t.channel, direction, t.remotePath, t.localPath);
  if (!h) {
    const remote = await (conn.handlesAhead.take(s, t.remotePath) ??
      openRemote(s, t.remotePath, down ? 'r' : SEGMENT_FLAGS, down ? undefined : t.mode));
    try {
      h = { channel: t.channel, remote, local: await openLocal(t.localPath, down ? 'r+' : 'r') };
    } catch (e) {
      await closeRemote(s, remote, t.remotePath).catch(() => undefined);
      throw e;
    }
  }
  const o = rangeOptions(conn, t.channel, down ? c.info.maxRead : c.info.maxWrite, ctx);
  if (!down) {
    o.maxInFlight = UPLOAD_MAX_IN_FLIGHT;
    o.budget = c.uploads;
  }
  o.expectEof = down && t.fileEnd === true;
  o.checkpoints = rangeCheckpoints(conn, t, down, s, h, ctx);
  let ok = false;
  try {
    const n = await (down ? downloadRange : uploadRange)(s, h.remote, h.local.fd, t.start, t.end, o);
    ok = true;
    return n;
  } catch (e) {
    throw (down ? rangeError : uploadError)(e, t.remotePath, t.localPath);
  } finally {
    // After an abort the CLOSE may queue behind replies still on their way: not waited for (see closeUnlessAborted).
    if (!ok || conn.closedError || !conn.segmentHandles.putBack(direction, t.remotePath, t.localPath, h, released)) {
      await closeSegmentHandles(conn, [h], t.remotePath, !o.signal?.aborted);
    }
  }
}

/**
 * The checkpoints of a range task that asks for them (RangeTask.checkpointMs): a download fsyncs its local file, an
 * upload sends fsync@openssh.com on the segment's own handle (none where the server lacks it).
 */
function rangeCheckpoints(
  conn: WorkerConn,
  t: RangeTask,
  down: boolean,
  s: SFTPWrapper,
  h: SegmentHandle<fs.promises.FileHandle>,
  ctx: CallContext,
): RangeCheckpoints | undefined {
  if (!t.checkpointMs || (!down && !conn.hasExt('fsync@openssh.com'))) return undefined;
  const sync = down
    ? (done: (err: Error | null) => void) => fs.fdatasync(h.local.fd, done)
    : (done: (err: Error | null) => void) => s.ext_openssh_fsync(h.remote, (err?: Error | null) => done(err ?? null));
  const ordered = conn.require().info.ordersRequests;
  return { everyMs: t.checkpointMs, ordered, sync, onDurable: (end) => ctx.durable(end) };
}

/**
 * A journal checkpoint (see WorkerOps.checkpoint): the WRITEs of every range already answered are made durable.
 * An upload borrows the handle this channel kept for the file; a download fsyncs its local file.
 */
export async function checkpoint(conn: WorkerConn, a: WorkerOps['checkpoint'][0]): Promise<boolean> {
  if (a.direction === 'download') {
    const fh = await openLocal(a.localPath, 'r+');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    return true;
  }
  if (!conn.hasExt('fsync@openssh.com')) return false;
  const s = conn.sftpOf(a.channel);
  // The kept handle, unless the channel's other segment holds it: then one opened for the fsync (no create, no
  // truncate).
  const released = conn.segmentHandles.releaseCount(a.remotePath);
  const kept = conn.segmentHandles.take(a.channel, 'upload', a.remotePath, a.localPath);
  const remote = kept?.remote ?? (await openRemote(s, a.remotePath, OPEN_MODE.WRITE));
  try {
    return await fsyncRemote(s, remote, a.remotePath, true);
  } finally {
    // The file may have been released while the fsync was on its way (given up on a pause): its handle goes then too.
    if (!kept) await closeRemote(s, remote, a.remotePath).catch(() => undefined);
    else if (!conn.closedError && !conn.segmentHandles.putBack('upload', a.remotePath, a.localPath, kept, released)) {
      await closeSegmentHandles(conn, [kept], a.remotePath);
    }
  }
}

/**
 * The end of an upload on one handle whose data the server has acknowledged: SSH_FXP_FSETSTAT of `keep` (the source's
 * mtime, permissions), fsync@openssh.com (where offered), SSH_FXP_FSTAT for the size check, and SSH_FXP_CLOSE. A
 * server that answers in order takes the four in one round trip; elsewhere the CLOSE waits for the other replies (it
 * could overtake them, and a concurrent server may commit the file on CLOSE), and the caller's rename waits for the
 * CLOSE. The FSETSTAT goes after the last WRITE's reply there (a WRITE that took effect after it would date the file
 * now), and a refused one does not fail the upload.
 * @param data a last SSH_FXP_WRITE of `buf` at `offset` (the rest of a file that fits one request), sent first; on a
 *   server that does not order requests its reply is awaited before the other requests
 * @returns the size the server reports after the writes, whether it fsynced, and the FSETSTAT's refusal if any
 */
export async function finishHandle(
  conn: WorkerConn,
  s: SFTPWrapper,
  h: Buffer,
  p: string,
  data?: { buf: Buffer; offset: number },
  keep?: KeptAttributes,
): Promise<UploadEnd> {
  const ordered = conn.require().info.ordersRequests;
  const written = data
    ? call<void>((cb) => s.write(h, data.buf, 0, data.buf.length, data.offset, cb), p, {
        op: 'WRITE',
        offset: data.offset,
      })
    : Promise.resolve();
  if (!ordered) {
    try {
      await written;
    } catch (e) {
      await closeRemote(s, h, p).catch(() => undefined);
      throw e;
    }
  }
  // Before the fsync, which then makes the new times durable too; never rejects.
  const attrs = fsetstatRemote(s, h, p, keep);
  const synced = fsyncRemote(s, h, p, conn.hasExt('fsync@openssh.com'));
  const stated = call<{ size: number }>((cb) => s.fstat(h, cb), p, 'FSTAT');
  const closed = ordered
    ? closeRemote(s, h, p)
    : Promise.allSettled([attrs, synced, stated]).then(() => closeRemote(s, h, p));
  try {
    const [, fsynced, st, refused] = await Promise.all([written, synced, stated, attrs, closed]);
    return refused ? { size: st.size, fsynced, attrsRefused: refused } : { size: st.size, fsynced };
  } finally {
    await Promise.allSettled([written, synced, stated, closed]);
  }
}

/**
 * Ends a segmented upload on this connection: {@link finishHandle} on the handle this channel kept from a segment
 * (else one it opens), while the SSH_FXP_CLOSEs of every other handle this connection kept for the file go out.
 */
export async function finishUpload(conn: WorkerConn, a: WorkerOps['finishUpload'][0]): Promise<UploadEnd> {
  const channel = a.channel ?? 0;
  const s = conn.sftpOf(channel);
  const kept = conn.segmentHandles.takeAll(a.path);
  // Handles opened ahead on channels that ran no segment of the file (an early channel that came up late): closed.
  void conn.handlesAhead.drop(a.path);
  const own = kept.find((h) => h.channel === channel);
  const closingOthers = closeSegmentHandles(
    conn,
    kept.filter((h) => h !== own),
    a.path,
  );
  try {
    const h = own?.remote ?? (await openRemote(s, a.path, OPEN_MODE.WRITE));
    return await finishHandle(conn, s, h, a.path, undefined, a.keep);
  } finally {
    await Promise.all([closingOthers, own?.local.close().catch(() => undefined)]);
  }
}

/** Closes the handles this connection kept for `remotePath` (segments done, or the file given up). */
export async function releaseFile(conn: WorkerConn, a: WorkerOps['releaseFile'][0]): Promise<void> {
  await conn.handlesAhead.drop(a.remotePath);
  await closeSegmentHandles(
    conn,
    conn.segmentHandles.takeAll(a.remotePath, a.localPath),
    a.remotePath,
    a.direction === 'upload',
  );
}

/** Opens an upload's remote file: its temporary name (created, truncated), or the target in place (see InPlace). */
function openUploadTarget(s: SFTPWrapper, t: PutFileTask): Promise<Buffer> {
  if (!t.inPlace) return openRemote(s, t.remoteTemp, 'w', t.mode, 'OPEN (create)');
  const flags = OPEN_MODE.WRITE | (t.inPlace.offset === 0 ? OPEN_MODE.TRUNC : 0);
  return openRemote(s, t.remoteTemp, flags, undefined, 'OPEN (in place)');
}

/**
 * Uploads a whole file through one handle, in order, then sets its attributes, fsyncs, reads back the size and closes
 * ({@link finishHandle}: one round trip for the tail, and for a file that fits one request the SSH_FXP_WRITE too,
 * on a server that answers in order; the replies each step depends on are awaited elsewhere). With `t.inPlace`,
 * only the bytes from its offset on are sent, into the target.
 * @returns the remote size after writing (from the fstat), and a refused FSETSTAT
 */
export async function putFile(conn: WorkerConn, t: PutFileTask, ctx: CallContext): Promise<UploadEnd> {
  const c = conn.require();
  const s = conn.sftpOf(t.channel);
  const local = await openLocal(t.localPath, 'r');
  let h: Buffer | null = null;
  const o = rangeOptions(conn, t.channel, c.info.maxWrite, ctx);
  o.maxInFlight = UPLOAD_MAX_IN_FLIGHT;
  o.budget = c.uploads;
  const from = t.inPlace?.offset ?? 0;
  const rest = t.size - from;
  try {
    h = await openUploadTarget(s, t);
    const handle = h;
    let small: Buffer | null = null;
    if (rest > 0 && rest <= c.info.maxWrite) {
      await c.rate.take(rest, o.signal);
      small = Buffer.allocUnsafe(rest);
      const { bytesRead } = await local.read(small, 0, rest, from);
      if (bytesRead !== rest) throw new ShortFileError(from + bytesRead);
    } else if (rest > 0) {
      await uploadRange(s, handle, local.fd, from, t.size, o);
    }
    h = null;
    const end = await finishHandle(
      conn,
      s,
      handle,
      t.remoteTemp,
      small ? { buf: small, offset: from } : undefined,
      t.keep,
    );
    if (small) {
      o.counters![COUNTER_BYTES] += small.length;
      o.onBytes!(small.length);
    }
    return end;
  } catch (e) {
    throw uploadError(e, t.remoteTemp, t.localPath);
  } finally {
    await local.close().catch(() => undefined);
    if (h) await closeUnlessAborted(s, h, t.remoteTemp, o.signal);
  }
}

export async function getFile(conn: WorkerConn, t: GetFileTask, ctx: CallContext): Promise<number> {
  const c = conn.require();
  const s = conn.sftpOf(t.channel);
  let h: Buffer | null = await (conn.handlesAhead.take(s, t.remotePath) ?? openRemote(s, t.remotePath, 'r'));
  void conn.handlesAhead.drop(t.remotePath);
  const o = rangeOptions(conn, t.channel, c.info.maxRead, ctx);
  // The file is complete only when a READ at its end says EOF (sent with the last data READ; an empty file's alone).
  o.expectEof = true;
  let local: fs.promises.FileHandle | null = null;
  const from = t.inPlace?.offset ?? 0;
  try {
    // In place (the conflict rule `append`): the target's first `from` bytes stay, the rest is written after them.
    local = await (t.inPlace
      ? openLocal(t.localTemp, from > 0 ? 'r+' : 'w')
      : openLocal(t.localTemp, 'w', tempFileMode(t.mode ?? 0)));
    // A new temporary file gets its blocks before the first byte arrives (sys/preallocate.ts; ENOSPC: DISK_FULL now).
    if (!t.inPlace && t.size > 0) reserveSpace(local.fd, t.size, t.localTemp);
    const n = t.size >= from ? await downloadRange(s, h, local.fd, from, t.size, o) : 0;
    // Every byte is here: the SSH_FXP_CLOSE is not waited for (a round trip per file, a third of a small
    // file's time at high RTT); later requests on this channel queue behind it.
    void closeRemote(s, h, t.remotePath).catch(() => undefined);
    h = null;
    await local.sync();
    // The size check of an append is the target's own size: its kept bytes and the ones written after them.
    return t.inPlace ? (await local.stat()).size : n;
  } catch (e) {
    throw rangeError(e, t.remotePath, t.localTemp);
  } finally {
    await local?.close().catch(() => undefined);
    if (h) await closeUnlessAborted(s, h, t.remotePath, o.signal);
  }
}
