import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { startSshd } from '../../../e2e/fixtures/sshd';
import { startToxiproxy, toxiproxyAvailable } from '../../../e2e/fixtures/toxiproxy';
import { makeTempDir, removeDir } from '../../../e2e/fixtures/tmp';
import * as os from 'node:os';
import { AUTO_TUNE, SSH2_DEFAULT_WINDOW } from './connectionPool';
import { planPool } from './poolPlan';
import type { EngineEvent } from '../transfer/types';
import { openTrusting, withProxiedSshd, withTrustedServer } from '../test/helpers';
import { runTransfer } from '../transfer/run';

test('pool size follows the measured RTT: one connection and channel on loopback, more channels (and on more cores connections) behind latency', async (t) => {
  const srv = await startSshd();
  const dir = await makeTempDir('sluice-autotune-');
  const tox = toxiproxyAvailable() ? await startToxiproxy() : null;
  try {
    const open = (port: number) => openTrusting(srv, dir, { port });

    // A busy machine can make a loopback RTT read over 5 ms (7.2 ms once with two busy loops on the 2 cores): up to
    // three sessions, the first that measures loopback as loopback is checked.
    let direct = await open(srv.port);
    for (let attempt = 1; attempt < 3 && !(direct.rttMs! < AUTO_TUNE.rttMs); attempt++) {
      t.diagnostic(`loopback RTT read ${direct.rttMs} ms (machine busy?): measuring again`);
      await direct.close();
      direct = await open(srv.port);
    }
    try {
      assert.ok(direct.rttMs !== undefined && direct.rttMs < AUTO_TUNE.rttMs, `loopback RTT ${direct.rttMs} ms`);
      // measured by the SSH keepalive round trip during connect, not by extra SFTP requests afterwards
      assert.equal(direct.rttMs, direct.connections[0].info?.rttMs);
      await direct.whenPoolSettled();
      assert.equal(direct.connections.length, 1);
    } finally {
      await direct.close();
    }

    if (!tox) {
      t.diagnostic('toxiproxy-server not installed: latency half not run');
      return;
    }
    const proxy = await tox.createProxy('ssh', srv.port);
    await tox.addToxic('ssh', { type: 'latency', stream: 'upstream', attributes: { latency: 10 } });
    await tox.addToxic('ssh', { type: 'latency', stream: 'downstream', attributes: { latency: 10 } });
    const src = path.join(dir, 'f.bin');
    fs.writeFileSync(src, randomBytes(40 * 1024 * 1024));
    const busy = new Set<string>();
    const onEvent = (e: EngineEvent): void => {
      if (e.type === 'progress')
        for (const c of e.connections)
          c.channels.forEach((ch, i) => {
            if (ch.bytes > 0) busy.add(`${c.id}:${i}`);
          });
    };
    const pool = await open(proxy.port);
    try {
      assert.ok((pool.rttMs ?? 0) >= AUTO_TUNE.rttMs && pool.rttMs! < 200, `proxied RTT ${pool.rttMs} ms`);
      assert.ok(pool.channelWindow > SSH2_DEFAULT_WINDOW, `window ${pool.channelWindow}`);
      const report = await runTransfer(
        pool,
        { id: 'auto', direction: 'put', sources: [src], dest: srv.root, recursive: false },
        { onEvent },
      );
      assert.deepEqual(report.failed, []);
      assert.ok(fs.readFileSync(path.join(srv.root, 'f.bin')).equals(fs.readFileSync(src)));
      await pool.whenPoolSettled();
      assert.equal(pool.connections.length, AUTO_TUNE.connections);
      assert.ok(busy.size >= AUTO_TUNE.channels, `channels that carried bytes: ${[...busy].join(', ')}`);
    } finally {
      await pool.close();
    }
  } finally {
    await tox?.stop();
    await srv.stop();
    await removeDir(dir);
  }
});

test('a server that allows fewer sessions than the automatic channel count still gets the job done on those it allows', async (t) => {
  if (!toxiproxyAvailable()) {
    t.skip('toxiproxy-server not installed: needs latency for the automatic channels');
    return;
  }
  const maxSessions = 3;
  const toxics = [{ type: 'latency' as const, stream: 'downstream' as const, attributes: { latency: 10 } }];
  await withProxiedSshd(
    { tempPrefix: 'sluice-maxsessions-', toxics, sshd: { extraConfig: [`MaxSessions ${maxSessions}`] } },
    async ({ srv, proxyPort, dir }) => {
      const data = randomBytes(20 * 1024 * 1024);
      fs.writeFileSync(path.join(srv.root, 'm.bin'), data);
      const pool = await openTrusting(srv, dir, { port: proxyPort });
      try {
        assert.ok((pool.rttMs ?? 0) >= AUTO_TUNE.rttMs, `proxied RTT ${pool.rttMs} ms`);
        const report = await runTransfer(pool, {
          id: 'm',
          direction: 'get',
          sources: [path.join(srv.root, 'm.bin')],
          dest: dir,
          recursive: false,
        });
        assert.deepEqual(report.failed, []);
        assert.ok(fs.readFileSync(path.join(dir, 'm.bin')).equals(data));
        await pool.whenPoolSettled();
        assert.ok(AUTO_TUNE.channels > maxSessions);
        assert.equal(
          pool.connections[0].channels,
          maxSessions,
          `channels on the first connection: ${pool.connections[0].channels}`,
        );
      } finally {
        await pool.close();
      }
    },
  );
});

