#!/usr/bin/env node
'use strict';
// Thin launcher: the CLI is compiled to dist/ by `npm run build` (run by `prepare` on install).
if (process.argv[2] === 'get' || process.argv[2] === 'put') {
  // Let the first connection worker load ssh2 on the other core, and open the TCP connection to the first
  // sftp:// operand's server, while the CLI itself loads.
  const url = process.argv.slice(3).find((a) => a.startsWith('sftp://'));
  let target = null;
  try {
    target = url ? require('../dist/app/node/cli/remoteSpec.js').parseRemoteUrl(url) : null;
  } catch {
    // A malformed URL is reported by the CLI itself.
  }
  require('../dist/app/node/ssh/connection.js').prewarmConnectionWorker(target ? { host: target.host, port: target.port } : undefined);
}
require('../dist/app/node/cli.js').main(process.argv).then(
  (code) => { process.exitCode = code; },
  (err) => { process.stderr.write(`sluice: ${err && err.message ? err.message : err}\n`); process.exitCode = 1; },
);
