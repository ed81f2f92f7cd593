/**
 * ssh_config, known_hosts and the home folder as a Windows user meets them (#30 item 5), on Linux with the platform
 * injected: one home (USERPROFILE, never a Git Bash HOME), `%ProgramData%\ssh`, Include paths in `path.win32` (both
 * separators, drive roots), `~\` expanded, and `UserKnownHostsFile none` the null device, never a file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolveHostSettings } from '../engine/hostSettings';
import { KnownHosts, defaultKnownHostsPaths } from '../stores/knownHosts';
import { defaultSourcePath } from '../sites/source';
import { resolveHome } from '../stores/dataDir';
import { expandTilde, homeOf, isNullDevice, nullDevice, startsWithTilde, systemSshDir } from '../sys/platformPaths';
import { computeHostConfig, configFilesFor, expandGlob, type ConfigFs } from './sshConfig';

const WIN_ENV = {
  USERPROFILE: 'C:\\Users\\me',
  HOME: '/c/Users/me-bash',
  ProgramData: 'D:\\PD',
  APPDATA: 'C:\\Users\\me\\AppData\\Roaming',
};

/** An in-memory Windows file system: files by path.win32 path (matched case-insensitively, as NTFS does). */
function winFs(files: Record<string, string>): ConfigFs & { reads: string[] } {
  const byKey = new Map(Object.entries(files).map(([k, v]) => [k.toLowerCase(), v]));
  const reads: string[] = [];
  const enoent = (p: string) => Object.assign(new Error(`ENOENT: ${p}`), { code: 'ENOENT' });
  return {
    reads,
    readFileSync(file: string) {
      const text = byKey.get(path.win32.normalize(file).toLowerCase());
      if (text === undefined) throw enoent(file);
      reads.push(file);
      return text;
    },
    readdirSync(dir: string) {
      const d = path.win32.normalize(dir).toLowerCase().replace(/\\$/, '');
      const names = Object.keys(files)
        .filter((f) => path.win32.dirname(f).toLowerCase() === d)
        .map((f) => path.win32.basename(f));
      if (names.length === 0) throw enoent(dir);
      return names;
    },
  };
}

test('one home: USERPROFILE on Windows (a Git Bash HOME is not it), HOME elsewhere; ~\\ only on Windows', () => {
  assert.equal(homeOf(WIN_ENV, 'win32'), 'C:\\Users\\me');
  assert.equal(homeOf(WIN_ENV, 'linux'), '/c/Users/me-bash');
  assert.equal(expandTilde('~\\.ssh\\id', 'C:\\Users\\me', 'win32'), 'C:\\Users\\me\\.ssh\\id');
  assert.equal(expandTilde('~/.ssh/id', 'C:\\Users\\me', 'win32'), 'C:\\Users\\me\\.ssh\\id');
  assert.equal(expandTilde('~\\x', '/home/me', 'linux'), '~\\x', 'on POSIX ~\\x is a name');
  assert.ok(
    startsWithTilde('~\\cfg', 'win32') && startsWithTilde('~/cfg', 'linux') && !startsWithTilde('~\\cfg', 'linux'),
  );
  assert.equal(systemSshDir(WIN_ENV, 'win32'), 'D:\\PD\\ssh');
  assert.equal(systemSshDir({}, 'win32'), 'C:\\ProgramData\\ssh');
  assert.equal(systemSshDir(WIN_ENV, 'darwin'), '/etc/ssh');
  assert.equal(nullDevice('win32'), '\\\\.\\nul');
  assert.ok(isNullDevice('\\\\.\\NUL') && isNullDevice('/dev/null') && !isNullDevice('C:\\dev\\null'));
  // Site imports and the data folder read the same home as ssh_config and keys.
  assert.equal(defaultSourcePath('openssh', WIN_ENV, 'win32'), 'C:\\Users\\me\\.ssh\\config');
  assert.equal(
    defaultSourcePath('filezilla', { ...WIN_ENV, APPDATA: undefined }, 'win32'),
    'C:\\Users\\me\\AppData\\Roaming\\FileZilla\\sitemanager.xml',
  );
  const data = resolveHome({ USERPROFILE: 'C:\\Users\\me', HOME: '/c/x' }, 'win32');
  assert.equal(data, 'C:\\Users\\me\\AppData\\Roaming\\Sluice');
});

