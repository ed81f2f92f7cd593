/**
 * Permission-sensitive tests run as an unprivileged user. CI and this workplace run as root, which bypasses every
 * permission bit (a 0444 file is writable, a 0555 folder takes new files), so a test of what a user meets spawns
 * the CLI as `nobody` (spawn's uid/gid: setuid in the child, supplementary groups dropped by libuv, as
 * `setpriv --reuid=nobody --regid=nogroup --clear-groups` would) with a folder of its own it may write to.
 * Run by a user who is not root, the tests run as that user, who is already unprivileged.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { makeTempDir } from '../../../e2e/fixtures/tmp';
import { CLI_BIN } from '../cli';

/** A user the CLI runs as: `spawn` gets uid/gid only when the test process would have to change user. */
export interface TestUser {
  name: string;
  uid: number;
  gid: number;
  /** False: the test process already is this user (no uid/gid change needed). */
  switchTo: boolean;
}

/** `id -u NAME` / `id -g NAME`, or undefined when there is no such user (or no `id`). */
function idOf(name: string, flag: '-u' | '-g'): number | undefined {
  const r = spawnSync('id', [flag, name], { encoding: 'utf8', timeout: 5_000 });
  const n = Number(r.stdout?.trim());
  return r.status === 0 && Number.isInteger(n) ? n : undefined;
}

/**
 * The unprivileged user permission tests run as: `nobody` when this process is root, else the current user.
 * @returns the user, or the reason there is none (a test skips with it: Windows has no POSIX users)
 */
export function unprivilegedUser(): TestUser | string {
  if (process.platform === 'win32' || typeof process.getuid !== 'function') {
    return 'POSIX permission bits do not apply on Windows';
  }
  if (process.getuid() !== 0) {
    const me = os.userInfo();
    return { name: me.username, uid: me.uid, gid: me.gid, switchTo: false };
  }
  const uid = idOf('nobody', '-u');
  const gid = idOf('nobody', '-g');
  if (uid === undefined || gid === undefined) return 'no user "nobody" here to run the test as';
  // The checkout must be readable by nobody (a clone under a 0700 home is not): say so instead of failing obscurely.
  const probe = spawnSync(process.execPath, [CLI_BIN, '--version'], {
    uid,
    gid,
    cwd: os.tmpdir(),
    env: { ...process.env, HOME: os.tmpdir() },
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (probe.status !== 0) {
    return (
      `nobody cannot run ${CLI_BIN} (${(probe.stderr || probe.error?.message || '').trim().split('\n')[0]}): ` +
      'make the checkout readable by others (chmod o+rX) to run the permission tests'
    );
  }
  return { name: 'nobody', uid, gid, switchTo: true };
}

/** Gives `p` to `user` (a no-op for the current user). */
export function giveTo(user: TestUser, p: string): void {
  if (user.switchTo) fs.chownSync(p, user.uid, user.gid);
}

/** A fresh folder only `user` may use (mode 0700), under the OS temp dir. */
export async function folderOf(user: TestUser, prefix: string): Promise<string> {
  const dir = await makeTempDir(prefix);
  fs.chmodSync(dir, 0o700);
  giveTo(user, dir);
  return dir;
}

/**
 * Copies `file` into `dir` as `user`'s own (mode 0600: ssh keys must not be readable by others).
 * @returns the copy's path
 */
export function copyFor(user: TestUser, file: string, dir: string): string {
  const copy = path.join(dir, path.basename(file));
  fs.copyFileSync(file, copy);
  fs.chmodSync(copy, 0o600);
  giveTo(user, copy);
  return copy;
}

/** What `startCli` passes to `spawn` to run as `user` (nothing for the current user). */
export function spawnIdentity(user: TestUser | undefined): { uid?: number; gid?: number } {
  return user?.switchTo ? { uid: user.uid, gid: user.gid } : {};
}
