/**
 * scripts/native-abi.js: which runtime node_modules' native modules are built for (the marker), and when it
 * rebuilds (node -> electron -> node), with a fake runner that remembers which runtime each .node file was "built"
 * for; then the real node-gyp runner on a copy of ssh2's binding (a real build for this Node, and a failed Electron
 * header download that leaves the existing build in place). The beforePack hook drives the same code.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, nativeAbi, nativeGyp, hooks, type Build, type Runner, type Target } from './scriptsApi';

const abi = nativeAbi();
const NODE20: Target = { runtime: 'node', version: '20.20.2', abi: '115', arch: 'x64' };
const NODE22: Target = { runtime: 'node', version: '22.12.0', abi: '127', arch: 'x64' };
const ELECTRON: Target = { runtime: 'electron', version: '45.4.1', abi: '150', arch: 'x64' };
const BUILDS: Build[] = [
  { name: 'a', dir: 'node_modules/a', binaries: ['build/Release/a.node'], gypArgs: () => [] },
  { name: 'b', dir: 'node_modules/b/lib', binaries: ['build/Release/b.node'], gypArgs: () => [], fallback: true },
  { name: 'native', dir: 'native', binaries: null, gypArgs: () => [], optional: true },
];

const scratch: string[] = [];
after(() => {
  for (const d of scratch) fs.rmSync(d, { recursive: true, force: true });
});
const mkScratch = (prefix: string): string => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  scratch.push(d);
  return d;
};

/** A checkout with modules a and b built for `builtFor`; native/ absent. */
function checkout(builtFor: Target): { root: string; builtFor: Map<string, string> } {
  const root = mkScratch('sluice-abi-');
  const map = new Map<string, string>();
  for (const b of BUILDS.slice(0, 2)) {
    const dir = path.join(root, b.dir);
    fs.mkdirSync(path.join(dir, 'build', 'Release'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'binding.gyp'), '{}');
    const file = path.join(dir, b.binaries![0]);
    fs.writeFileSync(file, 'x');
    map.set(file, `${builtFor.runtime}@${builtFor.abi}`);
  }
  return { root, builtFor: map };
}

/** Loads a file only in the runtime it was built for; Electron cannot be run unless `electronRuns`. */
function fakeRunner(builtFor: Map<string, string>, electronRuns = false): Runner & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    canProbe: (t) => t.runtime === 'node' || electronRuns,
    probe(t, files) {
      calls.push(`probe ${t.runtime}@${t.abi}`);
      return files.map((file) =>
        builtFor.get(file) === `${t.runtime}@${t.abi}`
          ? { file, ok: true }
          : {
              file,
              ok: false,
              error: `compiled against NODE_MODULE_VERSION ${builtFor.get(file)}; this runtime requires ${t.abi}\n(more lines)`,
            },
      );
    },
    prepare(t) {
      calls.push(`headers ${t.runtime}@${t.version}`);
    },
    rebuild(b, t) {
      calls.push(`rebuild ${b.name} ${t.runtime}@${t.abi}`);
      const out = b.binaries
        ? b.binaries.map((f) => path.join(b.absDir, f))
        : [path.join(b.absDir, 'build', 'Release', 'sluice_native.node')];
      for (const f of out) {
        fs.mkdirSync(path.dirname(f), { recursive: true });
        fs.writeFileSync(f, 'y');
        builtFor.set(f, `${t.runtime}@${t.abi}`);
      }
    },
  };
}

const quiet = (): void => undefined;
const ensure = (root: string, t: Target, runner: Runner, force = false) =>
  abi.ensureAbi(t, {
    root,
    runner,
    markerFile: path.join(root, 'marker.json'),
    builds: abi.presentBuilds(root, BUILDS),
    log: quiet,
    force,
  });

