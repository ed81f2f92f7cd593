import test from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';

// node-gyp builds these at `npm install`; a silent build failure would make ssh2 fall back to slow JS crypto.
test('ssh2 native crypto binding is built and loads in worker threads too', async () => {
  const crypto = require('ssh2/lib/protocol/crypto') as { bindingAvailable: boolean };
  assert.equal(crypto.bindingAvailable, true, 'ssh2 sshcrypto.node missing: rebuild with `npm rebuild ssh2`');
  const inWorker = await new Promise<boolean>((resolve, reject) => {
    const w = new Worker(
      "require('worker_threads').parentPort.postMessage(require('ssh2/lib/protocol/crypto').bindingAvailable)",
      { eval: true },
    );
    w.once('message', (v: boolean) => {
      resolve(v);
      void w.terminate();
    });
    w.once('error', reject);
  });
  assert.equal(inWorker, true);
});

test('better-sqlite3 native module is built', () => {
  const Database = require('better-sqlite3') as new (p: string) => {
    prepare(s: string): { get(): { v: number } };
    close(): void;
  };
  const db = new Database(':memory:');
  assert.equal(db.prepare('select 41 + 1 as v').get().v, 42);
  db.close();
});
