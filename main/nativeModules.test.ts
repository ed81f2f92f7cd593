/**
 * main/nativeModules.ts with a mocked electron: a native module built for another runtime is a dialog naming the
 * module, both NODE_MODULE_VERSIONs and the fix; better-sqlite3 failing stops the start, the others only warn.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { installElectronMock } from './test/mockElectron';

type Box = { title: string; detail: string; type?: string };
const electron = installElectronMock() as ReturnType<typeof installElectronMock> & Record<string, unknown>;
const errorBoxes: Box[] = [];
const messageBoxes: Box[] = [];
// This module's own electron surface, added here so mockElectron.ts stays as other main/ tests use it.
electron.app = { isPackaged: false };
electron.dialog = {
  showErrorBox: (title: string, detail: string) => {
    errorBoxes.push({ title, detail });
  },
  showMessageBox: (o: Box) => {
    messageBoxes.push(o);
    return Promise.resolve({ response: 0 });
  },
};
const nm = require('./nativeModules') as typeof import('./nativeModules');

const ROOT = path.join(__dirname, '..', '..');
// Node's own text (src/node_binding.cc) for a module built for Node 20 loaded by Electron 45.
const mismatch = (file: string): Error =>
  Object.assign(
    new Error(
      `The module '${file}'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of Node.js requires\nNODE_MODULE_VERSION 150. Please try re-compiling or re-installing\nthe module (for instance, using \`npm rebuild\` or \`npm install\`).`,
    ),
    { code: 'ERR_DLOPEN_FAILED' },
  );

test('every native module of this checkout loads in this Node (the real files, the default loader)', () => {
  const specs = nm.nativeModuleSpecs(ROOT);
  assert.deepEqual(
    specs.slice(0, 3).map((s) => s.name),
    ['better-sqlite3', 'ssh2', 'cpu-features'],
  );
  assert.deepEqual(nm.probeNativeModules(specs), []);
  // ssh2's own require of its binding gets the instance loaded above (require's cache), and it works.
  const crypto = require('ssh2/lib/protocol/crypto') as { bindingAvailable: boolean };
  assert.equal(crypto.bindingAvailable, true);
  assert.ok(require.cache[require.resolve('ssh2/lib/protocol/crypto/build/Release/sshcrypto.node')]);
});

test('a missing .node file and a file that is not a library are told apart from an ABI mismatch (real loader errors)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-native-'));
  const junk = path.join(dir, 'junk.node');
  fs.writeFileSync(junk, 'not an ELF file');
  const failures = nm.probeNativeModules([
    { name: 'gone', file: path.join(dir, 'gone.node'), fatal: false, without: 'x' },
    { name: 'junk', file: junk, fatal: false, without: 'x' },
  ]);
  fs.rmSync(dir, { recursive: true, force: true });
  assert.deepEqual(
    failures.map((f) => [f.name, f.kind]),
    [
      ['gone', 'missing'],
      ['junk', 'other'],
    ],
  );
  assert.match(nm.describeFailure(failures[1], '45.4.1'), /^junk: failed to load: .*junk\.node/);
});

const cc = spawnSync('cc', ['--version']).status === 0;
test(
  'a library calling a function the runtime lacks fails at load (RTLD_NOW), not at its first call',
  { skip: cc ? false : 'no C compiler (cc) to build the test library' },
  () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-native-'));
    try {
      // As ssh2's binding built against OpenSSL headers calls ERR_set_mark, which Electron's BoringSSL lacks.
      fs.writeFileSync(
        path.join(dir, 'lazy.c'),
        'extern void ERR_set_mark_missing(void);\nvoid call_it(void) { ERR_set_mark_missing(); }\n',
      );
      const built = spawnSync('cc', ['-shared', '-fPIC', '-o', path.join(dir, 'lazy.node'), path.join(dir, 'lazy.c')], {
        encoding: 'utf8',
      });
      assert.equal(built.status, 0, built.stderr);
      const [f] = nm.probeNativeModules([
        { name: 'lazy', file: path.join(dir, 'lazy.node'), fatal: false, without: 'x' },
      ]);
      assert.equal(f.kind, 'other');
      assert.match(f.message, /undefined symbol: ERR_set_mark_missing/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('native/ addon files are found under native/build/Release when built, and none when it is not', () => {
  const names = nm.nativeModuleSpecs('/app', (dir) => {
    assert.equal(dir, path.join('/app', 'native', 'build', 'Release'));
    return ['sluice_native.node', 'x.txt'];
  });
  assert.deepEqual(
    names.slice(3).map((s) => [s.name, s.file, s.fatal]),
    [['native/sluice_native.node', path.join('/app/native/build/Release/sluice_native.node'), false]],
  );
  assert.equal(
    nm.nativeModuleSpecs('/app', () => {
      throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    }).length,
    3,
  );
});

test('better-sqlite3 built for Node 20 under Electron: an error box names it, 115 (Node.js 20), 150 and the command; start stops', () => {
  errorBoxes.length = 0;
  messageBoxes.length = 0;
  const ok = nm.checkNativeModulesAtStart('/nowhere', (file) => {
    if (file.includes('better_sqlite3')) throw mismatch(file);
  });
  assert.equal(ok, false);
  assert.equal(messageBoxes.length, 0);
  assert.equal(errorBoxes.length, 1);
  assert.equal(errorBoxes[0].title, 'Sluice cannot start: a native module does not load');
  assert.match(
    errorBoxes[0].detail,
    /^better-sqlite3: built for NODE_MODULE_VERSION 115 \(Node\.js 20\), but Electron \S+ requires NODE_MODULE_VERSION 150\. Sluice cannot run without it\./,
  );
  assert.ok(errorBoxes[0].detail.includes(`    ${nm.REBUILD_COMMAND}\n`), errorBoxes[0].detail);
});

test("only ssh2's binding and cpu-features mismatched: a warning names both and the app goes on", () => {
  errorBoxes.length = 0;
  messageBoxes.length = 0;
  const ok = nm.checkNativeModulesAtStart('/nowhere', (file) => {
    if (!file.includes('better_sqlite3')) throw mismatch(file);
  });
  assert.equal(ok, true);
  assert.equal(errorBoxes.length, 0);
  assert.equal(messageBoxes.length, 1);
  assert.equal(messageBoxes[0].type, 'warning');
  assert.match(
    messageBoxes[0].detail,
    /ssh2: built for NODE_MODULE_VERSION 115 .*Without it, ssh2 falls back to its JavaScript ciphers/,
  );
  assert.match(messageBoxes[0].detail, /cpu-features: built for NODE_MODULE_VERSION 115/);
});

test('in the installed app the fix is a reinstall, not an npm command', () => {
  const f = nm.probeNativeModules([{ name: 'better-sqlite3', file: 'b', fatal: true, without: 'x' }], (file) => {
    throw mismatch(file);
  });
  const report = nm.failureReport(f, { packaged: true, electronVersion: '45.4.1' });
  assert.equal(report.fatal, true);
  assert.match(report.detail, /Reinstall Sluice\.$/);
  assert.ok(!report.detail.includes('npm'), report.detail);
  assert.match(report.detail, /Electron 45\.4\.1 requires NODE_MODULE_VERSION 150/);
});

test('parseAbiMismatch reads both numbers and refuses other errors', () => {
  assert.deepEqual(nm.parseAbiMismatch(mismatch('/x.node').message), { compiled: '115', required: '150' });
  assert.equal(nm.parseAbiMismatch('invalid ELF header'), null);
});