test('node -> electron -> node: a marker that matches costs no process, each change of runtime rebuilds every module once', () => {
  const { root, builtFor } = checkout(NODE20);
  const runner = fakeRunner(builtFor);
  assert.equal(
    ensure(root, NODE20, runner).action,
    'marked',
    'no marker yet: probed in Node, loads, so only the marker is written',
  );
  assert.deepEqual(runner.calls, ['probe node@115', 'probe node@115']);
  assert.deepEqual(abi.readMarker(path.join(root, 'marker.json'))?.modules, ['a', 'b']);
  runner.calls.length = 0;
  assert.equal(ensure(root, NODE20, runner).action, 'kept');
  assert.deepEqual(runner.calls, [], 'the marker matches: nothing is started');

  const toElectron = ensure(root, ELECTRON, runner);
  assert.deepEqual([toElectron.action, toElectron.rebuilt], ['rebuilt', ['a', 'b']]);
  assert.match(toElectron.reasons[0].reason, /electron 45\.4\.1 cannot be run here/);
  assert.deepEqual(
    runner.calls,
    ['headers electron@45.4.1', 'rebuild a electron@150', 'rebuild b electron@150'],
    'headers first, before any build folder is cleaned',
  );
  assert.equal(abi.readMarker(path.join(root, 'marker.json'))?.runtime, 'electron');
  runner.calls.length = 0;
  assert.equal(ensure(root, ELECTRON, runner).action, 'kept');

  const back = ensure(root, NODE20, runner);
  assert.deepEqual([back.action, back.rebuilt], ['rebuilt', ['a', 'b']]);
  assert.match(back.reasons[0].reason, /NODE_MODULE_VERSION electron@150/, 'the reason is the load error in Node');
  assert.deepEqual(
    (runner.calls as string[]).filter((c) => c.startsWith('rebuild')),
    ['rebuild a node@115', 'rebuild b node@115'],
  );
  assert.deepEqual(abi.readMarker(path.join(root, 'marker.json'))?.abi, '115');
});

test('a new Node version (ABI 115 -> 127) re-probes and rebuilds; --force rebuilds even when the marker matches', () => {
  const { root, builtFor } = checkout(NODE20);
  const runner = fakeRunner(builtFor);
  ensure(root, NODE20, runner);
  const r = ensure(root, NODE22, runner);
  assert.deepEqual(r.rebuilt, ['a', 'b']);
  assert.equal(abi.readMarker(path.join(root, 'marker.json'))?.version, '22.12.0');
  runner.calls.length = 0;
  assert.deepEqual(
    ensure(root, NODE22, runner, true).reasons.map((x) => x.reason),
    ['--force', '--force'],
  );
});

test('only what fails to load is rebuilt; native/ appearing later is built alone', () => {
  const { root, builtFor } = checkout(NODE20);
  builtFor.set(path.join(root, 'node_modules/b/lib/build/Release/b.node'), 'electron@150');
  const runner = fakeRunner(builtFor);
  assert.deepEqual(ensure(root, NODE20, runner).rebuilt, ['b']);
  fs.mkdirSync(path.join(root, 'native'));
  fs.writeFileSync(path.join(root, 'native', 'binding.gyp'), '{}');
  runner.calls.length = 0;
  const r = ensure(root, NODE20, runner);
  assert.deepEqual([r.rebuilt, r.reasons[0].reason], [['native'], 'no .node file built']);
  assert.deepEqual(abi.readMarker(path.join(root, 'marker.json'))?.modules, ['a', 'b', 'native']);
});

test('native/ failing to build (no compiler) is reported, left out of the marker and tried again; a required module failing is an error', () => {
  const { root, builtFor } = checkout(NODE20);
  fs.mkdirSync(path.join(root, 'native'));
  fs.writeFileSync(path.join(root, 'native', 'binding.gyp'), '{}');
  const runner = fakeRunner(builtFor);
  const fakeRebuild = runner.rebuild;
  runner.rebuild = (b, t) => {
    if (b.name === 'native') throw new Error('gyp ERR! stack Error: not found: make');
    fakeRebuild(b, t);
  };
  const logs: string[] = [];
  const r = abi.ensureAbi(NODE20, {
    root,
    runner,
    markerFile: path.join(root, 'marker.json'),
    builds: abi.presentBuilds(root, BUILDS),
    log: (l) => logs.push(l),
  });
  assert.deepEqual(r.rebuilt, ['native']);
  assert.ok(
    logs.some((l) =>
      /native was not built \(gyp ERR! stack Error: not found: make\); its JavaScript fallbacks are used/.test(l),
    ),
    logs.join('\n'),
  );
  assert.deepEqual(abi.readMarker(path.join(root, 'marker.json'))?.modules, ['a', 'b']);
  runner.calls.length = 0;
  ensure(root, NODE20, runner);
  assert.ok(runner.calls.includes('headers node@20.20.2'), 'the next run tries native/ again');

  runner.rebuild = (b) => {
    throw new Error(`node-gyp failed for ${b.name}`);
  };
  assert.throws(() => ensure(root, ELECTRON, runner), /node-gyp failed for a/);
});