test('files on Windows: %USERPROFILE%\\.ssh\\config, then %ProgramData%\\ssh\\ssh_config; -F ~\\x', () => {
  const home = homeOf(WIN_ENV, 'win32');
  const files = (f: string | undefined) => configFilesFor(f, home, undefined, 'win32').map((c) => c.path);
  assert.deepEqual(files(undefined), ['C:\\Users\\me\\.ssh\\config', 'C:\\ProgramData\\ssh\\ssh_config']);
  assert.deepEqual(files('~\\alt\\config'), ['C:\\Users\\me\\alt\\config']);
  const kh = defaultKnownHostsPaths(WIN_ENV, undefined, 'win32');
  assert.deepEqual(kh.readPaths, ['C:\\Users\\me\\.ssh\\known_hosts', 'D:\\PD\\ssh\\ssh_known_hosts']);
  assert.equal(kh.writePath, 'C:\\Users\\me\\.ssh\\known_hosts');
});

test('Include on Windows: relative, ~\\, a drive root with either separator, globs, and the system folder', () => {
  const files = winFs({
    'C:\\Users\\me\\.ssh\\config': 'Include conf.d\\*.conf\nInclude ~\\.ssh\\extra\nInclude E:/shared/ssh/team\n',
    'C:\\Users\\me\\.ssh\\conf.d\\a.conf': 'Host box\n  Port 2201\n',
    'C:\\Users\\me\\.ssh\\conf.d\\b.conf': 'Host box\n  Port 2202\n  User bee\n',
    'C:\\Users\\me\\.ssh\\conf.d\\.hidden.conf': 'Host box\n  HostName wrong\n',
    'C:\\Users\\me\\.ssh\\extra': 'Host box\n  IdentityFile ~\\keys\\box\n',
    'E:\\shared\\ssh\\team': 'Host box\n  ConnectTimeout 7\n',
    'D:\\PD\\ssh\\ssh_config': 'Include sys.d/*\n',
    'D:\\PD\\ssh\\sys.d\\10-x': 'Host box\n  HostName box.example\n',
  });
  const home = homeOf(WIN_ENV, 'win32');
  const r = computeHostConfig({
    host: 'box',
    localUser: 'me',
    home,
    platform: 'win32',
    fs: files,
    files: configFilesFor(undefined, home, 'D:\\PD\\ssh\\ssh_config', 'win32'),
  });
  assert.equal(r.values.get('port')?.args[0], '2201', 'a.conf first, in name order');
  assert.equal(r.values.get('user')?.args[0], 'bee');
  assert.equal(r.values.get('connecttimeout')?.args[0], '7');
  assert.equal(
    r.values.get('hostname')?.args[0],
    'box.example',
    "a system file's relative Include: %ProgramData%\\ssh",
  );
  assert.deepEqual(
    r.identityFiles.map((f) => f.args[0]),
    ['~\\keys\\box'],
  );
  assert.equal(r.files.length, 7);
  const unc = winFs({ '\\\\srv\\share\\ssh\\one': '' });
  assert.deepEqual(expandGlob('\\\\srv\\share\\ssh\\*', 'win32', unc), ['\\\\srv\\share\\ssh\\one']);
});

test("resolveHostSettings on Windows: USERPROFILE's config, ~\\ keys, UserKnownHostsFile none is \\\\.\\nul", () => {
  const files = winFs({
    'C:\\Users\\me\\.ssh\\config':
      'Host box\n  HostName box.example\n  IdentityFile ~\\keys\\box\n  UserKnownHostsFile none\n',
    'C:\\Users\\me-bash\\.ssh\\config': 'Host box\n  HostName wrong.example\n',
  });
  const h = resolveHostSettings(
    { host: 'box' },
    { env: WIN_ENV, platform: 'win32', fs: files, localUser: 'me', localHost: 'pc', uid: 0 },
  );
  assert.equal(h.host, 'box.example');
  assert.deepEqual(h.identityFiles, ['C:\\Users\\me\\keys\\box']);
  assert.deepEqual(h.knownHostsFiles, ['\\\\.\\nul']);
  assert.deepEqual(h.configFiles, ['C:\\Users\\me\\.ssh\\config']);
});

test('UserKnownHostsFile none: accepting a key writes no file (no C:\\dev\\null, no .\\nul)', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-nul-'));
  const before = process.cwd();
  process.chdir(dir);
  t.after(() => {
    process.chdir(before);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const key = Buffer.concat([
    Buffer.from([0, 0, 0, 11]),
    Buffer.from('ssh-ed25519'),
    Buffer.from([0, 0, 0, 32]),
    Buffer.alloc(32, 7),
  ]);
  for (const nul of [nullDevice('win32'), nullDevice('linux')]) {
    const kh = await KnownHosts.load({ readPaths: [nul], writePath: nul });
    assert.equal(await kh.add('box.example', 22, key), false, nul);
    assert.equal(kh.lookup('box.example', 22, key).kind, 'unknown', `${nul}: nothing kept`);
  }
  assert.deepEqual(fs.readdirSync(dir), []);
});