test('an auto-sized put that will cut a file into segments opens two channels on one connection, even on loopback; other jobs one', async () => {
  await withTrustedServer(
    () => startSshd(),
    'sluice-autotune-put-',
    async ({ server: srv, dir }) => {
      const open = (prefetch?: { stat?: string[]; probeDir?: string }, channels?: number) =>
        openTrusting(srv, dir, { prefetch, channels, segmentSize: 1024 * 1024 });
      const src = path.join(dir, 'big.bin');
      const data = randomBytes(3 * 1024 * 1024 + 5);
      fs.writeFileSync(src, data);
      const segmentedPut = await open({ stat: [srv.root], probeDir: srv.root });
      try {
        await segmentedPut.whenPoolSettled();
        assert.equal(segmentedPut.connections.length, 1);
        // On a loaded machine loopback can read 5 ms or more: the pool then follows the slow-link plan, as it should.
        const planned = planPool({
          cores: os.availableParallelism(),
          rttMs: segmentedPut.rttMs,
          segmentedPut: true,
        }).channelsPerConnection;
        assert.equal(
          planned,
          segmentedPut.rttMs! < AUTO_TUNE.rttMs ? AUTO_TUNE.segmentedPutChannels : AUTO_TUNE.channels,
        );
        assert.equal(segmentedPut.connections[0].channels, planned);
        const report = await runTransfer(segmentedPut, {
          id: 'seg',
          direction: 'put',
          sources: [src],
          dest: srv.root,
          recursive: false,
        });
        assert.deepEqual(report.failed, []);
        assert.ok(fs.readFileSync(path.join(srv.root, 'big.bin')).equals(data));
      } finally {
        await segmentedPut.close();
      }
      for (const [what, session] of [
        ['a put of small files', await open({ stat: [srv.root] })],
        ['--channels 1', await open({ stat: [srv.root], probeDir: srv.root }, 1)],
      ] as const) {
        try {
          await session.whenPoolSettled();
          if (session.rttMs! < AUTO_TUNE.rttMs || what === '--channels 1')
            assert.equal(session.connections[0].channels, 1, what);
        } finally {
          await session.close();
        }
      }
    },
  );
});

test('behind latency a segmented put connects on its first channel alone, and the pool grows to the planned channels', async (t) => {
  if (!toxiproxyAvailable()) {
    t.skip('toxiproxy-server not installed: needs latency for the early channels');
    return;
  }
  // 50 ms RTT: the set-up exchange alone reads over AUTO_TUNE.earlyRttMs, so the early channels open with the first.
  const toxics = (['upstream', 'downstream'] as const).map((stream) => ({
    type: 'latency' as const,
    stream,
    attributes: { latency: 25 },
  }));
  await withProxiedSshd({ tempPrefix: 'sluice-autotune-early-', toxics }, async ({ srv, proxyPort, dir }) => {
    const src = path.join(dir, 'big.bin');
    const data = randomBytes(3 * 1024 * 1024 + 7);
    fs.writeFileSync(src, data);
    const pool = await openTrusting(srv, dir, {
      port: proxyPort,
      prefetch: { stat: [srv.root], probeDir: srv.root },
      segmentSize: 1024 * 1024,
    });
    try {
      assert.ok((pool.rttMs ?? 0) >= AUTO_TUNE.rttMs, `proxied RTT ${pool.rttMs} ms`);
      // Connect waited for channel 0 only (its subsystem request rides behind CHANNEL_OPEN); a second channel takes
      // one round trip more and used to hold the put's first byte back by it.
      assert.equal(pool.connections[0].info?.channels, 1);
      const report = await runTransfer(pool, {
        id: 'e',
        direction: 'put',
        sources: [src],
        dest: srv.root,
        recursive: false,
      });
      assert.deepEqual(report.failed, []);
      assert.ok(fs.readFileSync(path.join(srv.root, 'big.bin')).equals(data));
      await pool.whenPoolSettled();
      assert.equal(pool.connections[0].channels, AUTO_TUNE.channels);
    } finally {
      await pool.close();
    }
  });
});
