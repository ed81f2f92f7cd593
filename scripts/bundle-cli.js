#!/usr/bin/env node
'use strict';
// Bundles the compiled CLI (dist/app/node/cli.js and what it imports from the repo, with the connection worker's
// prewarm) into dist/app/node/bundle/sluice-cli.js with esbuild, so that `sluice` reads one file instead of ~150
// (issue #28). Packages stay outside (native modules: better-sqlite3, ssh2's binding, cpu-features, native/). tsc's
// CommonJS makes every module a lazily run wrapper, so a command's `await import()` still runs its modules only when
// it runs. Run by `npm run build` after tsc; bin/sluice.js uses the bundle only when it is newer than dist/app/node/
// cli.js (tsc alone leaves it stale). The worker thread's entry (ssh/workerEntry.js) is not bundled.
const fs = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');

const root = path.join(__dirname, '..');
const outfile = path.join(root, 'dist', 'app', 'node', 'bundle', 'sluice-cli.js');
const result = esbuild.buildSync({
  stdin: {
    contents:
      "exports.main = require('./dist/app/node/cli.js').main;\n" +
      "exports.prewarmConnectionWorker = require('./dist/app/node/ssh/connection.js').prewarmConnectionWorker;\n" +
      "exports.keepV8Flags = require('./dist/app/node/ssh/connection.js').keepV8Flags;\n",
    resolveDir: root,
    sourcefile: 'sluice-cli-entry.js',
    loader: 'js',
  },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  packages: 'external',
  outfile,
  write: false,
  logLevel: 'warning',
});
// esbuild escapes what is not ASCII in strings, but comments and regular expressions keep it, and one such character
// makes V8 hold the whole ~850 KB source as a two-byte string (1.7 MB in the main thread's heap, issue #28): \uXXXX
// means the same in each of them (the code units of a pair each escaped).
const ascii = result.outputFiles[0].text.replace(
  /[^\t\n\r\x20-\x7e]/g,
  (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
);
fs.mkdirSync(path.dirname(outfile), { recursive: true });
fs.writeFileSync(outfile, ascii);
