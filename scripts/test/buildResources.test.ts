/**
 * build/ (#30 item 9) as far as it can be checked without Electron or a Mac: each platform's icon is a well-formed
 * file that electron-builder's own icon resolution takes as it is (no conversion, which would download a toolset);
 * the macOS entitlements are the ones a signed hardened-runtime build needs; and the fuses re-sign the .app ad hoc
 * after flipping (a stand-in .app, with a `codesign` on PATH that records its arguments), so an unsigned arm64 build
 * still carries a valid signature.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT } from './scriptsApi';
import { ELECTRON_DEFAULT_WIRE, FUSE_SENTINEL } from './stagedProject';

interface Icon {
  file: string;
  size: number;
}
interface PlatformConfig {
  icon?: string;
  entitlements?: string;
  entitlementsInherit?: string;
  hardenedRuntime?: boolean;
}
interface Config {
  linux: PlatformConfig;
  mac: PlatformConfig;
  win: PlatformConfig;
  electronFuses: Record<string, boolean>;
}
const fromRoot = (m: string): unknown => require(require.resolve(m, { paths: [ROOT] }));
const configLib = fromRoot('app-builder-lib/out/util/config/config') as {
  getConfig(projectDir: string, configPath: string | null, fromOptions: unknown): Promise<Config>;
};
const { convertIcon } = fromRoot('app-builder-lib/out/util/iconConverter') as {
  convertIcon(o: {
    sources: string[];
    fallbackSources: string[];
    roots: string[];
    format: string;
    outDir: string;
  }): Promise<{ icons: Icon[]; isFallback: boolean }>;
};
const { PlatformPackager } = fromRoot('app-builder-lib') as {
  PlatformPackager: { prototype: { generateFuseConfig(f: Record<string, boolean>): Promise<Record<string, unknown>> } };
};
const fuses = fromRoot('@electron/fuses') as { flipFuses(p: string, config: Record<string, unknown>): Promise<number> };
const plist = fromRoot('plist') as { parse(xml: string): Record<string, unknown> };
const makeIcons = require(path.join(ROOT, 'scripts', 'make-icons.js')) as {
  LINUX_SIZES: number[];
  ICO_SIZES: number[];
  ICNS_TYPES: Array<[string, number]>;
};

const BUILD = path.join(ROOT, 'build');
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height of a PNG (IHDR), asserting the signature. */
function pngSize(png: Buffer, what: string): [number, number] {
  assert.ok(png.subarray(0, 8).equals(PNG_SIGNATURE), `${what} is a PNG`);
  return [png.readUInt32BE(16), png.readUInt32BE(20)];
}

/** electron-builder's icon lookup for one platform: the yml's icon, build/ then the project as roots. */
async function resolveIcon(
  t: { after(fn: () => void): void },
  source: string | undefined,
  format: string,
): Promise<{ icons: Icon[]; isFallback: boolean; converted: boolean }> {
  const outDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-icons-')), 'out');
  t.after(() => fs.rmSync(path.dirname(outDir), { recursive: true, force: true }));
  const sources = source ? [source] : [];
  const r = await convertIcon({ sources, fallbackSources: [], roots: [BUILD, ROOT], format, outDir });
  return { ...r, converted: fs.existsSync(outDir) };
}

test("each platform's icon is taken from build/ as it is by electron-builder's icon resolution", async (t) => {
  const config = await configLib.getConfig(ROOT, null, null);
  const mac = await resolveIcon(t, config.mac.icon, 'icns');
  assert.deepEqual(
    [mac.icons.map((i) => i.file), mac.isFallback, mac.converted],
    [[path.join(BUILD, 'icon.icns')], false, false],
  );
  const win = await resolveIcon(t, config.win.icon, 'ico');
  assert.deepEqual(
    [win.icons, win.isFallback, win.converted],
    [[{ file: path.join(BUILD, 'icon.ico'), size: 256 }], false, false],
  );
  const linux = await resolveIcon(t, config.linux.icon, 'set');
  assert.deepEqual(
    linux.icons.map((i) => [path.relative(BUILD, i.file), i.size]),
    makeIcons.LINUX_SIZES.map((s) => [path.join('icons', `${s}x${s}.png`), s]),
  );
  assert.equal(linux.converted, false);
  for (const { file, size } of linux.icons) assert.deepEqual(pngSize(fs.readFileSync(file), file), [size, size]);
  assert.deepEqual(pngSize(fs.readFileSync(path.join(BUILD, 'icon.png')), 'build/icon.png'), [1024, 1024]);
  const svg = fs.readFileSync(path.join(BUILD, 'icon.svg'), 'utf8');
  assert.match(svg, /^<svg [^>]*viewBox="0 0 1024 1024"/, 'the source');
});

