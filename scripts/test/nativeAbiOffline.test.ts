/**
 * `npm start` on a machine that cannot download Electron (no network, a blocked host): scripts/native-abi.js
 * electron ends with one paragraph (what could not be downloaded and why, that nothing changed, what to do), exits
 * 1 and shows no stack unless asked (SLUICE_DEBUG=1). The downloads are pointed at a closed loopback port.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { freePort, scratchDir } from '../../e2e/fixtures/tmp';
import { ROOT, nativeAbi, nativeGyp } from './scriptsApi';

const ELECTRON_VERSION = (
  JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', 'electron', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;
const installed = fs.existsSync(path.join(ROOT, 'node_modules', 'electron', 'path.txt'));
const STACK = /^\s+at |gyp ERR!|TypeError|\[cause\]/m;

function runOffline(
  port: number,
  extraEnv: Record<string, string> = {},
): { status: number | null; stdout: string; stderr: string } {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ELECTRON_MIRROR: `http://127.0.0.1:${port}/`,
    SLUICE_ELECTRON_HEADERS_URL: `http://127.0.0.1:${port}`,
    electron_config_cache: scratchDir('sluice-electron-cache-'),
  };
  delete env.SLUICE_DEBUG;
  Object.assign(env, extraEnv);
  const res = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'native-abi.js'), 'electron'], {
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

test(
  'Electron cannot be downloaded: one paragraph naming it, the mirror and the refusal, what to do; exit 1, no stack, nothing rebuilt',
  {
    skip: installed
      ? 'the Electron binary is already installed in node_modules/electron: nothing is downloaded'
      : false,
  },
  async () => {
    const marker = nativeAbi().readMarker(nativeAbi().MARKER);
    const port = await freePort();
    const r = runOffline(port);
    assert.equal(r.status, 1, r.stderr);
    assert.equal(
      r.stderr,
      `sluice: could not download Electron ${ELECTRON_VERSION} from http://127.0.0.1:${port}/ (connect ECONNREFUSED 127.0.0.1:${port}): ` +
        '`npm start` runs the desktop app in it.\n' +
        'Nothing was changed (the native modules were not touched), and the command line works meanwhile:\n' +
        '`node bin/sluice.js --help`, or `npm link` once and then `sluice`.\n' +
        'To start the app, run `npm start` again where the download is reachable, or give it a copy: a mirror of\n' +
        "Electron's releases in ELECTRON_MIRROR, a mirror of its headers in SLUICE_ELECTRON_HEADERS_URL or the headers\n" +
        "unpacked in SLUICE_ELECTRON_NODEDIR (docs/packaging.md). SLUICE_DEBUG=1 shows the download's own output.\n",
    );
    assert.doesNotMatch(r.stdout + r.stderr, STACK);
    assert.deepEqual(
      nativeAbi().readMarker(nativeAbi().MARKER),
      marker,
      "the marker (the native modules' runtime) is unchanged",
    );

    const debug = runOffline(port, { SLUICE_DEBUG: '1' });
    assert.equal(debug.status, 1);
    assert.match(debug.stdout + debug.stderr, /fetch failed\n\s+at /, "SLUICE_DEBUG=1 shows @electron/get's own stack");
    assert.match(debug.stderr, /sluice: could not download Electron/);
  },
);

test("Electron's headers cannot be downloaded: the error carries what and where for the paragraph, node-gyp's stack stays out of sight", async () => {
  const root = scratchDir('sluice-headers-');
  fs.mkdirSync(path.join(root, 'node_modules'));
  const port = await freePort();
  const saved = process.env.SLUICE_ELECTRON_HEADERS_URL;
  process.env.SLUICE_ELECTRON_HEADERS_URL = `http://127.0.0.1:${port}`;
  let err:
    | (Error & { download?: { what: 'electron' | 'headers'; version: string; url: string }; output?: string })
    | undefined;
  try {
    nativeGyp()
      .gypRunner({ root, stdio: 'inherit' })
      .prepare({ runtime: 'electron', version: ELECTRON_VERSION, abi: '150', arch: process.arch });
  } catch (e) {
    err = e as typeof err;
  } finally {
    if (saved === undefined) delete process.env.SLUICE_ELECTRON_HEADERS_URL;
    else process.env.SLUICE_ELECTRON_HEADERS_URL = saved;
  }
  assert.deepEqual(err?.download, { what: 'headers', version: ELECTRON_VERSION, url: `http://127.0.0.1:${port}` });
  assert.match(err?.output ?? '', /gyp ERR! stack/, "node-gyp's output is kept (for SLUICE_DEBUG=1), not shown");
  const text = nativeAbi().downloadFailureText({ ...err!.download!, reason: `connect ECONNREFUSED 127.0.0.1:${port}` });
  assert.match(
    text,
    new RegExp(
      `^sluice: could not download Electron ${ELECTRON_VERSION.replace(/\./g, '\\.')}'s headers from http://127\\.0\\.0\\.1:${port} \\(connect ECONNREFUSED`,
    ),
  );
  assert.match(text, /the native modules must be rebuilt against them for the desktop app\.\nNothing was changed/);
  assert.doesNotMatch(text, STACK);
});

test('npm start gets Electron before building anything: offline, the paragraph comes at once, not after the builds', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  assert.match(
    pkg.scripts.start,
    /^node scripts\/native-abi\.js electron && npm run build && npm run build:renderer && electron \.$/,
  );
});
