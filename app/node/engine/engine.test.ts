/**
 * The engine's door: what it learned about the server (ServerTraits), its pool, and transfers run through it, each
 * with its own event sink.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PoolEngine, openEngine } from './engine';
import type { EngineEvent } from '../transfer/types';
import {
  makeTempDir,
  removeDir,
  sha256File,
  startScriptedServer,
  startSsh2SftpServer,
  startSshd,
  writeRandomFile,
  openTrusting,
  trustingOptions,
} from '../test/helpers';

let local: string;
before(async () => {
  local = await makeTempDir('sluice-engine-');
});
after(async () => {
  if (local) await removeDir(local);
});

test(
  'OpenSSH: its sftp-server answers in order, limits and extensions are known, the probe result is kept, sha256sum hashes its copies',
  { timeout: 60_000 },
  async () => {
    const server = await startSshd();
    const engine = new PoolEngine(
      await openTrusting(server, local, { connections: 1, channels: 2, segmentSize: 1024 * 1024 }),
    );
    try {
      const before = engine.traits;
      assert.equal(before.ordersRequests, true);
      assert.equal(before.maxWrite, 261120);
      assert.ok(before.extensions['posix-rename@openssh.com'] !== undefined);
      assert.equal(before.outOfOrderWrites, undefined, 'not probed yet');
      assert.match(before.negotiated.cipher, /\S/, 'the negotiated cipher is known');
      assert.equal(before.negotiated.serverHostKey, engine.connectionPool.negotiated.serverHostKey);
      assert.deepEqual(
        { ...engine.pool, rttMs: undefined },
        {
          authMethod: 'publickey',
          connections: 1,
          channels: 2,
          channelWindow: engine.connectionPool.channelWindow,
          rttMs: undefined,
          up: [{ connection: 1, channels: 2 }],
        },
      );
      assert.equal(before.remoteHash, undefined, 'no sha256 job yet');
      const src = path.join(local, 'e.bin');
      writeRandomFile(src, 3 * 1024 * 1024);
      const report = await engine.transfer({
        id: 'e',
        direction: 'put',
        sources: [src],
        dest: path.join(server.root, 'e.bin'),
        recursive: false,
      });
      assert.deepEqual(report.failed, []);
      assert.equal(await sha256File(path.join(server.root, 'e.bin')), await sha256File(src));
      assert.equal(engine.traits.outOfOrderWrites, true);
      const verified = await engine.transfer({
        id: 'v',
        direction: 'get',
        sources: [path.join(server.root, 'e.bin')],
        dest: path.join(local, 'v.bin'),
        recursive: false,
        verify: 'sha256',
      });
      assert.equal(verified.verify, 'sha256-remote');
      assert.equal(engine.traits.remoteHash, 'server', 'sshd runs sha256sum over exec');
    } finally {
      await engine.close();
      await server.stop();
    }
  },
);

test('a server built on ssh2: not taken to answer in order', { timeout: 60_000 }, async () => {
  const server = await startScriptedServer();
  const engine = new PoolEngine(await openTrusting(server, local, { connections: 1, channels: 1 }));
  try {
    assert.equal(engine.traits.ordersRequests, false);
    assert.ok(fs.existsSync(server.root));
  } finally {
    await engine.close();
    await server.stop();
  }
});

test(
  'openEngine; a server with neither check-file nor exec: sha256 jobs read the file back, and the traits say so',
  { timeout: 60_000 },
  async () => {
    const server = await startSsh2SftpServer({ allowExec: false, extensions: {} });
    const engine = await openEngine(trustingOptions(server, local, { connections: 1, channels: 1 }));
    try {
      fs.writeFileSync(path.join(server.root, 'r.bin'), 'read me back');
      const report = await engine.transfer({
        id: 'r',
        direction: 'get',
        sources: [path.join(server.root, 'r.bin')],
        dest: path.join(local, 'r.bin'),
        recursive: false,
        verify: 'sha256',
      });
      assert.deepEqual(report.failed, []);
      assert.equal(report.verify, 'sha256-reread');
      assert.equal(engine.traits.remoteHash, 'reread');
      assert.deepEqual(engine.traits.extensions, {});
      assert.equal(engine.pool.connections, 1);
      assert.equal(engine.pool.authMethod, 'publickey');
    } finally {
      await engine.close();
      await server.stop();
    }
  },
);

test(
  'each transfer has its own event sink: two jobs at once hear only their own events, the pool only its own',
  { timeout: 60_000 },
  async () => {
    const server = await startSshd();
    const pool: EngineEvent[] = [];
    const engine = await openEngine(
      trustingOptions(server, local, {
        connections: 1,
        channels: 2,
        segmentSize: 1024 * 1024,
        onEvent: (e) => pool.push(e),
      }),
    );
    try {
      const up = path.join(local, 'up.bin');
      writeRandomFile(up, 3 * 1024 * 1024);
      writeRandomFile(path.join(server.root, 'down.bin'), 2 * 1024 * 1024);
      const heard: Record<string, EngineEvent[]> = { put: [], get: [] };
      const [put, get] = await Promise.all([
        engine.transfer(
          { id: 'put', direction: 'put', sources: [up], dest: path.join(server.root, 'up.bin'), recursive: false },
          { onEvent: (e) => heard.put.push(e) },
        ),
        engine.transfer(
          {
            id: 'get',
            direction: 'get',
            sources: [path.join(server.root, 'down.bin')],
            dest: path.join(local, 'down.bin'),
            recursive: false,
          },
          { onEvent: (e) => heard.get.push(e) },
        ),
      ]);
      assert.deepEqual([put.failed, get.failed], [[], []]);
      for (const job of ['put', 'get']) {
        const events = heard[job];
        assert.ok(
          events.some((e) => e.type === 'progress'),
          `${job}: progress samples`,
        );
        assert.deepEqual(
          events.filter((e) => e.type === 'file').map((e) => e.type === 'file' && e.state),
          ['done'],
          `${job}: its one file`,
        );
        const others = events.filter((e) => 'jobId' in e && e.jobId !== job);
        assert.deepEqual(others, [], `${job} hears no other job's events`);
        assert.ok(
          events.every((e) => e.type !== 'connection' && e.type !== 'hostKeysLearned'),
          `${job}: no pool events`,
        );
      }
      assert.ok(
        heard.put.some((e) => e.type === 'log' && /out-of-order writes/.test(e.message)),
        'the probe is said to the job that asked',
      );
      assert.equal(engine.traits.outOfOrderWrites, true, 'and its answer is kept by the engine');
      assert.ok(
        pool.some((e) => e.type === 'connection' && e.state === 'up'),
        'the pool says its connection came up',
      );
      assert.deepEqual(
        pool.filter(
          (e) => e.type === 'progress' || e.type === 'file' || /out-of-order/.test('message' in e ? e.message : ''),
        ),
        [],
        "no transfer event reaches the pool's listener",
      );
    } finally {
      await engine.close();
      await server.stop();
    }
  },
);
