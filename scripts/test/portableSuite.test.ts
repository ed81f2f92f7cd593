/**
 * The suite runs on a macOS or Windows runner too (#30 "Tests and CI"): no test names /usr/sbin/sshd, /run/sshd,
 * /usr/bin/chromium, /proc or a /tmp folder itself; they ask e2e/fixtures/platformTools.ts (environment variable, else
 * the platform's place) and skip with a printed reason where a tool is absent. And a CLI under test gets its empty
 * home as USERPROFILE too, which is what os.homedir() reads on Windows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  chromiumPath,
  childPids,
  commandLine,
  parentPid,
  pidAlive,
  processTable,
  sshdPath,
  sshdPrivsepDir,
} from '../../e2e/fixtures/platformTools';
import { cliEnv } from '../../app/node/test/helpers';
import { ROOT } from './scriptsApi';

/** What a portable test must not name; platformTools.ts is where the defaults live. */
const HARD_CODED: Array<[string, RegExp]> = [
  ['/usr/sbin/sshd', /\/usr\/sbin\/sshd/],
  ['/run/sshd', /\/run\/sshd/],
  ['/usr/bin/chromium', /\/usr\/bin\/chromium/],
  // /proc/cpuinfo is the engine's own fallback (app/node/ssh/cpuAes.ts), tested only where it exists.
  ['/proc', /['"`]\/proc(?:['"`]|\/(?!cpuinfo))/],
  // os.homedir() reads USERPROFILE on Windows; a test that wants the home asks it, not HOME.
  ['process.env.HOME', /process\.env\.HOME\b/],
  ['a /tmp folder', /mkdtemp(?:Sync)?\(\s*['"`]\/tmp|(?:\?\?|\|\|)\s*['"`]\/tmp['"`]|join\(\s*['"`]\/tmp['"`]/],
];
const EXEMPT = new Set(['e2e/fixtures/platformTools.ts', 'scripts/test/portableSuite.test.ts']);

/** The suite's sources: test files, their fixtures and harness, the Playwright config and the test scripts. */
function suiteFiles(): string[] {
  const out: string[] = ['playwright.config.ts', 'scripts/run-tests.js', 'scripts/screenshots.js'];
  const helperDirs = /^(e2e\/(fixtures|harness|pages)|app\/node\/test|main\/test|scripts\/test)\//;
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
      const child = path.posix.join(rel, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && e.name !== 'dist') walk(child);
        continue;
      }
      if (/\.(test|spec)\.ts$/.test(e.name) || (helperDirs.test(child) && /\.ts$/.test(e.name))) out.push(child);
    }
  };
  for (const dir of ['app', 'main', 'renderer', 'e2e', 'scripts', 'bench']) walk(dir);
  return out.filter((f) => !EXEMPT.has(f));
}

test('no test source hard-codes sshd, its privsep folder, Chromium, /proc, /tmp or reads HOME', () => {
  const files = suiteFiles();
  assert.ok(files.length > 100, `scanned ${files.length} files`);
  const found: string[] = [];
  for (const f of files) {
    fs.readFileSync(path.join(ROOT, f), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const [what, re] of HARD_CODED) if (re.test(line)) found.push(`${f}:${i + 1}: ${what}`);
      });
  }
  assert.deepEqual(found, [], 'ask e2e/fixtures/platformTools.ts instead');
});

test("platformTools: environment variables first, then each platform's own places", () => {
  assert.equal(sshdPath({ SLUICE_SSHD: '/opt/x/sshd' }, 'linux'), '/opt/x/sshd');
  assert.equal(sshdPath({ SystemRoot: 'D:\\Win', PATH: '' }, 'win32'), 'D:\\Win\\System32\\OpenSSH\\sshd.exe');
  assert.equal(sshdPrivsepDir({}, 'linux'), '/run/sshd');
  assert.equal(sshdPrivsepDir({}, 'darwin'), undefined);
  assert.equal(sshdPrivsepDir({}, 'win32'), undefined);
  assert.equal(sshdPrivsepDir({ SLUICE_SSHD_PRIVSEP_DIR: '/var/empty/x' }, 'linux'), '/var/empty/x');
  assert.equal(chromiumPath({ SLUICE_CHROMIUM: '/opt/chrome' }, 'linux'), '/opt/chrome');
  assert.equal(chromiumPath({}, 'win32'), undefined, "Windows: Playwright's own browser");
  const here = sshdPath();
  if (!fs.existsSync(here)) console.log(`# platformTools: no sshd at ${here} here (SLUICE_SSHD names one)`);
});

test('platformTools: the process table knows a child, its parent and command line, and when it is gone', async () => {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)', 'portable-marker'], { stdio: 'ignore' });
  const pid = child.pid!;
  try {
    assert.ok(
      processTable().some((r) => r.pid === process.pid),
      'this process is in the table',
    );
    assert.ok(childPids(process.pid).includes(pid));
    assert.equal(parentPid(pid), process.pid);
    assert.equal(pidAlive(pid), true);
    if (process.platform !== 'win32') assert.match(commandLine(pid), /portable-marker/);
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
  assert.equal(pidAlive(pid), false, 'reaped: gone');
});

test("a CLI under test has its home as HOME and USERPROFILE (Windows' os.homedir()), or the test's own", async () => {
  const env = cliEnv({ knownHosts: path.join(ROOT, 'kh') });
  assert.ok(env.HOME && env.USERPROFILE === env.HOME, 'USERPROFILE follows HOME');
  const own = cliEnv({ knownHosts: path.join(ROOT, 'kh'), env: { HOME: path.join(ROOT, 'x') } });
  assert.equal(own.USERPROFILE, path.join(ROOT, 'x'), "a test's HOME is its USERPROFILE too");
  const script = 'process.stdout.write(require("os").homedir())';
  const child = spawn(process.execPath, ['-e', script], { env, stdio: 'pipe' });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  await new Promise((r) => child.once('close', r));
  assert.equal(out, env.HOME, "the child's os.homedir() is the test home");
});
