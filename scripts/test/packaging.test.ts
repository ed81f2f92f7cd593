/**
 * Packaging (#16) as far as it runs here. electron-builder.yml loads and passes electron-builder's own schema
 * validation; its fuses are docs/packaging.md's table; every .node file the app loads is unpacked from the asar, and
 * the build scripts' module table agrees with main/nativeModules.ts. Then two real electron-builder runs:
 * `electron-builder --dir` on this project, which stops at the Electron download (no internet here; the reason is
 * printed), and the same on a staged copy with a stand-in Electron binary, which runs every step (asar, unpacking,
 * fuses, the afterPack audit) and is inspected: fuses flipped as configured, no tests, sources or maps packed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { installElectronMock } from '../../main/test/mockElectron';
import { ROOT, hooks, nativeAbi } from './scriptsApi';
import { ELECTRON_DEFAULT_WIRE, electronBuilder, fakeElectronDist, stageProject } from './stagedProject';

installElectronMock(); // main/nativeModules.ts imports electron; only its pure table is used here
const { nativeModuleSpecs } = require('../../main/nativeModules') as typeof import('../../main/nativeModules');

interface BuilderConfig {
  asarUnpack: string[];
  files: Array<string | { filter?: string[] }>;
  electronFuses: Record<string, boolean>;
  npmRebuild: boolean;
  beforePack: string;
  afterPack: string;
  [k: string]: unknown;
}
const configLib = require(require.resolve('app-builder-lib/out/util/config/config', { paths: [ROOT] })) as {
  getConfig(projectDir: string, configPath: string | null, fromOptions: unknown): Promise<BuilderConfig>;
  validateConfiguration(config: unknown, debugLogger: unknown): Promise<void>;
};
const { DebugLogger } = require(require.resolve('builder-util', { paths: [ROOT] })) as {
  DebugLogger: new (enabled: boolean) => unknown;
};
// electron-builder's in-process log lines would go to this test's stdout, which node's test runner parses.
(
  require(require.resolve('builder-util/out/log', { paths: [ROOT] })) as {
    setPrinter(p: ((m: string) => void) | null): void;
  }
).setPrinter(() => undefined);
const mm = require(require.resolve('minimatch', { paths: [ROOT] })) as
  ((p: string, g: string, o?: object) => boolean) | { minimatch: (p: string, g: string, o?: object) => boolean };
const match = typeof mm === 'function' ? mm : mm.minimatch;

/**
 * The fuse names in @electron/fuses' FuseV1Options order (the wire's byte order) as electron-builder.yml spells them.
 */
const FUSE_ORDER = [
  'runAsNode',
  'enableCookieEncryption',
  'enableNodeOptionsEnvironmentVariable',
  'enableNodeCliInspectArguments',
  'enableEmbeddedAsarIntegrityValidation',
  'onlyLoadAppFromAsar',
  'loadBrowserProcessSpecificV8Snapshot',
  'grantFileProtocolExtraPrivileges',
];

const loadConfig = (): Promise<BuilderConfig> => configLib.getConfig(ROOT, null, null);

test("electron-builder.yml loads and passes electron-builder's schema validation (and a wrong key would not)", async () => {
  const config = await loadConfig();
  await configLib.validateConfiguration(config, new DebugLogger(false));
  assert.equal(config.npmRebuild, false, 'the beforePack hook builds the natives, not @electron/rebuild');
  assert.equal(config.beforePack, './scripts/electron-builder-hooks.js');
  assert.equal(config.afterPack, './scripts/electron-builder-hooks.js');
  await assert.rejects(
    configLib.validateConfiguration(
      { ...config, electronFuses: { ...config.electronFuses, runAsNod: false } },
      new DebugLogger(false),
    ),
    /configuration\.electronFuses/,
  );
});

