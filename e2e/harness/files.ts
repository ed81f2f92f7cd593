/**
 * TEST ONLY: helpers for the files a spec creates and checks (remote paths are local paths here: the sshd is on this
 * machine).
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Writes `size` random bytes to `file` (in 1 MiB pieces) and returns its path. */
export function writeRandomFile(file: string, size: number): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, 'w');
  try {
    for (let left = size; left > 0;) {
      const n = Math.min(left, 1024 * 1024);
      fs.writeSync(fd, randomBytes(n));
      left -= n;
    }
  } finally {
    fs.closeSync(fd);
  }
  return file;
}

/** SHA-256 of a file, hex. */
export function sha256File(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** OpenSSH fingerprint of a public key blob: `SHA256:` + unpadded base64 of its SHA-256. */
export function fingerprintOf(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/**
 * `dir` made empty (removed with what an earlier test left in it, then created): a spec's tests share the worker's
 * sshd, and a fixed folder name keeps the pictures the same from run to run. Returns `dir`.
 */
export function emptyDir(dir: string): string {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}
