/**
 * A long batch does not hide the rest of the queue (#29.6), against the real engine and sshd: an expanded 300-file
 * batch lists its files in a bounded box that scrolls on its own (the batch queued after it stays in view), folds when
 * it is done, and each newly added job is scrolled into view. Each test connects a fresh app, drops the 300 files at
 * 1 MiB/s, queues one more file after them and expands the batch.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { emptyDir, writeRandomFile } from './harness/files';
import type { SluicePage } from './pages/SluicePage';

const batch = 'f0000.bin and 299 more';
const singles = Array.from({ length: 12 }, (_, i) => `single-${String(i).padStart(2, '0')}.txt`);

test.beforeEach(async ({ app, sshd, engine, localDir }) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  const files = Array.from({ length: 300 }, (_, i) =>
    writeRandomFile(path.join(localDir, 'many', `f${String(i).padStart(4, '0')}.bin`), 16 * 1024),
  );
  for (const name of singles) fs.writeFileSync(path.join(localDir, name), name);
  const remoteDir = emptyDir(path.join(sshd.root, 'long-batch'));

  await app.open();
  await app.createSite({
    name: 'Long',
    host: sshd.host,
    port: sshd.port,
    user: sshd.user,
    keyPath: sshd.clientKeyPath,
    localDir,
    remoteDir,
  });
  await app.startConnect('Long');
  await app.waitForRemoteListing(remoteDir);
  await app.statusBar.getByLabel('Speed limit').selectOption({ label: '1.0 MiB/s' });
  await app.dropOsFiles(files);
  await app.waitForJobState(batch, 'running');
  await app.localRow(singles[0]).click();
  await app.localPane.getByRole('button', { name: 'Local: upload' }).click();
  await expect(app.jobRow(singles[0])).toBeVisible();
  await app.expandBatch(batch);
});

/** Lifts the speed limit and waits until the batch is done. */
async function batchDone(app: SluicePage): Promise<void> {
  await app.statusBar.getByLabel('Speed limit').selectOption({ label: 'unlimited' });
  await app.waitForJobState(batch, 'done', 90_000);
}

test('expanded while it runs: a box of at most 8 lines; the job queued after it is still in view', async ({ app }) => {
  const box = app.queue.getByRole('list', { name: `Files of ${batch}` });
  await expect(box.getByRole('listitem').first()).toBeVisible();
  expect((await box.boundingBox())!.height).toBeLessThanOrEqual(8 * 24 + 2);
  await expect(app.jobRow(singles[0])).toBeInViewport();
  await expect(app.queue.getByLabel('Jobs total')).toHaveText('301 jobs');
  await app.screenshot('queue-long-batch-expanded');
});

test('done, the expanded batch folds by itself', async ({ app }) => {
  const box = app.queue.getByRole('list', { name: `Files of ${batch}` });
  await expect(box.getByRole('listitem').first()).toBeVisible();
  await batchDone(app);
  await expect(app.jobRow(batch)).toHaveAttribute('aria-expanded', 'false');
  await expect(box).toHaveCount(0);
});

test('each new job comes into view, however many rows came before it', async ({ app, page }) => {
  await batchDone(app);
  for (const name of singles.slice(1)) {
    await app.localRow(name).click();
    await app.localPane.getByRole('button', { name: 'Local: upload' }).click();
    await expect(app.jobRow(name)).toBeInViewport();
  }
  await app.waitForDoneCount(312);
  await page.setViewportSize({ width: 1024, height: 700 });
  await expect(app.jobRow(singles[singles.length - 1])).toBeVisible();
});
