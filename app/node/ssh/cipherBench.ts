/**
 * The cipher benchmark (issue #15, `sluice bench-ciphers`, the app's "Measure"): times every AEAD cipher and every
 * CTR cipher with every non-weak MAC on this machine through ssh2's own packet path, in a worker thread
 * (ssh/cipherBenchWorker.ts), and reports MB/s per core (bytes / CPU seconds of the measuring thread) and per wall
 * second. stores/cipherSpeed.ts keeps the result; ssh/algorithms.ts orders the defaults by it.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CipherMeasurement, CipherSpeedRow } from '../../common/model/cipherSpeed';
import { SluiceError } from '../errors';
import { ssh2PacketSize } from '../ssh2x';
import { saveCipherSpeed } from '../stores/cipherSpeed';
import { fallbackMacOrder, supportedAlgorithms } from './algorithms';
import type { CipherBenchJob, CipherBenchMessage } from './cipherBenchWorker';
import { machineFacts } from './machineFacts';

/** AEAD ciphers (OpenSSH PROTOCOL: AES-GCM per RFC 5647, chacha20-poly1305): no separate MAC. */
export const AEAD_CIPHERS = ['aes128-gcm@openssh.com', 'aes256-gcm@openssh.com', 'chacha20-poly1305@openssh.com'];
/** CTR ciphers (RFC 4344 §4), each measured with every MAC of {@link fallbackMacOrder}. */
export const CTR_CIPHERS = ['aes128-ctr', 'aes192-ctr', 'aes256-ctr'];
/** Seconds per combination by default (21 combinations: about 11 s). */
export const DEFAULT_BENCH_SECONDS = 0.5;

// Named from ssh/ so that the CLI's bundle (dist/app/node/bundle/, scripts/bundle-cli.js) finds it too.
const WORKER_FILE = path.join(__dirname, '..', 'ssh', 'cipherBenchWorker.js');

/** Every combination measured: the AEAD ciphers, then each CTR cipher × each non-weak MAC ssh2 offers by default. */
export function benchCombinations(): Array<{ cipher: string; mac: string | null }> {
  const supported = supportedAlgorithms().cipher;
  const macs = fallbackMacOrder();
  return [
    ...AEAD_CIPHERS.filter((c) => supported.includes(c)).map((cipher) => ({ cipher, mac: null })),
    ...CTR_CIPHERS.filter((c) => supported.includes(c)).flatMap((cipher) => macs.map((mac) => ({ cipher, mac }))),
  ];
}

/** Options of {@link runCipherBench}. */
export interface CipherBenchOptions {
  /** Seconds of timing per combination; default {@link DEFAULT_BENCH_SECONDS}. */
  seconds?: number;
  /** Each row as it is measured, with its position (from 1) and the count. */
  onRow?: (row: CipherSpeedRow, index: number, total: number) => void;
  /** Stops the worker; the run then rejects with ABORTED. */
  signal?: AbortSignal;
}

/**
 * Runs the benchmark in a worker thread.
 * @returns the measurement with this machine's facts (not stored: see {@link measureAndStore})
 * @throws SluiceError INTERNAL when the worker fails (its message), ABORTED when `signal` aborts
 */
export function runCipherBench(o: CipherBenchOptions = {}): Promise<CipherMeasurement> {
  const combinations = benchCombinations();
  const packetBytes = ssh2PacketSize();
  const job: CipherBenchJob = { combinations, seconds: o.seconds ?? DEFAULT_BENCH_SECONDS, packetBytes };
  const facts = machineFacts();
  const measuredAt = Date.now();
  return new Promise((resolve, reject) => {
    const rows: CipherSpeedRow[] = [];
    const worker = new Worker(WORKER_FILE, { workerData: job });
    let settled = false;
    const finish = (e: Error | null, m?: CipherMeasurement) => {
      if (settled) return;
      settled = true;
      o.signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      if (e) reject(e);
      else resolve(m!);
    };
    const onAbort = () => finish(new SluiceError('ABORTED', 'Cipher measurement stopped'));
    if (o.signal?.aborted) return onAbort();
    o.signal?.addEventListener('abort', onAbort);
    worker.on('message', (msg: CipherBenchMessage) => {
      if (msg.type === 'row') {
        rows.push(msg.row);
        o.onRow?.(msg.row, rows.length, combinations.length);
      } else if (msg.type === 'done') {
        finish(null, {
          facts,
          measuredAt,
          secondsPerCombination: job.seconds,
          packetBytes,
          cpuClock: msg.cpuClock,
          rows,
        });
      } else {
        finish(new SluiceError('INTERNAL', `Cipher measurement failed: ${msg.message}`));
      }
    });
    worker.on('error', (e) => finish(new SluiceError('INTERNAL', `Cipher measurement failed: ${e.message}`)));
    worker.on('exit', (code) =>
      finish(new SluiceError('INTERNAL', `Cipher measurement failed: its worker exited (code ${code})`)),
    );
  });
}

/**
 * Runs the benchmark and stores it as this machine's measurement in `<home>/cipher-speed.json`.
 * @returns the measurement and the file written
 * @throws as {@link runCipherBench}; SluiceError LOCAL_IO when the file cannot be written
 */
export async function measureAndStore(
  home: string,
  o: CipherBenchOptions = {},
): Promise<{ measurement: CipherMeasurement; file: string }> {
  const measurement = await runCipherBench(o);
  return { measurement, file: saveCipherSpeed(home, measurement) };
}