test('build/icon.ico holds a PNG at each Windows size; build/icon.icns one per element type, of its size', () => {
  const ico = fs.readFileSync(path.join(BUILD, 'icon.ico'));
  assert.deepEqual([ico.readUInt16LE(0), ico.readUInt16LE(2)], [0, 1], 'ICONDIR: reserved 0, type 1 (icon)');
  const count = ico.readUInt16LE(4);
  const entries = Array.from({ length: count }, (_, i) => {
    const e = 6 + 16 * i;
    const png = ico.subarray(ico.readUInt32LE(e + 12), ico.readUInt32LE(e + 12) + ico.readUInt32LE(e + 8));
    const [w, h] = pngSize(png, `ico entry ${i}`);
    assert.deepEqual([ico[e] || 256, ico[e + 1] || 256], [w, h], `ico entry ${i}: directory and image agree`);
    return w;
  });
  assert.deepEqual(entries, makeIcons.ICO_SIZES);

  const icns = fs.readFileSync(path.join(BUILD, 'icon.icns'));
  assert.deepEqual([icns.toString('ascii', 0, 4), icns.readUInt32BE(4)], ['icns', icns.length]);
  const elements: Array<[string, number]> = [];
  for (let at = 8; at < icns.length;) {
    const type = icns.toString('ascii', at, at + 4);
    const length = icns.readUInt32BE(at + 4);
    assert.ok(length > 8 && at + length <= icns.length, `icns element ${type} fits`);
    const [w, h] = pngSize(icns.subarray(at + 8, at + length), `icns ${type}`);
    assert.equal(w, h);
    elements.push([type, w]);
    at += length;
  }
  assert.deepEqual(elements, makeIcons.ICNS_TYPES);
});

test('a signed macOS build: hardened runtime, with the entitlements V8 and the unpacked .node files need', async () => {
  const { mac } = await configLib.getConfig(ROOT, null, null);
  assert.equal(mac.hardenedRuntime, true);
  assert.deepEqual(
    [mac.entitlements, mac.entitlementsInherit],
    ['build/entitlements.mac.plist', 'build/entitlements.mac.inherit.plist'],
  );
  const main = plist.parse(fs.readFileSync(path.join(ROOT, mac.entitlements!), 'utf8'));
  const helpers = plist.parse(fs.readFileSync(path.join(ROOT, mac.entitlementsInherit!), 'utf8'));
  assert.deepEqual(main, {
    'com.apple.security.cs.allow-jit': true,
    'com.apple.security.cs.allow-unsigned-executable-memory': true,
    'com.apple.security.cs.disable-library-validation': true,
  });
  assert.deepEqual(helpers, {
    'com.apple.security.cs.allow-jit': true,
    'com.apple.security.cs.allow-unsigned-executable-memory': true,
  });
  assert.equal(
    Object.keys(main).some((k) => /app-sandbox|get-task-allow/.test(k)),
    false,
    'no sandbox, no debugger',
  );
});

test(
  'the fuses re-sign the flipped .app ad hoc (codesign -s -), so an unsigned arm64 build still launches',
  {
    skip: process.platform === 'win32' ? 'the stand-in codesign is a shell script' : false,
  },
  async (t) => {
    const { electronFuses } = await configLib.getConfig(ROOT, null, null);
    const fuseConfig = await PlatformPackager.prototype.generateFuseConfig.call({}, electronFuses);
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-adhoc-'));
    t.after(() => fs.rmSync(work, { recursive: true, force: true }));
    const app = path.join(work, 'Sluice.app');
    const framework = path.join(app, 'Contents', 'Frameworks', 'Electron Framework.framework', 'Electron Framework');
    fs.mkdirSync(path.dirname(framework), { recursive: true });
    fs.writeFileSync(
      framework,
      Buffer.concat([Buffer.from(FUSE_SENTINEL), Buffer.from([1, 8]), Buffer.from(ELECTRON_DEFAULT_WIRE)]),
    );
    const bin = path.join(work, 'bin');
    fs.mkdirSync(bin);
    const record = path.join(work, 'codesign.args');
    fs.writeFileSync(path.join(bin, 'codesign'), `#!/bin/sh\nprintf '%s\\n' "$@" > "${record}"\n`, { mode: 0o755 });
    const savedPath = process.env.PATH;
    process.env.PATH = `${bin}${path.delimiter}${savedPath ?? ''}`;
    try {
      await fuses.flipFuses(path.join(app, 'Contents', 'MacOS', 'Sluice'), fuseConfig);
    } finally {
      process.env.PATH = savedPath;
    }
    const args = fs.existsSync(record) ? fs.readFileSync(record, 'utf8').trim().split('\n') : [];
    const preserve = '--preserve-metadata=entitlements,requirements,flags,runtime';
    const adHoc = ['--sign', '-', '--force', preserve, '--deep', app];
    assert.deepEqual(
      args,
      adHoc,
      'electronFuses.resetAdHocDarwinSignature makes @electron/fuses re-sign the .app ad hoc',
    );
    const wireAt = FUSE_SENTINEL.length + 2;
    const wire = fs
      .readFileSync(framework)
      .subarray(wireAt, wireAt + 8)
      .toString('ascii');
    assert.equal(wire[0], electronFuses.runAsNode ? '1' : '0', 'the fuses were flipped first');
  },
);
