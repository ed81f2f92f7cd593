/**
 * The queue's rows say what a user of FileZilla's queue expects (#23.22): column headers, each row's site and
 * destination, its elapsed time, a failed row's error whole; the footer counts a paused job as paused, not active; a
 * user's pause is logged as what it is (INFO "paused"), not as an orange WARN "transfer interrupted". Each test
 * connects a fresh app to its own remote folder at a 1 MiB/s limit.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { emptyDir, writeRandomFile } from './harness/files';
import type { SluicePage } from './pages/SluicePage';

const MiB = 1024 * 1024;

let remoteDir = '';
let deep = '';

test.beforeEach(async ({ app, sshd, engine, localDir }) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  remoteDir = emptyDir(path.join(sshd.root, 'queue-columns'));
  deep = path.join(
    remoteDir,
    `a-folder-with-a-rather-long-name-${'x'.repeat(60)}`,
    `and-another-long-one-${'y'.repeat(60)}`,
  );
  fs.mkdirSync(deep, { recursive: true });
  fs.writeFileSync(path.join(deep, 'vanishing.txt'), 'soon gone');
  writeRandomFile(path.join(localDir, 'big.bin'), 12 * MiB);

  await app.open();
  await app.createSite({
    name: 'Columns',
    host: sshd.host,
    port: sshd.port,
    user: sshd.user,
    keyPath: sshd.clientKeyPath,
    localDir,
    remoteDir,
  });
  await app.startConnect('Columns');
  await app.waitForRemoteListing(remoteDir);
  await app.statusBar.getByLabel('Speed limit').selectOption({ label: '1.0 MiB/s' });
});

/** Uploads big.bin (12 MiB at 1 MiB/s) and waits until it runs. */
async function uploadBig(app: SluicePage): Promise<void> {
  await app.localRow('big.bin').click();
  await app.localPane.getByRole('button', { name: 'Local: upload' }).click();
  await app.waitForJobState('big.bin', 'running');
}

test("columns, a row's site and destination, its elapsed time while it runs", async ({ app }) => {
  await uploadBig(app);
  const columns = app.queue.locator('.row.columns');
  await expect(columns).toHaveText('NameStateProgressSizeSpeedTimeActions');
  await expect(app.jobRow('big.bin').getByLabel('big.bin site and destination')).toHaveText(`Columns → ${remoteDir}`);
  await expect(app.jobRow('big.bin').getByLabel('big.bin elapsed')).toHaveText(/^0:0[1-9]$/, { timeout: 15_000 });
  await expect(app.jobRow('big.bin').getByLabel('big.bin elapsed')).toBeVisible();
});

test("a user's pause: the job counts as paused, and the log says so plainly", async ({ app }) => {
  await uploadBig(app);
  await app.jobAction('big.bin', 'Pause');
  await app.waitForJobState('big.bin', 'paused');
  await expect(app.queue.getByLabel('Active jobs')).toHaveText('0 active');
  await expect(app.queue.getByLabel('Paused jobs')).toHaveText('1 paused');
  await expect(app.log).toContainText('INFO big.bin: paused');
  await expect(app.log).not.toContainText('transfer interrupted');
  await expect(app.log).not.toContainText('WARN');
});

test("a failed download: its error (the whole path and the server's message) is shown whole, wrapped, not cut", async ({
  app,
  page,
}) => {
  // The pictures show a paused upload above the failed row, as a queue in use does.
  await uploadBig(app);
  await app.jobAction('big.bin', 'Pause');
  await app.waitForJobState('big.bin', 'paused');
  await app.remoteGrid.focus();
  await page.keyboard.press('Home');
  await page.keyboard.press('Enter');
  await app.waitForRemoteListing(path.dirname(deep));
  await page.keyboard.press('Home');
  await page.keyboard.press('Enter');
  await app.waitForRemoteListing(deep);
  await expect(app.remoteRow('vanishing.txt')).toBeVisible();
  fs.unlinkSync(path.join(deep, 'vanishing.txt'));
  await app.remoteRow('vanishing.txt').dblclick();
  await app.waitForJobState('vanishing.txt', 'failed');
  const error = app.jobRow('vanishing.txt').getByRole('note', { name: 'vanishing.txt error' });
  await expect(error).toContainText(path.join(deep, 'vanishing.txt'));
  const box = await error.evaluate((el) => ({
    scroll: el.scrollWidth,
    client: el.clientWidth,
    height: el.clientHeight,
  }));
  expect(box.scroll).toBeLessThanOrEqual(box.client);
  expect(box.height).toBeGreaterThan(20);
  const sizes = [
    { w: 1024, h: 700, shot: 'queue-columns-1024x700' },
    { w: 1400, h: 900, shot: 'queue-columns-1400x900' },
    { w: 1920, h: 1080, shot: 'queue-columns-1920x1080' },
  ] as const;
  for (const { w, h, shot } of sizes) {
    await page.setViewportSize({ width: w, height: h });
    await expect(error).toBeVisible();
    await app.screenshot(shot);
  }
});
