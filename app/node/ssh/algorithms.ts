/**
 * Transport algorithm choice (RFC 4253 §7.1 KEXINIT name-lists) for ssh2 connections.
 *
 * ssh2 picks its default cipher order once, at load, from `cpu-features`; in a worker thread that native
 * module fails to load ("Module did not self-register") and ssh2 silently falls back to another order.
 * So the coordinating thread decides here and posts the explicit list to every worker.
 */
import * as fs from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import type { Algorithms } from 'ssh2';
import { SluiceError } from '../errors';
import { WEAK_ALGORITHMS, isWeakAlgorithm, type AlgorithmCatalog } from '../../common/algorithms';

interface Ssh2Constants {
  SUPPORTED_CIPHER: string[];
  SUPPORTED_KEX: string[];
  SUPPORTED_MAC: string[];
  SUPPORTED_SERVER_HOST_KEY: string[];
  DEFAULT_KEX: string[];
  DEFAULT_MAC: string[];
  DEFAULT_SERVER_HOST_KEY: string[];
}

// ssh2 filters these lists by what this Node/OpenSSL build can do, so they are the truth for validation.
// Loaded on first use (~50 ms): resolving a host through ssh_config (engine/hostSettings.ts) imports this module before
// the CLI's first connection starts, and needs the lists only when the configuration names algorithms.
let loaded: Ssh2Constants | undefined;
const ssh2Constants = {} as Ssh2Constants;
for (const key of ['SUPPORTED_CIPHER', 'SUPPORTED_KEX', 'SUPPORTED_MAC', 'SUPPORTED_SERVER_HOST_KEY', 'DEFAULT_KEX', 'DEFAULT_MAC', 'DEFAULT_SERVER_HOST_KEY'] as const) {
  Object.defineProperty(ssh2Constants, key, { get: () => (loaded ??= require('ssh2/lib/protocol/constants') as Ssh2Constants)[key] });
}

/** The algorithm families the CLI exposes, with their flag names and ssh2 lists. */
const FAMILIES = {
  cipher: { flag: '--cipher', supported: () => ssh2Constants.SUPPORTED_CIPHER, defaults: () => defaultCipherOrder() },
  kex: { flag: '--kex', supported: () => ssh2Constants.SUPPORTED_KEX, defaults: () => ssh2Constants.DEFAULT_KEX },
  hmac: { flag: '--mac', supported: () => ssh2Constants.SUPPORTED_MAC, defaults: () => ssh2Constants.DEFAULT_MAC },
  // ssh2 offers ssh-rsa (SHA-1 signatures) by default; Sluice does not, as OpenSSH since 8.8 (app/common/algorithms.ts).
  serverHostKey: { flag: '--host-key-algorithms', supported: () => ssh2Constants.SUPPORTED_SERVER_HOST_KEY, defaults: () => withoutWeak('serverHostKey', ssh2Constants.DEFAULT_SERVER_HOST_KEY) },
} as const;

/** `names` without the ones app/common/algorithms.ts marks weak in `family`. */
function withoutWeak(family: AlgorithmFamily, names: readonly string[]): string[] {
  return names.filter((n) => !isWeakAlgorithm(family, n));
}

/** `cipher`, `kex`, `hmac` or `serverHostKey`. */
export type AlgorithmFamily = keyof typeof FAMILIES;

/** User choices from the CLI; each entry may itself be a comma list (`['aes128-ctr,aes256-ctr']`). */
export interface AlgorithmChoice {
  cipher?: string[];
  kex?: string[];
  hmac?: string[];
  serverHostKey?: string[];
}

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
  return line.slice(line.indexOf(':') + 1).trim().split(/\s+/).includes('aes');
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
      if (info.flags && typeof info.flags === 'object') found = { aes: info.flags.aes === true, source: 'cpu-features' };
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

/**
 * Cipher preference for a CPU with or without AES acceleration (measured: FIELD.md, aes128-gcm fastest
 * with AES-NI, chacha20-poly1305 fastest without), filtered to what this ssh2/OpenSSL supports.
 * Unknown acceleration is treated as present (most x86-64 and ARMv8 servers have it).
 */
export function cipherOrderFor(aesAccelerated: boolean | undefined): string[] {
  const gcm = ['aes128-gcm@openssh.com', 'aes256-gcm@openssh.com'];
  const chacha = ['chacha20-poly1305@openssh.com'];
  const ctr = ['aes128-ctr', 'aes192-ctr', 'aes256-ctr'];
  const order = aesAccelerated === false ? [...chacha, ...gcm, ...ctr] : [...gcm, ...chacha, ...ctr];
  return order.filter((c) => ssh2Constants.SUPPORTED_CIPHER.includes(c));
}