test('a failed header download touches no module and writes no marker; a build that still fails to load is an error naming it', () => {
  const { root, builtFor } = checkout(NODE20);
  const runner = fakeRunner(builtFor);
  runner.prepare = () => {
    throw new Error('fetching electron 45.4.1 headers failed');
  };
  assert.throws(() => ensure(root, ELECTRON, runner), /headers failed/);
  assert.deepEqual(runner.calls, [], 'no rebuild started');
  assert.equal(abi.readMarker(path.join(root, 'marker.json')), null);

  const stubborn = fakeRunner(builtFor, true);
  stubborn.rebuild = () => undefined; // node-gyp "succeeds" but leaves the Node build
  assert.throws(
    () => ensure(root, ELECTRON, stubborn),
    /a was rebuilt for electron 45\.4\.1 but .*a\.node still fails to load/,
  );
});

test('a module with a JavaScript fallback whose new build still does not load is set aside (.node.disabled) and stays aside for that target', () => {
  const { root, builtFor } = checkout(NODE20);
  const runner = fakeRunner(builtFor, true);
  const fakeRebuild = runner.rebuild;
  // b (like ssh2's binding against BoringSSL) builds but does not load in Electron.
  runner.rebuild = (b, t) => {
    fakeRebuild(b, t);
    if (b.name === 'b' && t.runtime === 'electron')
      builtFor.set(path.join(b.absDir, 'build/Release/b.node'), 'undefined symbol: ERR_set_mark');
  };
  const logs: string[] = [];
  const r = abi.ensureAbi(ELECTRON, {
    root,
    runner,
    markerFile: path.join(root, 'marker.json'),
    builds: abi.presentBuilds(root, BUILDS),
    log: (l) => logs.push(l),
  });
  assert.deepEqual(r.rebuilt, ['a', 'b']);
  const b = path.join(root, 'node_modules/b/lib/build/Release/b.node');
  assert.deepEqual([fs.existsSync(b), fs.existsSync(`${b}.disabled`)], [false, true]);
  assert.ok(
    logs.some((l) =>
      /WARNING b was rebuilt for electron 45\.4\.1 but .*b\.node still fails to load.*set aside/.test(l),
    ),
    logs.join('\n'),
  );
  assert.deepEqual(abi.readMarker(path.join(root, 'marker.json'))?.disabled, ['b']);
  runner.calls.length = 0;
  assert.equal(ensure(root, ELECTRON, runner).action, 'kept', 'no rebuild loop for the set-aside module');
  assert.deepEqual(runner.calls, []);
  fs.unlinkSync(path.join(root, 'node_modules/a/build/Release/a.node'));
  assert.deepEqual(ensure(root, ELECTRON, runner).rebuilt, ['a'], 'a lost: only a is rebuilt, b stays aside');
  assert.deepEqual(abi.readMarker(path.join(root, 'marker.json'))?.disabled, ['b']);
  assert.deepEqual(ensure(root, NODE20, runner).rebuilt, ['a', 'b'], 'another runtime builds it again');
  assert.deepEqual(abi.readMarker(path.join(root, 'marker.json'))?.disabled, []);
});

test('beforePack builds for the packaged Electron and arch (arm64), refuses another platform, and SLUICE_NATIVE_REBUILD=skip does nothing', async () => {
  const { root, builtFor } = checkout(NODE20);
  fs.mkdirSync(path.join(root, 'node_modules', 'electron'));
  fs.writeFileSync(path.join(root, 'node_modules', 'electron', 'package.json'), JSON.stringify({ version: '45.4.1' }));
  fs.writeFileSync(path.join(root, 'node_modules', 'electron', 'abi_version'), '150\n');
  // The hook drives the real NATIVE_BUILDS; give it a checkout with those folders.
  for (const b of abi.NATIVE_BUILDS.filter((x) => !x.optional)) {
    fs.mkdirSync(path.join(root, b.dir, 'build', 'Release'), { recursive: true });
    fs.writeFileSync(path.join(root, b.dir, 'binding.gyp'), '{}');
    fs.writeFileSync(path.join(root, b.dir, b.binaries![0]), 'x');
  }
  const runner = fakeRunner(builtFor);
  const context = {
    arch: 3,
    electronPlatformName: process.platform,
    packager: { info: { framework: { version: '45.4.1' } } },
  };
  await hooks().beforePack(context, { root, runner, markerFile: path.join(root, 'm.json'), log: quiet });
  assert.deepEqual(runner.calls, [
    'headers electron@45.4.1',
    'rebuild better-sqlite3 electron@150',
    'rebuild ssh2 electron@150',
    'rebuild cpu-features electron@150',
  ]);
  assert.equal(abi.readMarker(path.join(root, 'm.json'))?.arch, 'arm64');
  runner.calls.length = 0;
  await assert.rejects(
    hooks().beforePack(
      { ...context, electronPlatformName: process.platform === 'win32' ? 'linux' : 'win32' },
      { root, runner, log: quiet },
    ),
    /cannot be cross-compiled/,
  );
  await hooks().beforePack(context, { root, runner, env: { SLUICE_NATIVE_REBUILD: 'skip' }, log: quiet });
  assert.deepEqual(runner.calls, []);
});

