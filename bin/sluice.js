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
    main: (argv) => require('../dist/app/node/cli.js').main(argv),
  };
}

const cli = loadCli();
const REMOTE_COMMANDS = ['get', 'put', 'ls', 'stat', 'mkdir', 'rm', 'mv', 'chmod', 'ln', 'df', 'find', 'sync'];
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
