/**
 * Transport algorithm choice (RFC 4253 §7.1 KEXINIT name-lists) for ssh2 connections.
 *
 * ssh2 picks its default cipher order once, at load, from `cpu-features`; in a worker thread that native
 * module fails to load ("Module did not self-register") and ssh2 silently falls back to another order.
 * So the coordinating thread decides here and posts the explicit lists to every worker.
 *
 * The default cipher and MAC orders follow this machine's stored measurement (`sluice bench-ciphers`, the app's
 * "Measure"; stores/cipherSpeed.ts), fastest first; without one, the AES rule ({@link cipherOrderFor}) and ssh2's MAC
 * order. Weak algorithms (app/common/algorithms.ts) are never in a default.
 */
import fs from 'node:fs';
import type { Algorithms } from 'ssh2';
import {
  ALGORITHM_ALIASES,
  WEAK_ALGORITHMS,
  isWeakAlgorithm,
  type AlgorithmCatalog,
  type AlgorithmFamilyName,
} from '../../common/algorithms';
import { rankCiphers, rankMacs } from '../../common/model/cipherRank';
import type { CipherMeasurement, DefaultAlgorithmOrders } from '../../common/model/cipherSpeed';
import { SluiceError } from '../errors';
import type { readCipherSpeed } from '../stores/cipherSpeed';
import { cipherSpeedPath } from '../stores/cipherSpeedPath';
import { resolveHome } from '../stores/dataDir';
import { detectAes } from './cpuAes';
import { machineFacts } from './machineFacts';
import { ssh2Lists, supportedAlgorithms } from './ssh2Lists';

export { aesFromCpuinfo, detectAes, type AesDetection } from './cpuAes';
export { supportedAlgorithms } from './ssh2Lists';

/** The algorithm families the CLI exposes, with their flag names and ssh2 lists. */
const FAMILIES = {
  cipher: {
    flag: '--cipher',
    supported: () => ssh2Lists.SUPPORTED_CIPHER,
    defaults: (d: DefaultAlgorithmOrders) => d.cipher,
  },
  kex: { flag: '--kex', supported: () => ssh2Lists.SUPPORTED_KEX, defaults: () => ssh2Lists.DEFAULT_KEX },
  hmac: { flag: '--mac', supported: () => ssh2Lists.SUPPORTED_MAC, defaults: (d: DefaultAlgorithmOrders) => d.hmac },
  // ssh2 offers ssh-rsa (SHA-1 signatures) by default; Sluice does not, as OpenSSH since 8.8
  // (app/common/algorithms.ts).
  serverHostKey: {
    flag: '--host-key-algorithms',
    supported: () => ssh2Lists.SUPPORTED_SERVER_HOST_KEY,
    defaults: () => withoutWeak('serverHostKey', ssh2Lists.DEFAULT_SERVER_HOST_KEY),
  },
} as const satisfies Record<AlgorithmFamilyName, unknown>;

/** `names` without the ones app/common/algorithms.ts marks weak in `family`. */
function withoutWeak(family: AlgorithmFamily, names: readonly string[]): string[] {
  return names.filter((n) => !isWeakAlgorithm(family, n));
}

/** `cipher`, `kex`, `hmac` or `serverHostKey` (app/common/algorithms.ts). */
export type AlgorithmFamily = AlgorithmFamilyName;

/** User choices from the CLI; each entry may itself be a comma list (`['aes128-ctr,aes256-ctr']`). */
export interface AlgorithmChoice {
  cipher?: string[];
  kex?: string[];
  hmac?: string[];
  serverHostKey?: string[];
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
  return order.filter((c) => ssh2Lists.SUPPORTED_CIPHER.includes(c));
}

/** ssh2's default MAC order without weak MACs: the fallback when nothing is measured. */
export function fallbackMacOrder(): string[] {
  return ssh2Lists.DEFAULT_MAC.filter((m) => !isWeakAlgorithm('hmac', m));
}

