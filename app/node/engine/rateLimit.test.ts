/**
 * Speed limits over a real OpenSSH sshd: limited transfers arrive intact with every byte charged to the site's and
 * the process's buckets (counted in shared memory by the connection workers), and limits changed while a transfer
 * runs take effect at once. Observed through the buckets' counters, never through timings.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { globalRateLimit } from '../sftp/rateLimit';
import type { EngineEvent } from '../transfer/types';
import { openTrusting, sha256File, sshdWithKnownHosts, writeRandomFile, type SshdServer } from '../test/helpers';
import { PoolEngine, setGlobalRateLimit } from './engine';

const KiB = 1024;
const MiB = 1024 * 1024;

let server: SshdServer;
let local: string;
let stop: (() => Promise<void>) | undefined;
before(async () => ({ server, local, stop } = await sshdWithKnownHosts('sluice-limit-')));
after(async () => {
  setGlobalRateLimit(0);
  await stop?.();
});

test(
  'limited put and get: identical bytes, every byte charged to the site and the global bucket',
  { timeout: 60_000 },
  async () => {
    setGlobalRateLimit(32 * MiB);
    const engine = new PoolEngine(
      await openTrusting(server, local, { connections: 1, channels: 2, segmentSize: MiB, rateLimit: 8 * MiB }),
    );
    try {
      const big = path.join(local, 'big.bin');
      const small = path.join(local, 'small.bin');
      writeRandomFile(big, 3 * MiB); // three segments over two channels
      writeRandomFile(small, 100 * KiB); // one SSH_FXP_WRITE, outside the pipeline
      const remote = path.join(server.root, 'limited');
      fs.mkdirSync(remote);
      const up = await engine.transfer({
        id: 'up',
        direction: 'put',
        sources: [big, small],
        dest: remote,
        recursive: false,
      });
      assert.deepEqual(up.failed, []);
      for (const f of ['big.bin', 'small.bin'])
        assert.equal(await sha256File(path.join(remote, f)), await sha256File(path.join(local, f)), f);
      const afterUp = engine.connectionPool.rateLimitStats();
      assert.equal(afterUp.grantedBytes, 3 * MiB + 100 * KiB, 'the site bucket was charged every byte sent');
      assert.ok(afterUp.waits > 0, 'requests waited for tokens');
      assert.equal(globalRateLimit().stats().grantedBytes, 3 * MiB + 100 * KiB, 'the global bucket too');

      const back = path.join(local, 'back.bin');
      const down = await engine.transfer({
        id: 'down',
        direction: 'get',
        sources: [path.join(remote, 'big.bin')],
        dest: back,
        recursive: false,
      });
      assert.deepEqual(down.failed, []);
      assert.equal(await sha256File(back), await sha256File(big));
      assert.equal(
        engine.connectionPool.rateLimitStats().grantedBytes - afterUp.grantedBytes,
        3 * MiB,
        'every byte read was charged',
      );
    } finally {
      setGlobalRateLimit(0);
      await engine.close();
    }
  },
);

test(
  'limits changed mid-transfer take effect: a global limit set while running is charged, lifting both lets it finish',
  { timeout: 60_000 },
  async () => {
    const size = 16 * MiB;
    let phase: 'site' | 'global' | 'lifted' = 'site';
    const globalBefore = globalRateLimit().stats().grantedBytes;
    const globalGranted = () => globalRateLimit().stats().grantedBytes - globalBefore;
    const onEvent = (e: EngineEvent) => {
      if (e.type !== 'progress') return; // engine is assigned by then: progress comes from the transfer
      if (phase === 'site' && e.bytesDone > 0) {
        phase = 'global';
        setGlobalRateLimit(512 * KiB);
      } else if (phase === 'global' && globalGranted() > 0) {
        phase = 'lifted';
        engine.setRateLimit(0);
        setGlobalRateLimit(0);
      }
    };
    const engine = new PoolEngine(
      await openTrusting(server, local, { connections: 1, channels: 2, segmentSize: 4 * MiB, rateLimit: MiB }),
    );
    try {
      const src = path.join(local, 'changing.bin');
      writeRandomFile(src, size);
      const dest = path.join(server.root, 'changing.bin');
      const report = await engine.transfer(
        { id: 'changing', direction: 'put', sources: [src], dest, recursive: false },
        { onEvent },
      );
      assert.deepEqual(report.failed, []);
      assert.equal(await sha256File(dest), await sha256File(src));
      assert.equal(phase, 'lifted');
      const site = engine.connectionPool.rateLimitStats();
      assert.deepEqual([site.bytesPerSecond, globalRateLimit().bytesPerSecond], [0, 0]);
      assert.equal(site.changes, 2, 'set at open, lifted mid-transfer');
      assert.ok(globalGranted() > 0, 'requests after the global limit was set took from it');
      assert.ok(site.grantedBytes >= globalGranted(), 'whatever took from the global bucket also took from the site');
      assert.ok(
        site.grantedBytes < size,
        `after the lift the rest went unlimited (${site.grantedBytes} of ${size} bytes charged)`,
      );
    } finally {
      setGlobalRateLimit(0);
      await engine.close();
    }
  },
);
