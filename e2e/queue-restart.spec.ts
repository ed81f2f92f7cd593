/**
 * The queue survives an app restart: a drop of 40 files runs on a throttled link (Toxiproxy), the service is closed
 * mid-queue and a new one opened on the same data folder (queue.db); the page reloads, the queue comes back with what
 * was done, resumes by itself (its row says "resumed from" what was done) and finishes with every file intact and no
 * temporary file left.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from '@playwright/test';
import { startSshd } from './fixtures/sshd';
import { FRONT_PROXY, startProxyInFront, toxiproxyAvailable } from './fixtures/toxiproxy';
import { restartTestEngine, startTestEngine, type TestEngine } from './harness/engine';
import { sha256File, writeRandomFile } from './harness/files';
import { startHarness, type Harness } from './harness/server';
import { SluicePage } from './pages/SluicePage';
import { skipBecause } from './harness/skip';

test('restart the service mid-queue: the queue comes back from queue.db and finishes by itself', async ({ page }) => {
  skipBecause(!toxiproxyAvailable(), 'toxiproxy-server is not installed (/usr/local/bin/toxiproxy-server)');
  const sshd = await startSshd();
  // 2 MB/s client -> server: 40 × 1 MiB take ~20 s. More than the engine's first burst of uploads in flight (32 MiB,
  // then about 1 s of data): with 512 KiB files all 40 could be in flight at once and end together (seen in CI), so
  // the first file done came with the last. Now some files start only after others ended, and the restart comes
  // after the first ones, with files not yet done.
  const { toxi, port } = await startProxyInFront(sshd.port, [
    { type: 'bandwidth', stream: 'upstream', attributes: { rate: 2048 } },
  ]);
  let engine: TestEngine | undefined;
  let harness: Harness | undefined;
  try {
    engine = await startTestEngine();
    fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine(port)}\n`);
    const localDir = fs.mkdtempSync(path.join(engine.home, 'local-'));
    const remoteDir = path.join(sshd.root, 'restart');
    fs.mkdirSync(remoteDir, { recursive: true });
    const files = Array.from({ length: 40 }, (_, i) =>
      writeRandomFile(path.join(localDir, `part-${String(i).padStart(2, '0')}.bin`), 1024 * 1024),
    );
    const batch = 'part-00.bin and 39 more';

    harness = await startHarness({ service: engine.service });
    let app = new SluicePage(page, harness);
    await app.open();
    await app.createSite({
      name: 'Restart',
      host: sshd.host,
      port,
      user: sshd.user,
      keyPath: sshd.clientKeyPath,
      localDir,
      remoteDir,
      connections: 1,
      channels: 2,
    });
    await app.startConnect('Restart');
    await app.waitForRemoteListing(remoteDir);
    await app.dropOsFiles(files);
    const done = (e: TestEngine): number => e.service.jobs().filter((j) => j.state === 'done').length;
    const running = engine;
    await expect.poll(() => done(running), { intervals: [50], timeout: 30_000 }).toBeGreaterThanOrEqual(1);
    const doneBefore = done(running);
    expect(doneBefore, 'restarted mid-queue').toBeLessThan(40);

    // The app quits and starts again: a new service on the same data folder, the window reloaded.
    await harness.stop();
    engine = await restartTestEngine(engine);
    harness = await startHarness({ service: engine.service });
    app = new SluicePage(page, harness);
    await app.open();
    await expect(app.queue.getByLabel('Jobs total')).toHaveText('40 jobs');
    const doneAfter = Number((await app.queue.getByLabel('Done jobs').textContent())!.split(' ')[0]);
    expect(doneAfter, 'what was done before the restart is still done').toBeGreaterThanOrEqual(doneBefore);
    await expect(app.jobRow(batch)).toHaveAttribute('data-state', 'running', { timeout: 30_000 });
    // The run took up what the first service left: the row says how much of the batch was done then.
    const note = app.jobRow(batch).getByRole('note', { name: `${batch} resumed` });
    await expect(note).toHaveText(/^resumed from \d+(\.\d)? MiB$/);
    const resumedMiB = Number(/(\d+(?:\.\d)?) MiB/.exec((await note.textContent())!)![1]);
    expect(resumedMiB, 'the files done before the restart').toBeGreaterThanOrEqual(doneBefore);
    await app.expandBatch(batch);
    // Files end in an order the engine chooses: some file the first service finished shows done.
    await expect(app.queue.locator('[aria-roledescription="file"][data-file-state="done"]').first()).toBeVisible();
    await app.screenshot('queue-resumed');

    await toxi.removeToxic(FRONT_PROXY, 'bandwidth_upstream');
    await app.waitForJobState(batch, 'done', 60_000);
    await expect(app.queue.getByLabel('Failed jobs')).toHaveText('0 failed');
    for (const f of files)
      expect(sha256File(path.join(remoteDir, path.basename(f))), path.basename(f)).toBe(sha256File(f));
    await expect
      .poll(() => fs.readdirSync(remoteDir).filter((n) => n.includes('.sluice-')), {
        message: 'no temporary file left',
      })
      .toEqual([]);
  } finally {
    await harness?.stop();
    await engine?.close();
    await toxi.stop();
    await sshd.stop();
  }
});