/**
 * Default cipher order for this machine: aes128-gcm first where the CPU has AES instructions,
 * chacha20-poly1305 first where it has not. Call it in the coordinating thread and post the result to
 * workers (see the module comment).
 */
export function defaultCipherOrder(): string[] {
  return cipherOrderFor(detectAes().aes);
}

/** Splits CLI comma lists: `['a,b', ' c ']` → `['a', 'b', 'c']`. */
function splitNames(values: string[]): string[] {
  return values.flatMap((v) => String(v).split(',')).map((s) => s.trim()).filter((s) => s !== '');
}

/**
 * Resolves one family: an explicit list, or (as in ssh_config(5) `Ciphers`) a list starting with `+`
 * (append to the defaults), `-` (remove from the defaults) or `^` (put first).
 */
function resolveFamily(family: AlgorithmFamily, values: string[]): string[] {
  const { flag, supported, defaults } = FAMILIES[family];
  const joined = splitNames(values).join(',');
  if (joined === '') throw new SluiceError('USAGE', `${flag} needs at least one algorithm name. Supported: ${supported().join(', ')}`);
  const mode = /^[+\-^]/.test(joined) ? joined[0] : '';
  const names = splitNames([mode ? joined.slice(1) : joined]);
  if (names.length === 0) throw new SluiceError('USAGE', `${flag} "${joined}" names no algorithm. Supported: ${supported().join(', ')}`);
  for (const name of names) {
    if (!supported().includes(name)) {
      throw new SluiceError('USAGE', `Unknown or unsupported ${flag} algorithm "${name}". Supported: ${supported().join(', ')}`);
    }
  }
  const base = [...defaults()];
  let result: string[];
  if (mode === '+') result = [...base, ...names];
  else if (mode === '^') result = [...names, ...base];
  else if (mode === '-') result = base.filter((n) => !names.includes(n));
  else result = names;
  result = [...new Set(result)];
  if (result.length === 0) throw new SluiceError('USAGE', `${flag} "${joined}" leaves no algorithm to offer`);
  return result;
}

/**
 * Builds the ssh2 `algorithms` config from CLI choices (`--cipher`, `--kex`, `--mac`,
 * `--host-key-algorithms`), validating every name against ssh2's SUPPORTED_* lists.
 * `cipher` always comes back explicit ({@link defaultCipherOrder} when not chosen) so that workers do
 * not fall back to ssh2's own order; other families are left to ssh2's defaults when not chosen.
 * @throws SluiceError('USAGE') naming the unknown algorithm and listing the supported ones
 */
export function buildAlgorithms(choice: AlgorithmChoice): Algorithms {
  const out: Record<string, string[]> = {
    cipher: choice.cipher !== undefined ? resolveFamily('cipher', choice.cipher) : defaultCipherOrder(),
  };
  for (const family of ['kex', 'hmac', 'serverHostKey'] as const) {
    const values = choice[family];
    if (values !== undefined) out[family] = resolveFamily(family, values);
  }
  // Explicit, so that ssh2's own default (with ssh-rsa) is never used; engine/setup.ts then puts stored key types first.
  out.serverHostKey ??= FAMILIES.serverHostKey.defaults();
  return out as Algorithms;
}

/** Supported names per family (for `--help` and error messages). */
export function supportedAlgorithms(): Record<AlgorithmFamily, string[]> {
  return {
    cipher: [...ssh2Constants.SUPPORTED_CIPHER],
    kex: [...ssh2Constants.SUPPORTED_KEX],
    hmac: [...ssh2Constants.SUPPORTED_MAC],
    serverHostKey: [...ssh2Constants.SUPPORTED_SERVER_HOST_KEY],
  };
}

/**
 * What the site form offers per family (`algorithms.catalog`): every name ssh2 supports here, the order a site without
 * its own list offers (weak names never among them), and the weak names with their reason.
 */
export function algorithmCatalog(): AlgorithmCatalog {
  const supported = supportedAlgorithms();
  const out = {} as AlgorithmCatalog;
  for (const family of Object.keys(FAMILIES) as AlgorithmFamily[]) {
    const weak: Record<string, string> = {};
    for (const name of supported[family]) if (isWeakAlgorithm(family, name)) weak[name] = WEAK_ALGORITHMS[family][name];
    out[family] = { supported: supported[family], defaults: withoutWeak(family, FAMILIES[family].defaults()), weak };
  }
  return out;
}
