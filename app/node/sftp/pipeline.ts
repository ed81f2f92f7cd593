import fs from 'node:fs';
import type { SFTPWrapper } from 'ssh2';
import { patched } from '../ssh2x';
import { RangeCheckpointer, type RangeCheckpoints } from './rangeCheckpoints';
import { SLOW_WRITES_MS, burnForTest, pipeStats, slowWriteDelay } from './pipeStats';
import { abortError, runPipeline, type LocalOp, type PumpOptions } from './rangePump';

export {
  COUNTERS_PER_CHANNEL,
  COUNTER_BYTES,
  COUNTER_IN_FLIGHT,
  COUNTER_OUTSTANDING,
  type ChannelCounters,
} from './channelCounters';
export { ShortFileError, abortError } from './rangePump';

/** A byte range's options: its request loop's (rangePump.ts) and the download's end check and checkpoints. */
export interface RangeOptions extends PumpOptions {
  /**
   * Downloads: `end` is where the file ends. One more SSH_FXP_READ at `end`, sent right behind the range's last data
   * READ (no round trip of its own), must answer SSH_FX_EOF, else the range fails with {@link LongerFileError}.
   */
  expectEof?: boolean;
  /** Durable prefixes reported while the range moves (rangeCheckpoints.ts), for a journal. */
  checkpoints?: RangeCheckpoints;
}

/** Runs a download's `move` with its checkpoints, if any; it ends once their local fsyncs did (the fd stays open). */
function withLocalCheckpoints(
  start: number,
  o: RangeOptions,
  move: (cp?: RangeCheckpointer) => Promise<number>,
): Promise<number> {
  if (!o.checkpoints) return move();
  const cp = new RangeCheckpointer(start, o.checkpoints, false);
  return move(cp).then(
    async (n) => {
      await cp.stop();
      return n;
    },
    async (e: unknown) => {
      await cp.stop();
      throw e;
    },
  );
}

/** An SFTP error annotated with the request that failed (read by the worker's error mapping). */
export interface TaggedSftpError extends Error {
  sftpOp?: string;
  offset?: number;
}

/** Marks a server's error with the request and file offset it answered; returns it. */
function tagRemote(err: Error, op: 'READ' | 'WRITE', offset: number): TaggedSftpError {
  return Object.assign(err, { sftpOp: op, offset });
}

/** Error raised when a READ at the expected end of a remote file returns data: the file is longer than said. */
export class LongerFileError extends Error {
  constructor(readonly position: number) {
    super(`the server has data past byte ${position}, the size it gave for the file`);
  }
}

/** A small free list of chunk buffers, reused instead of allocated per request. */
class BufferPool {
  private readonly free: Buffer[] = [];
  /** @param size bytes per buffer; @param maxFree buffers kept for reuse, beyond which returned ones are dropped */
  constructor(
    private readonly size: number,
    private readonly maxFree: number,
  ) {}
  take(): Buffer {
    return this.free.pop() ?? Buffer.allocUnsafe(this.size);
  }
  give(b: Buffer): void {
    if (this.free.length < this.maxFree) this.free.push(b);
  }
}

/**
 * Download buffers shared by every range of this thread, per chunk size. A reply's buffer is taken when its
 * SSH_FXP_DATA arrives and given back once written locally, so a few buffers serve every outstanding request and
 * stay hot in cache: a buffer per request (10 channels × K = 64 × 255 KiB) meant fresh, page-faulting memory for
 * nearly every reply.
 */
const downloadPools = new Map<number, BufferPool>();
/** Free buffers a download pool keeps (4 MiB at 255 KiB): the thread holds them as long as it lives. */
const DOWNLOAD_POOL_FREE = 16;

/** An SSH_FXP_DATA reply's bytes before its data: type, request id, data length (draft-ietf-secsh-filexfer-02 §7). */
const SFTP_DATA_HEADER = 9;

function downloadPool(chunkSize: number): BufferPool {
  let pool = downloadPools.get(chunkSize);
  // Room for the whole reply: the patched ssh2 then reassembles it in the buffer (its data is not copied again).
  if (!pool) downloadPools.set(chunkSize, (pool = new BufferPool(chunkSize + SFTP_DATA_HEADER, DOWNLOAD_POOL_FREE)));
  return pool;
}

