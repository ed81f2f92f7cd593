/**
 * scripts/build-native.js, run on a copy of native/ (the checkout's own build stays as it is): with a compiler it
 * builds sluice_native.node, which loads in plain Node and answers; with a compiler that fails it warns and exits 0
 * (an `npm install` without a toolchain goes on), leaving no addon; SLUICE_NATIVE=0 skips the build.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const repo = path.resolve(__dirname, '..', '..', '..', '..');
const gyp = ['/usr/bin/g++', '/usr/bin/c++'].some((p) => fs.existsSync(p)) ? undefined : 'no C++ compiler here';
if (gyp) process.stdout.write(`# build-native tests skipped: ${gyp}\n`);

/** A scratch checkout: scripts/build-native.js, native/ (sources only) and the repo's node_modules. */
function scratch(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-buildnative-'));
  fs.mkdirSync(path.join(dir, 'scripts'));
  fs.copyFileSync(path.join(repo, 'scripts', 'build-native.js'), path.join(dir, 'scripts', 'build-native.js'));
  fs.mkdirSync(path.join(dir, 'native'));
  fs.copyFileSync(path.join(repo, 'native', 'binding.gyp'), path.join(dir, 'native', 'binding.gyp'));
  fs.cpSync(path.join(repo, 'native', 'src'), path.join(dir, 'native', 'src'), { recursive: true });
  fs.symlinkSync(fs.realpathSync(path.join(repo, 'node_modules')), path.join(dir, 'node_modules'));
  return dir;
}

function build(dir: string, env: Record<string, string>): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [path.join(dir, 'scripts', 'build-native.js')], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 240_000,
    env: { ...process.env, ...env },
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

const addonIn = (dir: string) => path.join(dir, 'native', 'build', 'Release', 'sluice_native.node');

test(
  'build-native: builds sluice_native.node, which loads in plain Node and reads TCP_INFO and data ranges',
  { skip: gyp, timeout: 300_000 },
  () => {
    const dir = scratch();
    try {
      const r = build(dir, {});
      assert.equal(r.status, 0, r.out);
      assert.match(r.out, /native addon built: native\/build\/Release\/sluice_native\.node/);
      const probe = spawnSync(
        process.execPath,
        [
          '-e',
          `
      const n = require(${JSON.stringify(addonIn(dir))});
      const fd = require('fs').openSync(${JSON.stringify(path.join(dir, 'native', 'binding.gyp'))}, 'r');
      let sock; try { n.tcpInfo(fd); } catch (e) { sock = e.code; }
      console.log(JSON.stringify({ keys: Object.keys(n).sort(), platform: n.platform, ranges: n.dataRanges(fd, 10), sock }));
    `,
        ],
        { encoding: 'utf8' },
      );
      assert.equal(probe.status, 0, probe.stderr);
      assert.deepEqual(JSON.parse(probe.stdout), {
        keys: ['dataRanges', 'isHidden', 'platform', 'preallocate', 'setSparse', 'tcpInfo'],
        platform: process.platform === 'linux' ? 'linux' : process.platform,
        ranges: [[0, 10]],
        sock: 'ENOTSOCK',
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);

test(
  'build-native: a compiler that fails gives a warning and exit 0, and no addon',
  { skip: gyp, timeout: 300_000 },
  () => {
    const dir = scratch();
    try {
      const r = build(dir, { CXX: '/bin/false', CC: '/bin/false' });
      assert.equal(r.status, 0, r.out);
      assert.match(r.out, /sluice: native addon not built \(node-gyp exited with 1\)/);
      assert.match(r.out, /npm run build:native/);
      assert.equal(fs.existsSync(addonIn(dir)), false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('build-native: SLUICE_NATIVE=0 builds nothing', () => {
  const dir = scratch();
  try {
    const r = build(dir, { SLUICE_NATIVE: '0' });
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /SLUICE_NATIVE=0, native addon not built/);
    assert.equal(fs.existsSync(path.join(dir, 'native', 'build')), false);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
