#!/usr/bin/env node
/**
 * Builds the optional native/ addon (native/build/Release/sluice_native.node) with node-gyp, as `npm install`'s
 * postinstall and `npm run build:native` call it. A failed build (no compiler, no Python, no Node headers) prints a
 * warning saying what the engine does without the addon, and exits 0: the install goes on and the engine uses its
 * JavaScript fallbacks (app/node/sys/native.ts). SLUICE_NATIVE=0 skips the build.
 *
 * Node's headers: npm's `nodedir` setting when set, else the ones installed with this Node (PREFIX/include/node, as
 * in Node's own tarballs and distribution packages: no download), else node-gyp's download cache.
 */
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const fs = require('node:fs');

const root = path.join(__dirname, '..');
const dir = path.join(root, 'native');
const output = path.join(dir, 'build', 'Release', 'sluice_native.node');

function warn(why) {
  process.stderr.write(
    `sluice: native addon not built (${why}).\n` +
      '  The engine works without it: no TCP_INFO except through `ss` on Linux, no preallocation of downloads,\n' +
      '  sparse uploads found by a scan for zero blocks. To build it later: install a C++ compiler and Python 3,\n' +
      '  then `npm run build:native`.\n',
  );
}

function main() {
  if (process.env.SLUICE_NATIVE === '0') {
    process.stdout.write('sluice: SLUICE_NATIVE=0, native addon not built\n');
    return;
  }
  let gyp;
  try {
    gyp = require.resolve('node-gyp/bin/node-gyp.js', { paths: [root] });
  } catch {
    warn('node-gyp is not installed (a production install without devDependencies)');
    return;
  }
  const args = [gyp, 'rebuild'];
  const prefix = path.join(path.dirname(process.execPath), '..');
  if (!process.env.npm_config_nodedir && fs.existsSync(path.join(prefix, 'include', 'node', 'node_api.h'))) {
    args.push(`--nodedir=${path.resolve(prefix)}`);
  }
  const r = spawnSync(process.execPath, args, { cwd: dir, stdio: 'inherit', env: process.env });
  if (r.error) return warn(r.error.message);
  if (r.status !== 0) return warn(`node-gyp exited with ${r.status ?? r.signal}`);
  if (!fs.existsSync(output)) return warn(`${path.relative(root, output)} missing after the build`);
  process.stdout.write(`sluice: native addon built: ${path.relative(root, output)}\n`);
}

main();