/**
 * Downloads the byte range [start, end) of an open remote file into a local file descriptor at the same
 * offsets, with K outstanding SSH_FXP_READ requests (draft-ietf-secsh-filexfer-02 §6.4) and short reads
 * re-requested. Offsets are JS numbers (exact to 2^53 bytes), so files over 4 GiB work.
 *
 * @param sftp ssh2 SFTP channel
 * @param handle remote handle from SSH_FXP_OPEN
 * @param fd local file descriptor opened for writing
 * @param start first byte (inclusive)
 * @param end last byte (exclusive)
 * @returns bytes written; rejects with the SFTP error, a local fs error, {@link ShortFileError},
 *   {@link LongerFileError} (with `o.expectEof`) or an AbortError
 */
export function downloadRange(
  sftp: SFTPWrapper,
  handle: Buffer,
  fd: number,
  start: number,
  end: number,
  o: RangeOptions,
): Promise<number> {
  const pool = downloadPool(o.chunkSize);
  const take = () => pool.take();
  let eof: Promise<void> | undefined;
  const checkEof = () => {
    if (eof || !o.expectEof) return;
    eof = readsEof(sftp, handle, end, take, pool, o.signal);
    eof.catch(() => undefined); // awaited once the data is in; a failed range does not wait for it
  };
  const data = withLocalCheckpoints(start, o, (cp) =>
    runPipeline(start, end, o, (pos, len, done, local) => {
      sendRead(pos, len, done, local, cp);
      if (pos + len === end) checkEof();
    }),
  );
  if (!o.expectEof) return data;
  return data.then(async (n) => {
    checkEof();
    await eof;
    return n;
  });

  function sendRead(
    pos: number,
    len: number,
    done: (err: Error | null, n: number) => void,
    local: LocalOp,
    cp: RangeCheckpointer | undefined,
  ): void {
    // The pool buffer ssh2 fills: `buf` is the data in it, a view from byte SFTP_DATA_HEADER when ssh2 reassembled
    // the whole reply there, and `owned` what goes back to the pool.
    let owned: Buffer | undefined;
    const giveBack = () => {
      if (owned) pool.give(owned);
      owned = undefined;
    };
    patched(sftp).sluiceReadInto(
      handle,
      len,
      pos,
      () => (owned = take()),
      (err, n, buf) => {
        pipeStats.readsDone++;
        burnForTest();
        if (err || !n || !buf) {
          giveBack();
          done(err ? tagRemote(err, 'READ', pos) : null, 0);
          return;
        }
        // After an abort the file descriptor may already be closed: late replies are dropped.
        if (o.signal?.aborted) {
          giveBack();
          done(abortError(), 0);
          return;
        }
        local.begin();
        const write = () =>
          fs.write(fd, buf, 0, n, pos, (werr) => {
            giveBack();
            if (!werr) cp?.done.complete(pos, pos + n);
            done(werr, n);
          });
        if (SLOW_WRITES_MS > 0) setTimeout(write, slowWriteDelay());
        else write();
      },
    );
  }
}

/**
 * One SSH_FXP_READ of a byte at `end`: resolves on SSH_FX_EOF (draft-ietf-secsh-filexfer-02 §6.4), rejects with
 * {@link LongerFileError} when data comes, with the server's error, or with an AbortError on `signal`.
 */
function readsEof(
  sftp: SFTPWrapper,
  handle: Buffer,
  end: number,
  take: () => Buffer,
  pool: BufferPool,
  signal: AbortSignal | undefined,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError());
      return;
    }
    const onAbort = () => reject(abortError());
    signal?.addEventListener('abort', onAbort, { once: true });
    let owned: Buffer | undefined;
    patched(sftp).sluiceReadInto(
      handle,
      1,
      end,
      () => (owned = take()),
      (err, n) => {
        signal?.removeEventListener('abort', onAbort);
        if (owned) pool.give(owned);
        if (err) reject(tagRemote(err, 'READ', end));
        else if (n > 0) reject(new LongerFileError(end));
        else resolve();
      },
    );
  });
}

/** Sent WRITE packets an upload range keeps for reuse: its requests in flight (UPLOAD_MAX_IN_FLIGHT) and some. */
const SPARE_WRITE_PACKETS = 16;

