/**
 * A segmented download's `.part` on Windows (#30 item 8). The file is set to its full size first and segments write
 * at their offsets in parallel; NTFS keeps a per-file "valid data length", and a write beyond it first zero-fills the
 * gap synchronously (the whole gap, in the writing thread), so far segments stall and every byte before them is
 * written twice. Marking the file sparse (FSCTL_SET_SPARSE, through the native/ addon) makes the gap a hole instead.
 * A sparse file is not preallocated (its point is to allocate as data arrives), so the reservation is skipped.
 *
 * Not measured: there is no Windows runner yet. The alternative the issue names, SetFileValidData, needs the
 * SE_MANAGE_VOLUME_NAME privilege (administrators) and exposes the disk's old contents: not used. Without the addon
 * (or on FAT/exFAT, which cannot be sparse) the zero-fill stays; fewer, larger segments are then the way to bound it.
 */
import { nativeAddon, type NativeAddon } from './native';

/** How a download's temporary file was laid out: a sparse file (Windows), or a plain one (every other case). */
export type PartLayout = 'sparse' | 'plain';

/**
 * Marks an open, empty download file sparse where that avoids NTFS's zero-fill: only on Windows; a missing addon, a
 * file system that cannot, or a failing call leaves it plain (never an error: the download goes on as before).
 * @param fd the open file, before it is extended
 */
export function prepareSegmentedPart(
  fd: number,
  platform: NodeJS.Platform = process.platform,
  addon: Pick<NativeAddon, 'setSparse'> | undefined = nativeAddon(),
): PartLayout {
  if (platform !== 'win32' || !addon?.setSparse) return 'plain';
  try {
    return addon.setSparse(fd) ? 'sparse' : 'plain';
  } catch {
    return 'plain';
  }
}
