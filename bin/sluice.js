#!/usr/bin/env node
'use strict';
// Thin launcher: the CLI is compiled to dist/ by `npm run build` (run by `prepare` on install).
require('../dist/app/node/cli.js').main(process.argv).then(
  (code) => { process.exitCode = code; },
  (err) => { process.stderr.write(`sluice: ${err && err.message ? err.message : err}\n`); process.exitCode = 1; },
);
