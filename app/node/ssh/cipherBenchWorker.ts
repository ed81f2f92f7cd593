/**
 * The cipher benchmark's worker thread (issue #15; started by ssh/cipherBench.ts): for each combination an in-memory
 * ssh2 client/server pair (ssh/protocolPair.ts) moves CHANNEL_DATA packets of the engine's packet size, the client
 * encrypting and the server decrypting, in batches of 256 KiB. MB/s per core is bytes / this thread's CPU time over the
 * whole run (ssh/cpuClock.ts; on Linux it advances at scheduler ticks, so a run needs tens of ms of CPU at least);
 * that CPU time is split between encrypting and decrypting in the proportion of the median batch's elapsed time on
 * each side (a batch is far shorter than a tick, and the median leaves out batches another process's time slice
 * interrupted), so 1/encrypt + 1/decrypt = 1/per core. A worker, like
 * the engine's connections, so the same ssh2 crypto binding and OpenSSL do the work as in a transfer.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { CipherSpeedRow } from '../../common/model/cipherSpeed';
import { threadCpuClock, type CpuClock } from './cpuClock';
import { openProtocolPair } from './protocolPair';

/** What the coordinator asks for. */
export interface CipherBenchJob {
  combinations: Array<{ cipher: string; mac: string | null }>;
  /** Seconds of timing per combination (wall clock). */
  seconds: number;
  /** CHANNEL_DATA payload bytes per packet. */
  packetBytes: number;
}

/** What the worker posts: each row as it is measured, then `done` (or `error`). */
export type CipherBenchMessage =
  | { type: 'row'; row: CipherSpeedRow }
  | { type: 'done'; cpuClock: CpuClock['kind'] }
  | { type: 'error'; message: string };

/** Packets per timed batch: 8 × 32 KiB = 256 KiB (well under a time slice, even with HMAC-SHA-512). */
const BATCH = 8;
/** Batches run before timing starts (JIT, ssh2's packet slabs). */
const WARMUP_BATCHES = 16;
/** A MAC for AEAD rows: negotiated but unused (the cipher's tag authenticates). */
const AEAD_MAC = 'hmac-sha2-256-etm@openssh.com';

const mbps = (bytes: number, seconds: number) => (seconds > 0 ? bytes / seconds / 1e6 : 0);
/** The median: a batch interrupted by another process's time slice (cold caches) does not move it. */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Times one combination. */
async function measure(
  clock: CpuClock,
  cipher: string,
  mac: string | null,
  seconds: number,
  payload: Buffer,
): Promise<CipherSpeedRow> {
  const pair = await openProtocolPair(cipher, mac ?? AEAD_MAC);
  try {
    const batch = () => {
      for (let i = 0; i < BATCH; i++) pair.send(payload);
    };
    for (let i = 0; i < WARMUP_BATCHES; i++) {
      batch();
      pair.deliver();
    }
    const startBytes = pair.received;
    const enc: number[] = [];
    const dec: number[] = [];
    const cpu0 = clock.now();
    const wall0 = performance.now();
    let t = wall0;
    do {
      batch();
      const t1 = performance.now();
      pair.deliver();
      const t2 = performance.now();
      enc.push(t1 - t);
      dec.push(t2 - t1);
      t = t2;
    } while (t - wall0 < seconds * 1000);
    const cpuSeconds = clock.now() - cpu0;
    const wallSeconds = (t - wall0) / 1000;
    const bytes = pair.received - startBytes;
    // The thread's CPU time is split between the two sides in the proportion of their median batches.
    const encShare = median(enc) / (median(enc) + median(dec));
    return {
      cipher,
      mac,
      bytes,
      cpuSeconds,
      wallSeconds,
      perCoreMBps: mbps(bytes, cpuSeconds),
      encryptMBps: mbps(bytes, cpuSeconds * encShare),
      decryptMBps: mbps(bytes, cpuSeconds * (1 - encShare)),
      wallMBps: mbps(bytes, wallSeconds),
    };
  } finally {
    pair.close();
  }
}

async function run(job: CipherBenchJob): Promise<void> {
  const clock = threadCpuClock();
  const payload = Buffer.alloc(job.packetBytes, 0x5a);
  try {
    for (const c of job.combinations) {
      parentPort!.postMessage({
        type: 'row',
        row: await measure(clock, c.cipher, c.mac, job.seconds, payload),
      } satisfies CipherBenchMessage);
    }
    parentPort!.postMessage({ type: 'done', cpuClock: clock.kind } satisfies CipherBenchMessage);
  } finally {
    clock.close();
  }
}

if (parentPort) {
  run(workerData as CipherBenchJob).catch((e: unknown) => {
    parentPort!.postMessage({
      type: 'error',
      message: e instanceof Error ? e.message : String(e),
    } satisfies CipherBenchMessage);
  });
}
