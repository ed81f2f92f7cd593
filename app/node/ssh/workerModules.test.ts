/**
 * What a connection worker loads stays lean: the modules the prewarmed worker runs to resolve a host through ssh_config
 * (cli/preconnectTarget.ts → engine/hostSettings.ts → ssh/ssh2Lists.ts) must not pull in zod. Its schema objects in a
 * worker's heap made the worker's garbage collector (V8's platform threads) spend about 0.6 s more CPU per GiB
 * downloaded (a 1 GiB loopback `sluice get`: user CPU 1.3–1.5 s → 2.1–2.5 s when hostSettings reached the cipher-speed
 * store through ssh/algorithms.ts). Nor ssh2's index: it loads ssh2's server, key generator and HTTP agents (node:http,
 * node:https, node:tls) into every worker.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

const MODULES = [
  '../cli/preconnectTarget.js',
  '../engine/hostSettings.js',
  './ssh2Lists.js',
  './worker/connect.js',
].map((m) => path.join(__dirname, m));

test('the modules a connection worker loads for ssh_config resolution and connecting do not load zod', async () => {
  const w = new Worker(
    `
    const { parentPort, workerData } = require('node:worker_threads');
    for (const m of workerData.modules) require(m);
    parentPort.postMessage(Object.keys(require.cache));
  `,
    { eval: true, workerData: { modules: MODULES } },
  );
  const [loaded] = (await once(w, 'message')) as [string[]];
  await w.terminate();
  assert.ok(
    loaded.some((m) => m.endsWith(path.join('engine', 'hostSettings.js'))),
    'the modules were loaded',
  );
  const zod = loaded.filter((m) => m.includes(`${path.sep}node_modules${path.sep}zod${path.sep}`));
  assert.deepEqual(zod, [], 'zod in a connection worker');
});

test("a connection worker's modules take ssh2's client alone: not its index, server, agents' HTTP side nor node:tls", async () => {
  const modules = ['./worker/connect.js', './worker/jump.js', './worker/sftpCalls.js'].map((m) =>
    path.join(__dirname, m),
  );
  const w = new Worker(
    `
    const { parentPort, workerData } = require('node:worker_threads');
    for (const m of workerData.modules) require(m);
    require(workerData.agentFilter).agentClassFor('/tmp/agent.sock', 'linux');
    new (require(workerData.ssh2x).ssh2ClientClass())();
    parentPort.postMessage({ files: Object.keys(require.cache), builtins: process.moduleLoadList });
  `,
    {
      eval: true,
      workerData: {
        modules,
        agentFilter: path.join(__dirname, 'agentFilter.js'),
        ssh2x: path.join(__dirname, '..', 'ssh2x.js'),
      },
    },
  );
  const [{ files, builtins }] = (await once(w, 'message')) as [{ files: string[]; builtins: string[] }];
  await w.terminate();
  const lib = files.filter((f) => f.includes(`${path.sep}ssh2${path.sep}lib${path.sep}`)).map((f) => path.basename(f));
  assert.ok(
    lib.includes('client.js') && lib.includes('agent.js'),
    `ssh2's client and agent loaded (${lib.join(', ')})`,
  );
  for (const name of ['index.js', 'server.js', 'http-agents.js', 'keygen.js'])
    assert.ok(!lib.includes(name), `ssh2/lib/${name} in a connection worker`);
  const heavy = builtins.filter((b) => /^NativeModule (https?|tls|_http_\w+|_tls_\w+)$/.test(b));
  assert.deepEqual(heavy, [], 'node:http/https/tls in a connection worker');
});