/**
 * Completes a measured ranking: the measured names that this ssh2 supports, then the fallback's names the measurement
 * lacks (in the fallback's order), never a weak one.
 */
function measuredThenRest(
  measured: string[],
  fallback: string[],
  supported: string[],
  family: 'cipher' | 'hmac',
): string[] {
  const ok = (n: string) => supported.includes(n) && !isWeakAlgorithm(family, n);
  const head = measured.filter(ok);
  return [...head, ...fallback.filter((n) => ok(n) && !head.includes(n))];
}

/**
 * The default orders a measurement gives: its ciphers and MACs fastest first (app/common/model/cipherSpeed.ts
 * rankCiphers / rankMacs), then what it did not measure in the fallback's order; never a weak or unsupported name.
 * @param measurement a measurement of this machine
 */
export function ordersFromMeasurement(measurement: CipherMeasurement): DefaultAlgorithmOrders {
  return {
    cipher: measuredThenRest(
      rankCiphers(measurement.rows),
      cipherOrderFor(detectAes().aes),
      ssh2Lists.SUPPORTED_CIPHER,
      'cipher',
    ),
    hmac: measuredThenRest(rankMacs(measurement.rows), fallbackMacOrder(), ssh2Lists.SUPPORTED_MAC, 'hmac'),
    source: 'measurement',
  };
}

/**
 * This machine's measurement in `<dataDir>/cipher-speed.json`, if any. The store, and zod which validates the file,
 * load only when the file exists: most machines have none, and zod's ~95 modules cost every connect tens of ms of
 * start-up (issue #28).
 */
function storedMeasurement(dataDir: string): CipherMeasurement | undefined {
  if (!fs.existsSync(cipherSpeedPath(dataDir))) return undefined;
  // eslint-disable-next-line no-restricted-syntax -- on demand (above); the type import keeps the edge in the graph
  const store = require('../stores/cipherSpeed') as { readCipherSpeed: typeof readCipherSpeed };
  return store.readCipherSpeed(dataDir, machineFacts()).measurement;
}

/**
 * The default cipher and MAC orders for this machine: from its measurement in `<dataDir>/cipher-speed.json` when one
 * of this machine and software is stored (fastest per core first), else the AES rule and ssh2's MAC order. Reads the
 * file on every call (small; another process may have measured since). Call it in the coordinating thread and post
 * the lists to workers (see the module comment).
 * @param dataDir the data folder; default stores/dataDir.ts resolveHome() (`SLUICE_HOME`)
 */
export function defaultAlgorithmOrders(dataDir: string = resolveHome()): DefaultAlgorithmOrders {
  const measurement = storedMeasurement(dataDir);
  if (measurement) return ordersFromMeasurement(measurement);
  return { cipher: cipherOrderFor(detectAes().aes), hmac: fallbackMacOrder(), source: 'aes-rule' };
}

/**
 * Default cipher order for this machine: the measured order ({@link defaultAlgorithmOrders}), else aes128-gcm first
 * where the CPU has AES instructions and chacha20-poly1305 first where it has not.
 * @param dataDir the data folder holding cipher-speed.json; default resolveHome()
 */
export function defaultCipherOrder(dataDir?: string): string[] {
  return defaultAlgorithmOrders(dataDir).cipher;
}

/**
 * Default MAC order for this machine (used with CTR ciphers; AEAD ciphers carry their own tag): the measured order,
 * else ssh2's DEFAULT_MAC without weak MACs.
 * @param dataDir the data folder holding cipher-speed.json; default resolveHome()
 */
export function defaultMacOrder(dataDir?: string): string[] {
  return defaultAlgorithmOrders(dataDir).hmac;
}