/** One chunk of an upload: its local read into a WRITE packet, then the WRITE. */
interface PendingWrite {
  pos: number;
  len: number;
  /** The SSH_FXP_WRITE packet the local read fills (its data at the end). */
  out: Buffer;
  /** Bytes the local read gave. */
  n: number;
  err: Error | null;
  /** The local read has ended. */
  ready: boolean;
  done: (err: Error | null, n: number) => void;
}

/** What an upload range's WRITEs share: the channel, the handle, the options, reusable packets, checkpoints. */
interface UploadWrites {
  s: ReturnType<typeof patched>;
  handle: Buffer;
  o: RangeOptions;
  /** Packets the server has answered (so ssh2 no longer holds them), reused for this handle's next full-size chunks. */
  spare: Buffer[];
  cp: RangeCheckpointer | undefined;
}

/** Sends one chunk whose local read ended as an SSH_FXP_WRITE, or ends it with the read's error or an abort. */
function sendWrite(u: UploadWrites, r: PendingWrite): void {
  const { s, o, spare, cp } = u;
  if (r.err || !r.n) {
    r.done(r.err, 0);
    return;
  }
  if (o.signal?.aborted) {
    r.done(abortError(), 0);
    return;
  }
  let out = r.out;
  if (r.n < r.len) {
    // A short local read (the file shrank): the packet's length fields say len, so the n bytes move to one
    // that says n; the pipeline re-requests the rest, and fails if it reads nothing.
    out = s.sluiceWriteBuffer(u.handle, r.n);
    r.out.copy(out, out.length - r.n, r.out.length - r.len, r.out.length - r.len + r.n);
  }
  const reusable = out === r.out && r.len === o.chunkSize;
  s.sluiceSendWrite(out, r.pos, (err) => {
    pipeStats.writesDone++;
    burnForTest();
    // The server answers a WRITE only after receiving all of it, so ssh2 has copied every byte into SSH packets
    // (whether it sent the packet at once or queued it behind a full channel window).
    if (!err && reusable && spare.length < SPARE_WRITE_PACKETS) spare.push(out);
    if (!err) cp?.done.complete(r.pos, r.pos + r.n);
    r.done(err ? tagRemote(err, 'WRITE', r.pos) : null, r.n);
  });
  cp?.sent.complete(r.pos, r.pos + r.n);
}

/**
 * Uploads the byte range [start, end) of a local file to an open remote handle at the same offsets,
 * with K outstanding SSH_FXP_WRITE requests (draft-ietf-secsh-filexfer-02 §6.4). Writes are sent in
 * increasing offset order even though local reads complete in any order; the server may answer in any order.
 *
 * @param fd local file descriptor opened for reading
 * @param handle remote handle opened for writing
 * @returns bytes written; rejects on an SFTP or fs error, a local file shorter than expected, or abort
 */
export function uploadRange(
  sftp: SFTPWrapper,
  handle: Buffer,
  fd: number,
  start: number,
  end: number,
  o: RangeOptions,
): Promise<number> {
  const s = patched(sftp);
  const u: UploadWrites = {
    s,
    handle,
    o,
    spare: [],
    cp: o.checkpoints && new RangeCheckpointer(start, o.checkpoints, true),
  };
  const packetFor = (len: number): Buffer =>
    (len === o.chunkSize ? u.spare.pop() : undefined) ?? s.sluiceWriteBuffer(handle, len);
  // Local reads finish in any order (libuv thread pool); writes go out in offset order all the same,
  // since servers that only accept sequential writes exist (rclone: "many SFTP servers only accept
  // sequential writes").
  const reads: PendingWrite[] = [];
  const sendReady = () => {
    while (reads.length && reads[0].ready) sendWrite(u, reads.shift()!);
  };
  const moving = runPipeline(start, end, o, (pos, len, done, local) => {
    let out: Buffer;
    try {
      out = packetFor(len);
    } catch (e) {
      done(e as Error, 0); // a chunk above this channel's limits@openssh.com write length: refused, never split
      return;
    }
    const r: PendingWrite = { pos, len, out, n: 0, err: null, ready: false, done };
    reads.push(r);
    local.begin();
    fs.read(fd, out, out.length - len, len, pos, (rerr, n) => {
      local.end();
      r.ready = true;
      r.err = rerr;
      r.n = n;
      sendReady();
    });
  });
  // An fsync still on its way is not waited for: its reply only comes after the WRITEs sent before it.
  const cp = u.cp;
  return cp
    ? moving.finally(() => {
        void cp.stop();
      })
    : moving;
}
