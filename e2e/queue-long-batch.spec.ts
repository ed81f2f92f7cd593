/**
 * A long batch does not hide the rest of the queue (#29.6), against the real engine and sshd: an expanded 300-file
 * batch lists its files in a bounded box that scrolls on its own (the batch queued after it stays in view), folds when
 * it is done, and each newly added job is scrolled into view.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { writeRandomFile } from './harness/files';

test('an expanded 300-file batch stays bounded and folds when done; new jobs are brought into view', async ({ app, sshd, engine, localDir, page }) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  const files = Array.from({ length: 300 }, (_, i) => writeRandomFile(path.join(localDir, 'many', `f${String(i).padStart(4, '0')}.bin`), 16 * 1024));
  const singles = Array.from({ length: 12 }, (_, i) => `single-${String(i).padStart(2, '0')}.txt`);
  for (const name of singles) fs.writeFileSync(path.join(localDir, name), name);
  const remoteDir = path.join(sshd.root, 'long-batch');
  fs.mkdirSync(remoteDir, { recursive: true });

  await app.open();
  await app.createSite({ name: 'Long', host: sshd.host, port: sshd.port, user: sshd.user, keyPath: sshd.clientKeyPath, localDir, remoteDir });
  await app.startConnect('Long');
  await app.waitForRemoteListing(remoteDir);
  await app.statusBar.getByLabel('Speed limit').selectOption({ label: '1.0 MiB/s' });
  const batch = 'f0000.bin and 299 more';
  await app.dropOsFiles(files);
  await app.waitForJobState(batch, 'running');
  await app.localRow(singles[0]).click();
  await app.localPane.getByRole('button', { name: 'Local: upload' }).click();
  await expect(app.jobRow(singles[0])).toBeVisible();

  // Expanded while it runs: a box of at most 8 lines; the job queued after it is still in view.
  await app.expandBatch(batch);
  const box = app.queue.getByRole('list', { name: `Files of ${batch}` });
  await expect(box.getByRole('listitem').first()).toBeVisible();
  expect((await box.boundingBox())!.height).toBeLessThanOrEqual(8 * 24 + 2);
  await expect(app.jobRow(singles[0])).toBeInViewport();
  await expect(app.queue.getByLabel('Jobs total')).toHaveText('301 jobs');
  await app.screenshot('queue-long-batch-expanded');

  // Done: it folds by itself.
  await app.statusBar.getByLabel('Speed limit').selectOption({ label: 'unlimited' });
  await app.waitForJobState(batch, 'done', 90_000);
  await expect(app.jobRow(batch)).toHaveAttribute('aria-expanded', 'false');
  await expect(box).toHaveCount(0);

  // Each new job comes into view, however many rows came before it.
  for (const name of singles.slice(1)) {
    await app.localRow(name).click();
    await app.localPane.getByRole('button', { name: 'Local: upload' }).click();
    await expect(app.jobRow(name)).toBeInViewport();
  }
  await app.waitForDoneCount(312);
  await page.setViewportSize({ width: 1024, height: 700 });
  await expect(app.jobRow(singles[singles.length - 1])).toBeVisible();
});