test('node-gyp flags: Electron headers from electronjs.org (or SLUICE_ELECTRON_NODEDIR), Node from its own prefix', () => {
  const flags = nativeGyp().targetFlags(ELECTRON, {});
  assert.deepEqual(flags.slice(0, 4), ['--target=45.4.1', '--arch=x64', '--runtime=electron', '--build-from-source']);
  assert.ok(flags.includes('--dist-url=https://electronjs.org/headers'), flags.join(' '));
  assert.ok(nativeGyp().targetFlags(ELECTRON, { SLUICE_ELECTRON_NODEDIR: '/h' }).includes('--nodedir=/h'));
  assert.ok(nativeGyp().targetFlags(NODE20, { npm_config_nodedir: '/usr' }).includes('--nodedir=/usr'));
  const ssh2 = abi.NATIVE_BUILDS.find((b) => b.name === 'ssh2')!;
  assert.deepEqual(ssh2.gypArgs(ELECTRON), ['--real_openssl_major=1'], 'Electron links BoringSSL (OpenSSL 1.1 API)');
});

/** A copy of ssh2's crypto binding (sources only) in a scratch checkout, nan linked for its include path. */
function ssh2Copy(): string {
  const root = mkScratch('sluice-gyp-');
  const src = path.join(ROOT, 'node_modules', 'ssh2', 'lib', 'protocol', 'crypto');
  const dest = path.join(root, 'node_modules', 'ssh2', 'lib', 'protocol', 'crypto');
  fs.mkdirSync(dest, { recursive: true });
  fs.cpSync(path.join(src, 'src'), path.join(dest, 'src'), { recursive: true });
  fs.copyFileSync(path.join(src, 'binding.gyp'), path.join(dest, 'binding.gyp'));
  fs.symlinkSync(fs.realpathSync(path.join(ROOT, 'node_modules', 'nan')), path.join(root, 'node_modules', 'nan'));
  fs.mkdirSync(path.join(root, 'node_modules', 'electron'));
  fs.copyFileSync(
    path.join(ROOT, 'node_modules', 'electron', 'package.json'),
    path.join(root, 'node_modules', 'electron', 'package.json'),
  );
  return root;
}

test(
  "real node-gyp: ssh2's binding built for this Node loads; an Electron header download that fails leaves it built",
  { timeout: 120_000 },
  () => {
    const root = ssh2Copy();
    const runner = nativeGyp().gypRunner({ root, stdio: 'pipe' });
    const builds = abi.presentBuilds(
      root,
      abi.NATIVE_BUILDS.filter((b) => b.name === 'ssh2'),
    );
    const markerFile = path.join(root, 'marker.json');
    const r = abi.ensureAbi(abi.nodeTarget(), { root, runner, builds, markerFile, log: quiet });
    assert.deepEqual([r.action, r.rebuilt], ['rebuilt', ['ssh2']]);
    const built = path.join(builds[0].absDir, 'build', 'Release', 'sshcrypto.node');
    assert.deepEqual(runner.probe(abi.nodeTarget(), [built]), [{ file: built, ok: true }]);
    const before = fs.statSync(built).mtimeMs;

    const saved = process.env.SLUICE_ELECTRON_HEADERS_URL;
    process.env.SLUICE_ELECTRON_HEADERS_URL = 'http://127.0.0.1:1'; // refused at once: no headers
    try {
      assert.throws(
        () => abi.ensureAbi(abi.electronTarget(root), { root, runner, builds, markerFile, log: quiet }),
        /fetching electron \S+ headers failed \(node-gyp install --target=\S+ --arch=\S+ --runtime=electron/,
      );
    } finally {
      if (saved === undefined) delete process.env.SLUICE_ELECTRON_HEADERS_URL;
      else process.env.SLUICE_ELECTRON_HEADERS_URL = saved;
    }
    assert.equal(fs.statSync(built).mtimeMs, before, 'the Node build is untouched');
    assert.equal(abi.readMarker(markerFile)?.runtime, 'node');
  },
);