/** Splits CLI comma lists: `['a,b', ' c ']` → `['a', 'b', 'c']`. */
function splitNames(values: string[]): string[] {
  return values
    .flatMap((v) => String(v).split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * Resolves one family: an explicit list, or (as in ssh_config(5) `Ciphers`) a list starting with `+`
 * (append to the defaults), `-` (remove from the defaults) or `^` (put first).
 */
function resolveFamily(family: AlgorithmFamily, values: string[], orders: DefaultAlgorithmOrders): string[] {
  const { flag, supported, defaults } = FAMILIES[family];
  const joined = splitNames(values).join(',');
  if (joined === '')
    throw new SluiceError('USAGE', `${flag} needs at least one algorithm name. Supported: ${supported().join(', ')}`);
  const mode = /^[+\-^]/.test(joined) ? joined[0] : '';
  const names = splitNames([mode ? joined.slice(1) : joined]);
  if (names.length === 0)
    throw new SluiceError('USAGE', `${flag} "${joined}" names no algorithm. Supported: ${supported().join(', ')}`);
  for (const name of names) {
    if (!supported().includes(name)) {
      throw new SluiceError(
        'USAGE',
        `Unknown or unsupported ${flag} algorithm "${name}". Supported: ${supported().join(', ')}`,
      );
    }
  }
  const base = [...defaults(orders)];
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
 * `cipher` and `hmac` always come back explicit ({@link defaultAlgorithmOrders} when not chosen: this machine's
 * measured order, else the AES rule) so that workers do not fall back to ssh2's own order; `+`, `-` and `^` lists
 * apply to those defaults; kex and host-key algorithms are left to ssh2's defaults when not chosen.
 * @param dataDir the data folder holding cipher-speed.json; default resolveHome()
 * @throws SluiceError('USAGE') naming the unknown algorithm and listing the supported ones
 */
export function buildAlgorithms(choice: AlgorithmChoice, dataDir?: string): Algorithms {
  const orders = defaultAlgorithmOrders(dataDir);
  const out: Record<string, string[]> = {
    cipher: choice.cipher !== undefined ? resolveFamily('cipher', choice.cipher, orders) : orders.cipher,
    hmac: choice.hmac !== undefined ? resolveFamily('hmac', choice.hmac, orders) : orders.hmac,
  };
  for (const family of ['kex', 'serverHostKey'] as const) {
    const values = choice[family];
    if (values !== undefined) out[family] = resolveFamily(family, values, orders);
  }
  // Explicit, so that ssh2's own default (with ssh-rsa) is never used; engine/setup.ts then puts stored key types
  // first.
  out.serverHostKey ??= FAMILIES.serverHostKey.defaults();
  return out as Algorithms;
}

/**
 * What the site form offers per family (`algorithms.catalog`): every name ssh2 supports here, the order a site without
 * its own list offers (weak names never among them; ciphers and MACs in this machine's measured order), and the weak
 * names with their reason.
 * @param dataDir the data folder holding cipher-speed.json; default resolveHome()
 */
export function algorithmCatalog(dataDir?: string): AlgorithmCatalog {
  const supported = supportedAlgorithms();
  const orders = defaultAlgorithmOrders(dataDir);
  const out = {} as AlgorithmCatalog;
  for (const family of Object.keys(FAMILIES) as AlgorithmFamily[]) {
    const weak: Record<string, string> = {};
    for (const name of supported[family]) if (isWeakAlgorithm(family, name)) weak[name] = WEAK_ALGORITHMS[family][name];
    // One row per algorithm in the form: a second spelling of a supported name is listed as an alias only.
    const aliases = Object.fromEntries(
      Object.entries(ALGORITHM_ALIASES[family]).filter(
        ([alias, name]) => supported[family].includes(alias) && supported[family].includes(name),
      ),
    );
    out[family] = {
      supported: supported[family].filter((n) => aliases[n] === undefined),
      defaults: withoutWeak(family, FAMILIES[family].defaults(orders)),
      weak,
      ...(Object.keys(aliases).length ? { aliases } : {}),
    };
  }
  return out;
}
