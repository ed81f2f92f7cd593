/**
 * A FAT file system for tests: a file system without hard links (or POSIX permission bits), as a USB stick, an SD
 * card or many SMB/NAS shares are. A 16 MiB image made by `mkfs.vfat` (Debian dosfstools), mounted by the kernel's
 * vfat driver through a loop device where it has one, else through FUSE (`fusefat`, Debian fusefat): containers and
 * minimal kernels often lack vfat but have /dev/fuse. Needs root (or the mount being allowed).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeTempDir, removeDir } from '../../../e2e/fixtures/tmp';

/** A mounted FAT image. */
export interface FatMount {
  /** The mount point (a folder on the FAT file system). */
  dir: string;
  /** 'vfat (loop)' or 'fusefat (FUSE)'. */
  how: string;
  /** Unmounts and removes the image. */
  remove(): Promise<void>;
}

function run(cmd: string, args: string[]): { ok: boolean; text: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 20_000 });
  return { ok: r.status === 0, text: `${r.stderr ?? ''}${r.error?.message ?? ''}`.trim() };
}

/** Whether `dir` is a mount point now (its device differs from its parent's). */
function isMountPoint(dir: string): boolean {
  try {
    return fs.statSync(dir).dev !== fs.statSync(path.dirname(dir)).dev;
  } catch {
    return false;
  }
}

/**
 * Makes and mounts a FAT image.
 * @returns the mount, or why none could be made here (a test skips with it)
 */
export async function mountFatImage(): Promise<FatMount | string> {
  if (process.platform !== 'linux') return 'the FAT image is made with Linux tools (mkfs.vfat, mount, fusefat)';
  const work = await makeTempDir('sluice-fat-');
  const image = path.join(work, 'fat.img');
  const dir = path.join(work, 'mnt');
  fs.mkdirSync(dir);
  fs.writeFileSync(image, '');
  fs.truncateSync(image, 16 * 1024 * 1024);
  const mkfs = run('mkfs.vfat', [image]);
  if (!mkfs.ok) {
    await removeDir(work);
    return `mkfs.vfat failed (Debian dosfstools): ${mkfs.text}`;
  }
  const kernel = run('mount', ['-o', 'loop', '-t', 'vfat', image, dir]);
  const fuse = kernel.ok ? kernel : run('fusefat', ['-s', '-o', 'rw+', image, dir]);
  if (!fuse.ok || !isMountPoint(dir)) {
    await removeDir(work);
    return `cannot mount a FAT image here: mount -t vfat: ${kernel.text}; fusefat: ${fuse.text || 'not a mount point'}`;
  }
  return {
    dir,
    how: kernel.ok ? 'vfat (loop)' : 'fusefat (FUSE)',
    async remove() {
      const un = run('umount', [dir]);
      if (!un.ok) throw new Error(`umount ${dir}: ${un.text}`);
      await removeDir(work);
    },
  };
}
