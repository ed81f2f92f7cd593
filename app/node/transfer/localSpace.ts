/**
 * A download's free-space check: before any byte moves, the folder of its target (where its `.part` is created)
 * must have room for what is still to come, or the file fails DISK_FULL naming the user's path, the space needed and
 * the space free. The check is per file; files planned at the same time are not summed (their `.part` files are
 * preallocated when they open — sys/preallocate.ts — which the next file's check then sees, where the addon is built).
 */
import fs from 'node:fs';
import path from 'node:path';
import { SluiceError } from '../errors';

/** `n` bytes in IEC units with one decimal, and the exact count (`1.5 GiB (1610612736 bytes)`). */
function bytesText(n: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} bytes` : `${v.toFixed(1)} ${units[u]} (${n} bytes)`;
}

/**
 * Checks that the local folder of `dst` can take `bytes` more (statfs: blocks available to an unprivileged user).
 * @param dst the download's local target (the user's path)
 * @param bytes what the download still writes (its size less an earlier run's or an append's kept bytes)
 * @throws SluiceError DISK_FULL "Local disk full: DST needs N, F free in DIR"; nothing when statfs is unavailable
 *   (the write's own ENOSPC then reports it)
 */
export async function ensureLocalSpace(dst: string, bytes: number): Promise<void> {
  if (bytes <= 0) return;
  const dir = path.dirname(dst);
  const st = await fs.promises.statfs(dir).catch(() => undefined);
  if (!st) return;
  const free = st.bavail * st.bsize;
  if (bytes <= free) return;
  throw new SluiceError(
    'DISK_FULL',
    `Local disk full: ${dst} needs ${bytesText(bytes)}, ${bytesText(free)} free in ${dir} (nothing was downloaded)`,
  );
}
