/**
 * Disconnect while transfers run (#29.3), against the real engine and sshd: it asks first (stay / pause / cancel);
 * Stay changes nothing, Pause pauses the upload (counted as paused) and connecting again resumes it to an identical
 * file, Cancel cancels it and leaves no partial file on the server.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { sha256File, writeRandomFile } from './harness/files';

const MiB = 1024 * 1024;

test('Disconnect asks when transfers run: stay, pause (resumed on connect), cancel (no partial file left)', async ({ app, sshd, engine, localDir }) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  const remoteDir = path.join(sshd.root, 'disconnect');
  fs.mkdirSync(remoteDir, { recursive: true });
  const first = writeRandomFile(path.join(localDir, 'first.bin'), 12 * MiB);
  writeRandomFile(path.join(localDir, 'second.bin'), 12 * MiB);
  const disconnect = app.page.getByRole('toolbar', { name: 'Main toolbar' }).getByRole('button', { name: 'Disconnect' });
  const limit = app.statusBar.getByLabel('Speed limit');
  const title = app.page.getByRole('toolbar', { name: 'Main toolbar' }).getByLabel('Session');

  await app.open();
  await app.createSite({ name: 'Leaving', host: sshd.host, port: sshd.port, user: sshd.user, keyPath: sshd.clientKeyPath, localDir, remoteDir });
  await app.startConnect('Leaving');
  await app.waitForRemoteListing(remoteDir);
  await limit.selectOption({ label: '1.0 MiB/s' });
  await app.localRow('first.bin').click();
  await app.localPane.getByRole('button', { name: 'Local: upload' }).click();
  await app.waitForJobBytes('first.bin', 1);

  // Stay: the default answer (Enter) changes nothing.
  await disconnect.click();
  const ask = app.page.getByRole('dialog', { name: 'Disconnect from Leaving?' });
  await expect(ask).toContainText('1 transfer of Leaving is running or waiting');
  await app.screenshot('disconnect-ask');
  await app.page.keyboard.press('Enter');
  await expect(ask).toBeHidden();
  await expect(app.statusBar.getByLabel('Connected site')).toHaveText('Leaving (connected)');
  await expect(app.jobRow('first.bin')).toHaveAttribute('data-state', 'running');

  // Pause and disconnect: paused, counted as paused; connecting again resumes it.
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

  // Cancel transfers and disconnect: cancelled, nothing partial left behind.
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