test("the fuses in electron-builder.yml are docs/packaging.md's table, and the ones #16 asks for", async () => {
  const { electronFuses } = await loadConfig();
  const readme = fs.readFileSync(path.join(ROOT, 'docs', 'packaging.md'), 'utf8');
  const table: Record<string, boolean> = {};
  for (const m of readme.matchAll(/^\| `(\w+)` \| (on|off) \|/gm)) table[m[1]] = m[2] === 'on';
  assert.deepEqual(table, electronFuses);
  assert.deepEqual(
    {
      runAsNode: electronFuses.runAsNode,
      enableCookieEncryption: electronFuses.enableCookieEncryption,
      enableNodeOptionsEnvironmentVariable: electronFuses.enableNodeOptionsEnvironmentVariable,
      enableNodeCliInspectArguments: electronFuses.enableNodeCliInspectArguments,
      enableEmbeddedAsarIntegrityValidation: electronFuses.enableEmbeddedAsarIntegrityValidation,
      onlyLoadAppFromAsar: electronFuses.onlyLoadAppFromAsar,
    },
    {
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
    },
  );
});

test('every .node file of the production dependencies and native/ is covered by asarUnpack; the build table and main/ agree', async () => {
  const { asarUnpack, files: fileSets } = await loadConfig();
  // getConfig normalizes to file sets
  const files = fileSets.flatMap((f) => (typeof f === 'string' ? [f] : (f.filter ?? [])));
  const unpacked = (rel: string): boolean => asarUnpack.some((g) => match(rel, g, { dot: true }));
  const excluded = (rel: string): boolean =>
    files.some((g) => g.startsWith('!') && match(rel, g.slice(1), { dot: true }));
  const nodeFiles: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory() && e.name !== 'node_modules') walk(path.join(dir, e.name));
      else if (e.name.endsWith('.node'))
        nodeFiles.push(path.relative(ROOT, path.join(dir, e.name)).split(path.sep).join('/'));
    }
  };
  for (const dir of hooks().productionPackages(ROOT).keys()) walk(dir);
  const packed = nodeFiles.filter((f) => !excluded(f));
  assert.ok(packed.length >= 3, `found ${nodeFiles.join(', ')}`);
  assert.deepEqual(
    packed.filter((f) => !unpacked(f)),
    [],
    'packed inside app.asar, where dlopen cannot read them',
  );
  assert.ok(unpacked('native/build/Release/sluice_native.node'), 'the native/ addon (another branch) is unpacked too');
  assert.ok(excluded('node_modules/better-sqlite3/build/Release/test_extension.node'));

  // Every module main/ probes at start is one scripts/native-abi.js builds, at the same path.
  const built = nativeAbi()
    .NATIVE_BUILDS.filter((b) => b.binaries)
    .flatMap((b) => b.binaries!.map((f) => path.posix.join(b.dir, f)));
  for (const spec of nativeModuleSpecs('/app', () => []))
    assert.ok(built.includes(`node_modules/${spec.file}`), `${spec.name}: ${spec.file} is not built by native-abi`);
  assert.deepEqual(
    built.map((f) => unpacked(f)),
    built.map(() => true),
  );
});

test(
  'electron-builder --dir on this project: packs up to the Electron download, or all the way where it can download',
  { timeout: 90_000 },
  async (t) => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-dist-'));
    t.after(() => fs.rmSync(out, { recursive: true, force: true }));
    // An unreachable mirror makes the missing download fail at once instead of after DNS timeouts.
    const r = await electronBuilder(['--linux', 'dir', `-c.directories.output=${out}`], {
      cwd: ROOT,
      env: { SLUICE_NATIVE_REBUILD: 'skip', ELECTRON_MIRROR: process.env.ELECTRON_MIRROR ?? 'http://127.0.0.1:1/' },
      timeoutMs: 80_000,
    });
    assert.match(r.output, /loaded configuration\s+file=.*electron-builder\.yml/);
    assert.match(r.output, /SLUICE_NATIVE_REBUILD=skip/, 'the beforePack hook ran');
    if (r.code === 0) {
      assert.ok(fs.existsSync(path.join(out, 'linux-unpacked', 'resources', 'app.asar')));
      return;
    }
    const reason = /⨯ ([^\n]*)/.exec(r.output)?.[1] ?? r.output.slice(-400);
    t.diagnostic(`electron-builder --dir could not finish here (expected without internet): ${reason}`);
    assert.match(
      r.output,
      /packaging\s+platform=linux arch=\S+ electron=\d+\.\d+\.\d+/,
      'it got past configuration and the native step',
    );
    assert.match(
      reason,
      /127\.0\.0\.1|ECONNREFUSED|ENOTFOUND|electron-v\d|production dependencies missing/,
      `stopped for another reason: ${reason}`,
    );
  },
);

