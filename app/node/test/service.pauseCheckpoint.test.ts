/**
 * A pause that lands while a journal checkpoint is on its way (its fsync@openssh.com queued behind SSH_FXP_WRITEs on a
 * throttled link), over the real engine against a private sshd behind Toxiproxy. The interrupted file has no durable
 * range yet when it is given up, and the checkpoint records one after that: the partial copy must be kept (removing it
 * raced with the resumed run writing the same temporary name, which then committed a file with holes of zeros or
 * failed its size check), and the resumed upload must arrive with the source's SHA-256.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openEngine, type EngineFactory, type PoolEngine } from '../engine/engine';
import { SSHD_PATH } from '../../../e2e/fixtures/sshd';
import { startProxyInFront, toxiproxyAvailable } from '../../../e2e/fixtures/toxiproxy';
import { connectAccepting, setupSshd, waitJobs } from './sshdService';

const MiB = 1024 * 1024;
const SIZE = 24 * MiB;
/** Client → server through the proxy, KB/s: the 24 MiB take ~6 s, and a checkpoint's fsync waits behind WRITEs. */
const RATE_KBPS = 4096;
const skip = !fs.existsSync(SSHD_PATH)
  ? `${SSHD_PATH} not installed`
  : !toxiproxyAvailable()
    ? 'toxiproxy-server is not installed (/usr/local/bin/toxiproxy-server)'
    : false;

const sha256 = (file: string): string => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** Engines whose connections report the first journal checkpoint (an fsync) the moment it is sent. */
function checkpointWatch(): { factory: EngineFactory; firstCheckpoint: Promise<void> } {
  let sent!: () => void;
  const firstCheckpoint = new Promise<void>((resolve) => {
    sent = resolve;
  });
  const factory: EngineFactory = async (o) => {
    const e = (await openEngine({ ...o, segmentSize: 4 * MiB })) as PoolEngine;
    const watch = (): void => {
      for (const c of e.connectionPool.connections) {
        if ((c as { watched?: boolean }).watched) continue;
        (c as { watched?: boolean }).watched = true;
        const call = c.call.bind(c);
        c.call = ((...args: Parameters<typeof call>) => {
          if (args[0] === 'checkpoint') sent();
          return call(...args);
        }) as typeof c.call;
      }
    };
    watch();
    const transfer = e.transfer.bind(e);
    e.transfer = (req, signal) => {
      watch();
      return transfer(req, signal);
    };
    return e;
  };
  return { factory, firstCheckpoint };
}

test(
  'real sshd behind a throttled link: a pause while the first checkpoint is on its way keeps the partial copy; resumed, the upload is identical',
  { skip, timeout: 180_000 },
  async (t) => {
    const { factory, firstCheckpoint } = checkpointWatch();
    const direct = await setupSshd(t, { engine: factory, site: { connections: 1, channels: 2 } });
    const { toxi, port } = await startProxyInFront(direct.server.port, [
      { type: 'bandwidth', stream: 'upstream', attributes: { rate: RATE_KBPS } },
    ]);
    t.after(async () => toxi.stop());
    const saved = await direct.service.invoke('sites.save', {
      site: {
        name: 'slow link',
        folder: 'Tests',
        host: direct.server.host,
        port,
        user: direct.server.user,
        authMethod: 'key',
        keyPath: direct.server.clientKeyPath,
        connections: 1,
        channels: 2,
      },
    });
    assert.ok(saved.ok, JSON.stringify(saved));
    const c = { ...direct, siteId: saved.value.id };
    await connectAccepting(c);
    const local = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-svc-pause-ckpt-'));
    t.after(async () => fs.rmSync(local, { recursive: true, force: true }));
    const src = path.join(local, 'slow.bin');
    fs.writeFileSync(src, randomBytes(SIZE));
    const dest = path.join(c.server.root, 'pause');
    fs.mkdirSync(dest);
    const temps = (): string[] => fs.readdirSync(dest).filter((n) => n.startsWith('.slow.bin.sluice-'));

    const queued = await c.service.invoke('queue.enqueue', {
      siteId: c.siteId,
      direction: 'upload',
      sources: [src],
      dest,
    });
    assert.ok(queued.ok, JSON.stringify(queued));
    const [jobId] = queued.value.jobIds;
    await firstCheckpoint;
    assert.ok((await c.service.invoke('queue.pause', { jobId })).ok);
    await waitJobs(c, [jobId], 'paused');
    assert.equal(fs.existsSync(path.join(dest, 'slow.bin')), false, 'nothing under the final name while paused');
    assert.equal(temps().length, 1, 'the partial copy is kept for the resume');

    assert.ok((await c.service.invoke('queue.resume', { jobId })).ok);
    await c.next('queue.delta', () =>
      ['done', 'failed'].includes(c.service.jobs().find((j) => j.id === jobId)?.state ?? ''),
    );
    const job = c.service.jobs().find((j) => j.id === jobId)!;
    assert.equal(job.state, 'done', JSON.stringify(job.error));
    assert.equal(sha256(path.join(dest, 'slow.bin')), sha256(src), 'identical bytes after the resume');
    assert.deepEqual(temps(), [], 'no temporary file left');
  },
);
