#!/usr/bin/env node
'use strict';
// Thin launcher: the CLI is compiled to dist/ by `npm run build` (run by `prepare` on install).
if (process.argv[2] === 'get' || process.argv[2] === 'put') {
  // Let the first connection worker load ssh2 on the other core while the CLI itself loads.
  require('../dist/app/node/ssh/connection.js').prewarmConnectionWorker();
}
require('../dist/app/node/cli.js').main(process.argv).then(
  (code) => { process.exitCode = code; },
  (err) => { process.stderr.write(`sluice: ${err && err.message ? err.message : err}\n`); process.exitCode = 1; },
);
