/**
 * Cipher speed measured on this machine (issue #15 "Algorithms, chosen from measurement"): what `sluice bench-ciphers`
 * and the settings dialog's "Measure" produce, what `<data folder>/cipher-speed.json` keeps, and the ranking that turns
 * a measurement into the default cipher and MAC orders (RFC 4253 §7.1: the client's KEXINIT lists, first = preferred).
 * Pure data and functions shared by the engine, the service and the renderer.
 */
import { z } from 'zod';

/** The machine a measurement belongs to: one whose facts differ (another CPU, Node, OpenSSL or ssh2) ignores it. */
export const machineFactsSchema = z.object({
  /** `os.cpus()[0].model`, e.g. `AMD EPYC 7B13`. */
  cpuModel: z.string(),
  /** Logical cores (`os.availableParallelism()`). */
  cores: z.number().int().min(1),
  /** AES instructions (x86 AES-NI, ARMv8 AES); null when unknown. */
  aes: z.boolean().nullable(),
  platform: z.string(),
  arch: z.string(),
  /** `process.versions.node` (the CLI's Node and Electron's differ, and so may their speed). */
  node: z.string(),
  /** `process.versions.openssl` (Electron builds BoringSSL). */
  openssl: z.string(),
  /** ssh2's package version. */
  ssh2: z.string(),
});
export type MachineFacts = z.infer<typeof machineFactsSchema>;

/** One measured combination: an AEAD cipher (mac null) or a CTR cipher with one MAC. Speeds in MB/s (10^6 bytes/s). */
export const cipherSpeedRowSchema = z.object({
  cipher: z.string().min(1),
  /**
   * The MAC for a CTR cipher; null for an AEAD cipher (its tag authenticates, RFC 5647 / OpenSSH
   * PROTOCOL.chacha20poly1305).
   */
  mac: z.string().min(1).nullable(),
  /** Bytes of CHANNEL_DATA payload sent and received; each byte was encrypted once and decrypted once. */
  bytes: z.number().min(0),
  /** CPU seconds of the measuring thread, encrypting and decrypting together. */
  cpuSeconds: z.number().min(0),
  /** Wall seconds of the measurement. */
  wallSeconds: z.number().min(0),
  /** Bytes / CPU seconds of the measuring thread: one core both encrypting and decrypting (the ranking figure). */
  perCoreMBps: z.number().min(0),
  /**
   * Bytes / CPU seconds encrypting (the thread's CPU time split by the median batches' times; an upload's client side).
   */
  encryptMBps: z.number().min(0),
  /** Bytes / CPU seconds decrypting (split likewise; a download's client side). */
  decryptMBps: z.number().min(0),
  /** bytes / wall seconds (lower than per core when other processes share the CPU). */
  wallMBps: z.number().min(0),
});
export type CipherSpeedRow = z.infer<typeof cipherSpeedRowSchema>;

/** One run of the benchmark on one machine. */
export const cipherMeasurementSchema = z.object({
  facts: machineFactsSchema,
  /** When it was measured, ms since the epoch. */
  measuredAt: z.number(),
  /** Seconds each combination was timed. */
  secondsPerCombination: z.number().min(0),
  /** CHANNEL_DATA payload bytes per packet (ssh2's channel packet size, what the engine sends and receives). */
  packetBytes: z.number().int().min(1),
  /** `thread`: the measuring thread's own CPU time; `process`: the whole process's (no thread clock on this OS). */
  cpuClock: z.enum(['thread', 'process']),
  rows: z.array(cipherSpeedRowSchema).min(1),
});
export type CipherMeasurement = z.infer<typeof cipherMeasurementSchema>;

/** The default cipher and MAC orders and where they come from. */
export interface DefaultAlgorithmOrders {
  cipher: string[];
  hmac: string[];
  /** `measurement`: a stored measurement of this machine; `aes-rule`: AES instructions or not (no measurement). */
  source: 'measurement' | 'aes-rule';
}

/** What `algorithms.measurement` and `algorithms.measure` answer. */
export interface AlgorithmsMeasurementView {
  /** This machine's stored measurement, or null. */
  measurement: CipherMeasurement | null;
  /** Why a stored file was not used (corrupt, another machine's facts), when one was not. */
  note?: string;
  /** The orders new connections offer by default now. */
  defaults: DefaultAlgorithmOrders;
  /** This machine's facts (what a measurement must match). */
  facts: MachineFacts;
}

/** `1234.5` → `1235`, `12.34` → `12.3`: MB/s as the tables show it. */
export function formatMBps(mbps: number): string {
  return mbps >= 100 ? mbps.toFixed(0) : mbps.toFixed(1);
}

/** A row's name: `aes128-gcm@openssh.com`, or `aes128-ctr + hmac-sha2-256-etm@openssh.com`. */
export function combinationName(row: Pick<CipherSpeedRow, 'cipher' | 'mac'>): string {
  return row.mac === null ? row.cipher : `${row.cipher} + ${row.mac}`;
}

/** Whether two sets of machine facts describe the same machine and software (every field equal). */
export function sameMachine(a: MachineFacts, b: MachineFacts): boolean {
  return (Object.keys(machineFactsSchema.shape) as Array<keyof MachineFacts>).every((k) => a[k] === b[k]);
}

/** The facts that differ between a stored measurement's machine and this one (`CPU model: X ≠ Y`), for notes. */
export function factDifferences(stored: MachineFacts, here: MachineFacts): string[] {
  return (Object.keys(machineFactsSchema.shape) as Array<keyof MachineFacts>)
    .filter((k) => stored[k] !== here[k])
    .map((k) => `${k} ${String(stored[k])} ≠ ${String(here[k])}`);
}
