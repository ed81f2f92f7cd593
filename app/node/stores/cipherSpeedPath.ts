/**
 * Where `sluice bench-ciphers` keeps its measurements: `<data folder>/cipher-speed.json`. Apart from the store
 * (stores/cipherSpeed.ts, which validates with zod) so that a connect can see there is no file without loading zod.
 */
import path from 'node:path';

/** The file's name in the data folder. */
export const CIPHER_SPEED_FILE = 'cipher-speed.json';

/** The file's path in a data folder. */
export function cipherSpeedPath(home: string): string {
  return path.join(home, CIPHER_SPEED_FILE);
}
