import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { startSshd } from '../../../e2e/fixtures/sshd';
import { startToxiproxy, toxiproxyAvailable } from '../../../e2e/fixtures/toxiproxy';
import { makeTempDir, removeDir } from '../../../e2e/fixtures/tmp';
import { openPool } from '../test/helpers';
import { SluiceError } from '../errors';
import { runTransfer } from './run';
import type { EngineEvent } from './types';

const SIZE = 24 * 1024 * 1024;

for (const direction of ['put', 'get'] as const) {
  test(`aborting a ${direction} on a slow link stops within the in-flight budget, not at the end of the file`, async (t) => {
    if (!toxiproxyAvailable()) {
      t.skip('toxiproxy-server not installed');
      return;
    }
    const srv = await startSshd();
    const tox = await startToxiproxy();
    const dir = await makeTempDir('sluice-abort-');
    try {
      const proxy = await tox.createProxy('ssh', srv.port);
      // 2 MB/s each way: the whole file would take ~12 s.
      await tox.addToxic('ssh', { type: 'bandwidth', stream: 'upstream', attributes: { rate: 2048 } });
      await tox.addToxic('ssh', { type: 'bandwidth', stream: 'downstream', attributes: { rate: 2048 } });
      const kh = path.join(dir, 'known_hosts');
      fs.writeFileSync(kh, `${srv.knownHostsLine(proxy.port)}\n`);
      const local = path.join(dir, 'f.bin');
      const remote = path.join(srv.root, 'f.bin');
      fs.writeFileSync(direction === 'put' ? local : remote, randomBytes(SIZE));
      const abort = new AbortController();
      let abortedAt = 0;
      const pool = await openPool({
        host: '127.0.0.1',
        port: proxy.port,
        username: srv.user,
        auth: { identityFiles: [srv.clientKeyPath], useAgent: false, env: {} },
        knownHostsPaths: { readPaths: [kh], writePath: kh },
        hostKeyMode: 'strict',
        connections: 1,
        channels: 1,
        requests: 4,
      });
      const onEvent = (e: EngineEvent): void => {
        if (e.type === 'progress' && e.bytesDone > 0 && !abortedAt) {
          abortedAt = e.bytesDone;
          abort.abort();
        }
      };
      try {
        const started = Date.now();
        await assert.rejects(
          runTransfer(
            pool,
            {
              id: 'a',
              direction,
              sources: [direction === 'put' ? local : remote],
              dest: direction === 'put' ? srv.root : path.join(dir, 'out.bin'),
              recursive: false,
            },
            { signal: abort.signal, onEvent },
          ),
          (e: unknown) => e instanceof SluiceError && e.code === 'ABORTED',
        );
        const elapsed = Date.now() - started;
        assert.ok(abortedAt > 0 && abortedAt < SIZE / 2, `aborted early (at ${abortedAt} bytes)`);
        assert.ok(elapsed < 9000, `stopped after ${elapsed} ms, before the whole file could have moved`);
        // Nothing under the final name, no temporary file left behind.
        if (direction === 'put') assert.deepEqual(fs.readdirSync(srv.root), []);
        else assert.deepEqual(fs.readdirSync(dir), ['known_hosts']);
      } finally {
        await pool.close();
      }
    } finally {
      await tox.stop();
      await srv.stop();
      await removeDir(dir);
    }
  });
}
