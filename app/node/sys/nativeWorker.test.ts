/**
 * The addon inside worker threads that are terminated mid-call, as the engine's connection workers are when a run
 * ends: a throw that can no longer reach JavaScript must not abort the process (node-addon-api's
 * NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS, native/binding.gyp). Without it the first few terminations end the whole
 * process with "FATAL ERROR: Error::ThrowAsJavaScriptException napi_throw" (exit 134), as a CI run of `sluice get`
 * did when its TCP_INFO sampler was cut off.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { nativeAddon, nativeUnavailableReason } from './native';

const TERMINATIONS = 150;

/**
 * A child process: workers that call every addon function with a bad descriptor (each call throws) in a loop,
 * terminated.
 */
const CHILD = `
const { Worker } = require('node:worker_threads');
const { once } = require('node:events');
const code = \`
const { parentPort } = require('node:worker_threads');
const addon = require(process.env.SLUICE_NATIVE_JS).nativeAddon();
if (!addon) throw new Error('the addon did not load in the worker');
parentPort.postMessage('calling');
for (;;) {
  for (const call of [() => addon.tcpInfo(-1), () => addon.preallocate(-1, 4096), () => addon.dataRanges(-1, 4096)]) {
    try { call(); } catch { /* EBADF, as expected */ }
  }
}\`;
(async () => {
  for (let i = 0; i < ${TERMINATIONS}; i++) {
    const w = new Worker(code, { eval: true });
    await once(w, 'message');
    await w.terminate();
  }
  process.stdout.write('terminated ${TERMINATIONS}\\n');
})();
`;

const skip = nativeAddon()
  ? undefined
  : `native addon not loaded (${nativeUnavailableReason() ?? 'unknown'}): nothing native to terminate`;
if (skip) process.stdout.write(`# nativeWorker skipped: ${skip}\n`);

test(
  `${TERMINATIONS} worker threads terminated in the middle of addon calls that throw: the process lives on`,
  { skip },
  () => {
    const r = spawnSync(process.execPath, ['-e', CHILD], {
      env: { ...process.env, SLUICE_NATIVE_JS: path.join(__dirname, 'native.js') },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(r.signal, null, `killed by ${r.signal}: ${r.stderr.slice(0, 600)}`);
    assert.equal(r.status, 0, r.stderr.slice(0, 600));
    assert.equal(r.stdout.trim(), `terminated ${TERMINATIONS}`);
  },
);
