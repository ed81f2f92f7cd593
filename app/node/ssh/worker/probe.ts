/**
 * The out-of-order write probe that decides whether uploads may be segmented on this server.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import type { WorkerOps } from '../workerProtocol';
import { SEGMENT_FLAGS, call, closeRemote, openRemote } from './sftpCalls';
import type { WorkerConn } from './conn';

/**
 * Writes two ranges of a temporary file in `dir` out of order through two handles opened exactly as a segmented
 * upload opens its handles ({@link SEGMENT_FLAGS}), reads it back through a third and compares, then removes it.
 * True when the server keeps both ranges (needed for segmented uploads); null when the probe file could not be
 * created there (no answer).
 * The three opens go out together, then the writes with the read-back: two round trips on a server that answers in
 * order (`ordered`). Elsewhere the read waits for the writes' replies, and a read handle that could not be opened
 * before the file existed is opened again. Closing and removing the probe file continue in the background.
 */
export async function probeIn(s: SFTPWrapper, dir: string, ordered: boolean): Promise<boolean | null> {
  const p = path.posix.join(dir, `.sluice-probe-${randomBytes(6).toString('hex')}`);
  const first = randomBytes(4096);
  const second = randomBytes(4096);
  const writers = Promise.allSettled([openRemote(s, p, SEGMENT_FLAGS, 0o600), openRemote(s, p, SEGMENT_FLAGS, 0o600)]);
  let reader = openRemote(s, p, 'r');
  reader.catch(() => undefined);
  const opened = await writers;
  const handles = opened.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  try {
    if (handles.length === 0) return null;
    if (handles.length < 2) return false;
    const [h1, h2] = handles;
    const writes = Promise.all([
      call<void>((cb) => s.write(h2, second, 0, second.length, 8192, cb), p, { op: 'WRITE', offset: 8192 }),
      call<void>((cb) => s.write(h1, first, 0, first.length, 0, cb), p, { op: 'WRITE', offset: 0 }),
    ]);
    writes.catch(() => undefined);
    reader = reader.catch(() => openRemote(s, p, 'r'));
    handles.push(await reader);
    if (!ordered) await writes;
    const back = Buffer.alloc(12288);
    const readBack = call<number>((cb) => s.read(handles[2], back, 0, back.length, 0, cb), p, 'READ');
    const [, got] = await Promise.all([writes, readBack]);
    return (
      got === 12288 &&
      back.subarray(0, 4096).equals(first) &&
      back.subarray(8192).equals(second) &&
      back.subarray(4096, 8192).every((b) => b === 0)
    );
  } catch {
    return false;
  } finally {
    void reader
      .then(
        (h) => {
          if (!handles.includes(h)) handles.push(h);
        },
        () => undefined,
      )
      .then(() => Promise.all(handles.map((h) => closeRemote(s, h, p).catch(() => undefined))))
      .then(() => call<void>((cb) => s.unlink(p, cb), p, 'REMOVE').catch(() => undefined));
  }
}

/**
 * Whether the server accepts out-of-order writes: the answer of the probe sent during set-up when it had one
 * (the answer is per server, whatever folder it ran in), else a probe in `a.dir`; false when neither could run.
 */
export async function probeOutOfOrder(conn: WorkerConn, a: WorkerOps['probeOutOfOrder'][0]): Promise<boolean> {
  const early = conn.prefetchedProbe;
  conn.prefetchedProbe = null;
  return (
    (early ? await early : null) ?? (await probeIn(conn.sftpOf(0), a.dir, conn.require().info.ordersRequests)) ?? false
  );
}
