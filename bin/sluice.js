#!/usr/bin/env node
'use strict';
// Thin launcher: the CLI is compiled to dist/ by `npm run build` (run by `prepare` on install).
// Node >= 22.1 keeps V8's compiled code of the modules on disk between runs; Node 20 has no such cache for CommonJS
// (a require hook feeding v8.Script cachedData measured no gain here), so there start-up rests on loading few modules.
const { enableCompileCache } = require('node:module');
if (typeof enableCompileCache === 'function') enableCompileCache();
const fs = require('node:fs');
const path = require('node:path');

const dist = path.join(__dirname, '..', 'dist', 'app', 'node');

/**
 * The CLI: `npm run build`'s bundle (scripts/bundle-cli.js: one file instead of ~150) when it is newer than the
 * compiled dist/app/node/cli.js, else the compiled modules (after tsc alone the bundle is stale; SLUICE_CLI_BUNDLE=0
 * asks for them too).
 */
function loadCli() {
  const bundle = path.join(dist, 'bundle', 'sluice-cli.js');
  // `--version` alone needs 4 small modules (app/node/cli.ts): reading the whole bundle would cost it more.
  const versionOnly = process.argv.length === 3 && (process.argv[2] === '--version' || process.argv[2] === '-V');
  try {
    if (
      !versionOnly &&
      process.env.SLUICE_CLI_BUNDLE !== '0' &&
      fs.statSync(bundle).mtimeMs >= fs.statSync(path.join(dist, 'cli.js')).mtimeMs
    )
      return require(bundle);
  } catch {
    // no bundle: the compiled modules
  }
  return {
    prewarmConnectionWorker: (target) => require('../dist/app/node/ssh/connection.js').prewarmConnectionWorker(target),
    keepV8Flags: (flags) => require('../dist/app/node/ssh/connection.js').keepV8Flags(flags),
    main: (argv) => require('../dist/app/node/cli.js').main(argv),
  };
}

const REMOTE_COMMANDS = ['get', 'put', 'ls', 'stat', 'mkdir', 'rm', 'mv', 'chmod', 'ln', 'df', 'find', 'sync'];
/**
 * V8's heap sizing for the commands that download or list (issue #28 item 4), from the moment the first connection
 * worker has loaded. The young generation stays at its initial size (V8 doubles it up to 16 MiB per semi-space
 * when many objects survive: the coordinating thread's reached 32 MiB on a 10,000-file get), and the old generation
 * may grow by half its live size between full collections instead of up to 4× (V8's factor when the machine has
 * gigabytes). `get -r` of 10,000 empty files: max RSS 146 → 101 MiB at the same CPU. put and sync keep V8's defaults:
 * with these flags a 128 MiB put at 50 ms peaked 23 MiB higher (the worker's upload buffers, 30 → 84 MiB at the peak,
 * wait longer for collection), at the same speed.
 */
const HEAP_FLAGS = ['--semi-space-growth-factor=1', '--heap-growing-percent=50'];
const cli = loadCli();
// Set by each connection worker once it has loaded (ssh/connection.ts keepV8Flags).
if (REMOTE_COMMANDS.includes(process.argv[2]) && !['put', 'sync'].includes(process.argv[2]))
  cli.keepV8Flags(HEAP_FLAGS);
if (REMOTE_COMMANDS.includes(process.argv[2])) {
  // Let the first connection worker load ssh2 on the other core, and open the TCP connection to the first
  // sftp:// operand's server (as ~/.ssh/config resolves it, or its first jump host: the worker works that out itself
  // with cli/preconnectTarget.js), while the CLI itself loads. A malformed URL or configuration is reported by the CLI.
  cli.prewarmConnectionWorker({
    module: require.resolve('../dist/app/node/cli/preconnectTarget.js'),
    args: process.argv.slice(3),
  });
}
cli.main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`sluice: ${err && err.message ? err.message : err}\n`);
    process.exitCode = 1;
  },
);
