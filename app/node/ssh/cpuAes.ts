/**
 * Whether this CPU has AES instructions (x86 AES-NI, ARMv8 AES): `cpu-features` in the main thread, /proc/cpuinfo in a
 * worker thread (where that native module fails to load, "Module did not self-register") or when it fails.
 */
import * as fs from 'node:fs';
import { isMainThread } from 'node:worker_threads';

/** How AES acceleration was determined. */
export interface AesDetection {
  aes: boolean | undefined;
  source: 'cpu-features' | '/proc/cpuinfo' | 'unknown';
}

let cachedDetection: AesDetection | undefined;

/** Parses the `flags` (x86) or `Features` (ARM) line of /proc/cpuinfo for `aes`. */
export function aesFromCpuinfo(text: string): boolean | undefined {
  const line = text.split('\n').find((l) => /^(flags|features)\s*:/i.test(l));
  if (line === undefined) return undefined;
  return line
    .slice(line.indexOf(':') + 1)
    .trim()
    .split(/\s+/)
    .includes('aes');
}

/**
 * Whether the CPU has AES instructions (x86 AES-NI, ARMv8 AES). Uses `cpu-features` in the main thread,
 * /proc/cpuinfo otherwise or when it fails; cached after the first call.
 */
export function detectAes(): AesDetection {
  if (cachedDetection) return cachedDetection;
  let found: AesDetection = { aes: undefined, source: 'unknown' };
  if (isMainThread) {
    try {
      const info = (require('cpu-features') as () => { flags?: Record<string, boolean> })();
      if (info.flags && typeof info.flags === 'object')
        found = { aes: info.flags.aes === true, source: 'cpu-features' };
    } catch {
      // Not built for this Node, or loaded in a worker: fall through to /proc/cpuinfo.
    }
  }
  if (found.aes === undefined) {
    try {
      const aes = aesFromCpuinfo(fs.readFileSync('/proc/cpuinfo', 'utf8'));
      if (aes !== undefined) found = { aes, source: '/proc/cpuinfo' };
    } catch {
      // No procfs (macOS, Windows): unknown.
    }
  }
  cachedDetection = found;
  return found;
}
