/**
 * ssh2's algorithm lists (lib/protocol/constants.js), read on first use (~50 ms): ssh2 filters them by what this
 * Node/OpenSSL build can do, so they are the truth for validation. A module of its own, apart from ssh/algorithms.ts
 * and its stored cipher measurement (zod): resolving a host through ssh_config (engine/hostSettings.ts) needs only
 * these lists and runs inside every connection worker, where zod's schema objects in the heap cost the worker's
 * garbage collector about 0.6 s of CPU per GiB downloaded (ssh/workerModules.test.ts).
 */
import type { AlgorithmFamilyName } from '../../common/algorithms';
import { ssh2Constants, type Ssh2Constants } from '../ssh2x';

/** The lists read from ssh2. */
export type Ssh2Lists = Ssh2Constants;

let loaded: Ssh2Lists | undefined;

/** ssh2's lists, each read from ssh2 on first access. */
export const ssh2Lists = {} as Ssh2Lists;
for (const key of [
  'SUPPORTED_CIPHER',
  'SUPPORTED_KEX',
  'SUPPORTED_MAC',
  'SUPPORTED_SERVER_HOST_KEY',
  'DEFAULT_KEX',
  'DEFAULT_MAC',
  'DEFAULT_SERVER_HOST_KEY',
] as const) {
  Object.defineProperty(ssh2Lists, key, { get: () => (loaded ??= ssh2Constants())[key] });
}

/** Supported names per family (for `--help` and error messages). */
export function supportedAlgorithms(): Record<AlgorithmFamilyName, string[]> {
  return {
    cipher: [...ssh2Lists.SUPPORTED_CIPHER],
    kex: [...ssh2Lists.SUPPORTED_KEX],
    hmac: [...ssh2Lists.SUPPORTED_MAC],
    serverHostKey: [...ssh2Lists.SUPPORTED_SERVER_HOST_KEY],
  };
}
