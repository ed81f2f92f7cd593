/**
 * Job actions in the queue against the real engine: a failed upload (read-only server) shows its error
 * text and Retry runs it again; a running upload on a throttled link is cancelled (nothing under the final
 * name) and Retry then completes it intact.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { QueueEvent } from '../app/common/queue/reducer';
import { expect, test } from './harness/test';
import { sha256File, writeRandomFile } from './harness/files';
import { startSshd, type SshdServer } from './fixtures/sshd';
import { FRONT_PROXY, startProxyInFront, toxiproxyAvailable } from './fixtures/toxiproxy';
import { skipBecause } from './harness/skip';

test.describe('an upload to a read-only server', () => {
  let sshd: SshdServer;
  // Every time the engine starts a job it sets it running: count those per job id.
  const starts = new Map<string, number>();
  let unsubscribe = (): void => undefined;

  test.beforeEach(async ({ app, engine, localDir }) => {
    sshd = await startSshd({ readOnly: true });
    starts.clear();
    unsubscribe = engine.service.subscribe((event, payload) => {
      if (event !== 'queue.delta') return;
      for (const e of (payload as { events: QueueEvent[] }).events) {
        if (e.type === 'updated' && e.patch.state === 'running') starts.set(e.id, (starts.get(e.id) ?? 0) + 1);
      }
    });
    fs.writeFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
    writeRandomFile(path.join(localDir, 'denied.bin'), 32 * 1024);
    await app.open();
    await app.createSite({
      name: 'Read-only',
      host: sshd.host,
      port: sshd.port,
      user: sshd.user,
      keyPath: sshd.clientKeyPath,
      localDir,
      remoteDir: sshd.root,
    });
    await app.startConnect('Read-only');
    await app.waitForRemoteListing(sshd.root);
    await app.dragLocalToRemote('denied.bin');
    await app.waitForJobState('denied.bin', 'failed');
  });

  test.afterEach(async () => {
    unsubscribe();
    await sshd.stop();
  });

  test('fails once: its error text shown, counted failed, listed under the Failed filter', async ({ app }) => {
    const error = app.jobRow('denied.bin').getByRole('note', { name: 'denied.bin error' });
    await expect(error).toContainText(/permission denied/i);
    await expect(app.queue.getByLabel('Failed jobs')).toHaveText('1 failed');
    await app.queue.getByRole('group', { name: 'Queue filter' }).getByRole('button', { name: 'Failed' }).click();
    await expect(app.jobRow('denied.bin')).toBeVisible();
    await app.screenshot('queue-failed');
    const jobId = (await app.jobRow('denied.bin').getAttribute('data-job-id'))!;
    expect(starts.get(jobId)).toBe(1);
  });

  test('Retry runs the same job again: started twice, failed again with its error, still one job, nothing written', async ({
    app,
  }) => {
    const error = app.jobRow('denied.bin').getByRole('note', { name: 'denied.bin error' });
    const jobId = (await app.jobRow('denied.bin').getAttribute('data-job-id'))!;
    await app.jobAction('denied.bin', 'Retry');
    await expect.poll(() => starts.get(jobId), { message: 'the retried job started again' }).toBe(2);
    await app.waitForJobState('denied.bin', 'failed');
    await expect(error).toContainText(/permission denied/i);
    await expect(app.queue.getByLabel('Failed jobs')).toHaveText('1 failed');
    await expect(app.queue.getByLabel('Jobs total')).toHaveText('1 job');
    expect(fs.existsSync(path.join(sshd.root, 'denied.bin'))).toBe(false);
  });
});

test('cancel a running upload, then Retry completes it intact', async ({ app, sshd, engine, localDir }) => {
  skipBecause(!toxiproxyAvailable(), 'toxiproxy-server is not installed (/usr/local/bin/toxiproxy-server)');
  // 2 MB/s client -> server: an 8 MiB upload runs for ~4 s, long enough to cancel it mid-way.
  const { toxi, port } = await startProxyInFront(sshd.port, [
    { type: 'bandwidth', stream: 'upstream', attributes: { rate: 2048 } },
  ]);
  try {
    const remoteDir = path.join(sshd.root, 'cancel');
    fs.mkdirSync(remoteDir, { recursive: true });
    fs.writeFileSync(engine.knownHostsPath, `${sshd.knownHostsLine(port)}\n`);
    const local = writeRandomFile(path.join(localDir, 'big.bin'), 8 * 1024 * 1024);
    await app.open();
    await app.createSite({
      name: 'Cancel',
      host: sshd.host,
      port,
      user: sshd.user,
      keyPath: sshd.clientKeyPath,
      localDir,
      remoteDir,
      connections: 1,
    });
    await app.startConnect('Cancel');
    await app.waitForRemoteListing(remoteDir);

    await app.dragLocalToRemote('big.bin');
    await app.waitForJobBytes('big.bin', 1);
    await app.jobAction('big.bin', 'Cancel');
    await app.waitForJobState('big.bin', 'cancelled');
    await expect(app.jobRow('big.bin').getByRole('button', { name: 'Retry big.bin' })).toBeVisible();
    expect(fs.existsSync(path.join(remoteDir, 'big.bin')), 'nothing under the final name after a cancel').toBe(false);
    await expect
      .poll(() => fs.readdirSync(remoteDir).filter((n) => n.includes('.sluice-')), {
        message: 'no partial file kept after a cancel',
      })
      .toEqual([]);

    // Retry on an unthrottled link, so the rest of the suite stays quick.
    await toxi.removeToxic(FRONT_PROXY, 'bandwidth_upstream');
    await app.jobAction('big.bin', 'Retry');
    await app.waitForJobState('big.bin', 'done');
    expect(sha256File(path.join(remoteDir, 'big.bin'))).toBe(sha256File(local));
  } finally {
    await toxi.stop();
  }
});