test(
  'staged copy with a stand-in Electron: the packed app holds its dependencies, unpacked natives and flipped fuses, and no tests or sources',
  {
    timeout: 120_000,
    skip:
      process.platform !== 'linux'
        ? 'the stand-in Electron has the Linux layout (an executable named electron)'
        : false,
  },
  async (t) => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-stage-'));
    // ~60 MB: the staged node_modules and the packed app
    t.after(() => fs.rmSync(work, { recursive: true, force: true }));
    fs.mkdirSync(path.join(work, 'project'));
    const project = stageProject(path.join(work, 'project'));
    const electronVersion = (
      JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', 'electron', 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    const dist = fakeElectronDist(path.join(work, 'electron'), electronVersion);
    const out = path.join(work, 'out');
    const r = await electronBuilder(['--linux', 'dir', `-c.directories.output=${out}`, `-c.electronDist=${dist}`], {
      cwd: project,
      env: { SLUICE_NATIVE_REBUILD: 'skip' },
      timeoutMs: 110_000,
    });
    assert.equal(r.code, 0, r.output);
    assert.match(
      r.output,
      /sluice: app\.asar holds all \d+ production dependencies; \d+ \.node files unpacked/,
      'afterPack audit passed',
    );

    const appDir = path.join(out, 'linux-unpacked');
    const fuses = require(require.resolve('@electron/fuses', { paths: [ROOT] })) as {
      getCurrentFuseWire(p: string): Promise<Record<string, number>>;
    };
    const wire = await fuses.getCurrentFuseWire(path.join(appDir, 'sluice'));
    const { electronFuses } = await loadConfig();
    FUSE_ORDER.forEach((name, i) => {
      const expected = name in electronFuses ? (electronFuses[name] ? '1' : '0') : ELECTRON_DEFAULT_WIRE[i];
      assert.equal(String.fromCharCode(wire[i]), expected, `fuse ${name}`);
    });

    const audit = hooks().auditPackedApp(path.join(appDir, 'resources'), project);
    assert.deepEqual([audit.missingDeps, audit.packedNative], [[], []]);
    const listed = audit.files;
    for (const must of [
      '/package.json',
      '/dist/main/index.js',
      '/dist/main/preload/preload.js',
      '/renderer/dist/index.html',
      '/node_modules/bindings/package.json',
      '/node_modules/asn1/package.json',
    ]) {
      assert.ok(listed.includes(must), `${must} is packed`);
    }
    const forbidden = listed.filter(
      (f) =>
        !f.startsWith('/node_modules/') &&
        /\.test\.js$|\/test\/|\/testing\/|\.map$|\.ts$|^\/dist\/(bench|e2e|scripts)\//.test(f),
    );
    assert.deepEqual(forbidden, [], 'tests, test helpers, bench, scripts, sources and maps');
    assert.deepEqual(
      listed.filter((f) =>
        /\/node_modules\/better-sqlite3\/(deps|src)\/|\.(c|cc|h|a|o)$|test_extension\.node$/.test(f),
      ),
      [],
      "C sources, objects, sqlite's test extension",
    );
    const unpackedNode = audit.nodeFiles.map((f) => f.replace(/^\//, '')).sort();
    assert.deepEqual(unpackedNode, [
      'native/build/Release/sluice_native.node',
      'node_modules/better-sqlite3/build/Release/better_sqlite3.node',
      'node_modules/cpu-features/build/Release/cpufeatures.node',
      'node_modules/ssh2/lib/protocol/crypto/build/Release/sshcrypto.node',
    ]);
    for (const f of unpackedNode)
      assert.ok(fs.statSync(path.join(appDir, 'resources', 'app.asar.unpacked', f)).size > 0, f);
  },
);
