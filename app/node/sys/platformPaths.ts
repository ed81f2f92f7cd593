/**
 * Local paths by platform: one home folder for everything Sluice reads from it (ssh_config, keys, known_hosts, site
 * imports, the data folder), the path module of the local side (`path.win32` on Windows, `path.posix` elsewhere; the
 * remote side is always `path.posix`), `~` expansion, and where OpenSSH keeps its system files. The platform is a
 * parameter so that the Windows rules are tested on Linux.
 */
import os from 'node:os';
import path from 'node:path';

/** The path module of a local file system: `path.win32` on Windows, else `path.posix`. */
export function pathFor(platform: NodeJS.Platform = process.platform): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}

/**
 * The user's home folder as `os.homedir()` finds it, read from `env` so that it can be injected: `USERPROFILE` on
 * Windows (a `HOME` set by Git Bash or MSYS is not the profile OpenSSH for Windows reads), `HOME` elsewhere; without
 * the variable, `os.homedir()`.
 */
export function homeOf(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const v = platform === 'win32' ? env.USERPROFILE : env.HOME;
  return v !== undefined && v !== '' ? v : os.homedir();
}

/**
 * `~` and `~/x` against `home` (and `~\x` on Windows, where `\` separates too), in the platform's path module;
 * anything else, `~user/x` included, is returned unchanged.
 */
export function expandTilde(p: string, home: string, platform: NodeJS.Platform = process.platform): string {
  if (p === '~') return home;
  const tilde = p.startsWith('~/') || (platform === 'win32' && p.startsWith('~\\'));
  return tilde ? pathFor(platform).join(home, p.slice(2)) : p;
}

/** Whether {@link expandTilde} would expand `p` (`~`, `~/x`, and `~\x` on Windows). */
export function startsWithTilde(p: string, platform: NodeJS.Platform = process.platform): boolean {
  return p === '~' || p.startsWith('~/') || (platform === 'win32' && p.startsWith('~\\'));
}

/**
 * OpenSSH's folder of system-wide files: `%ProgramData%\ssh` on Windows (Win32-OpenSSH), `/etc/ssh` elsewhere.
 */
export function systemSshDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  if (platform !== 'win32') return '/etc/ssh';
  return path.win32.join(env.ProgramData ?? env.PROGRAMDATA ?? 'C:\\ProgramData', 'ssh');
}

/** The null device (`UserKnownHostsFile none`): `\\.\nul` on Windows, `/dev/null` elsewhere (os.devNull). */
export function nullDevice(platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32' ? '\\\\.\\nul' : '/dev/null';
}

/** True for either platform's null device (`/dev/null`, `\\.\nul`, `\\?\nul`, `nul`): a path never to write. */
export function isNullDevice(p: string): boolean {
  return p === '/dev/null' || /^(\\\\[.?]\\)?nul$/i.test(p);
}
