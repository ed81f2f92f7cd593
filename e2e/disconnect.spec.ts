/**
 * Disconnect while transfers run (#29.3), against the real engine and sshd: it asks first (stay / pause / cancel);
 * Stay changes nothing, Pause pauses the upload (counted as paused) and connecting again resumes it to an identical
 * file, Cancel cancels it and leaves no partial file on the server. Each test connects a fresh app and starts an upload
 * of first.bin at 1 MiB/s.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { emptyDir, sha256File, writeRandomFile } from './harness/files';
import type { SluicePage } from './pages/SluicePage';

const MiB = 1024 * 1024;

let remoteDir = '';
let first = '';

test.beforeEach(async ({ app, sshd, engine, localDir }) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  remoteDir = emptyDir(path.join(sshd.root, 'disconnect'));
  first = writeRandomFile(path.join(localDir, 'first.bin'), 12 * MiB);
  writeRandomFile(path.join(localDir, 'second.bin'), 12 * MiB);
  await app.open();
  await app.createSite({
    name: 'Leaving',
    host: sshd.host,
    port: sshd.port,
    user: sshd.user,
    keyPath: sshd.clientKeyPath,
    localDir,
    remoteDir,
  });
  await app.startConnect('Leaving');
  await app.waitForRemoteListing(remoteDir);
  await pieces(app).limit.selectOption({ label: '1.0 MiB/s' });
  await app.localRow('first.bin').click();
  await app.localPane.getByRole('button', { name: 'Local: upload' }).click();
  await app.waitForJobBytes('first.bin', 1);
});

/** The toolbar's Disconnect, the status bar's speed limit, the session title and the dialog Disconnect opens. */
function pieces(app: SluicePage) {
  return {
    disconnect: app.page.getByRole('toolbar', { name: 'Main toolbar' }).getByRole('button', { name: 'Disconnect' }),
    limit: app.statusBar.getByLabel('Speed limit'),
    title: app.page.getByRole('toolbar', { name: 'Main toolbar' }).getByLabel('Session'),
    ask: app.page.getByRole('dialog', { name: 'Disconnect from Leaving?' }),
  };
}

test('Disconnect asks while a transfer runs; Stay, the default answer (Enter), changes nothing', async ({ app }) => {
  const { disconnect, ask } = pieces(app);
  await disconnect.click();
  await expect(ask).toContainText('1 transfer of Leaving is running or waiting');
  await app.screenshot('disconnect-ask');
  await app.page.keyboard.press('Enter');
  await expect(ask).toBeHidden();
  await expect(app.statusBar.getByLabel('Connected site')).toHaveText('Leaving (connected)');
  await expect(app.jobRow('first.bin')).toHaveAttribute('data-state', 'running');
});

test('Pause and disconnect: paused, counted as paused; connecting again resumes it to an identical file', async ({
  app,
}) => {
  const { disconnect, ask, title, limit } = pieces(app);
  await disconnect.click();
  await ask.getByRole('button', { name: 'Pause and disconnect' }).click();
  await app.waitForJobState('first.bin', 'paused');
  await expect(title).toHaveText('No site connected');
  await expect(app.queue.getByLabel('Active jobs')).toHaveText('0 active');
  await expect(app.queue.getByLabel('Paused jobs')).toHaveText('1 paused');
  await limit.selectOption({ label: 'unlimited' });
  await app.startConnect('Leaving');
  await app.waitForJobState('first.bin', 'done');
  expect(sha256File(path.join(remoteDir, 'first.bin'))).toBe(sha256File(first));
});

test('Cancel transfers and disconnect: cancelled, nothing partial left behind (a finished file kept)', async ({
  app,
}) => {
  const { disconnect, ask, title, limit } = pieces(app);
  await limit.selectOption({ label: 'unlimited' });
  await app.waitForJobState('first.bin', 'done');
  await limit.selectOption({ label: '1.0 MiB/s' });
  await app.localRow('second.bin').click();
  await app.localPane.getByRole('button', { name: 'Local: upload' }).click();
  await app.waitForJobBytes('second.bin', 1);
  await disconnect.click();
  await ask.getByRole('button', { name: 'Cancel transfers and disconnect' }).click();
  await app.waitForJobState('second.bin', 'cancelled');
  await expect(title).toHaveText('No site connected');
  expect(fs.readdirSync(remoteDir)).toEqual(['first.bin']);
});
