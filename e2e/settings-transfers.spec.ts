/**
 * Settings → Transfers (issue #23 item 22) against the real service and a private sshd: the defaults are stored and
 * used by the app's transfers (a site without its own pool opens the chosen connections; an existing target is
 * skipped without a dialog; permission bits are kept; the speed limit is the status bar's), and every date the app
 * shows is in the user's locale, one format (de-DE here: the file list, the known-hosts list, the log).
 * Each test has its own remote folder (exists.txt) and local folder (exists.txt of 5 March 2024, run.sh mode 0777);
 * the tests of what the defaults do save them through the service and connect a site without its own pool.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { emptyDir } from './harness/files';
import { expect, test } from './harness/test';

const MiB = 1048576;
test.use({ locale: 'de-DE', timezoneId: 'UTC' });

let remoteDir = '';

test.beforeEach(async ({ sshd, localDir }) => {
  remoteDir = emptyDir(path.join(sshd.root, 'defaults'));
  fs.writeFileSync(path.join(remoteDir, 'exists.txt'), 'old');
  fs.writeFileSync(path.join(localDir, 'exists.txt'), 'new content');
  const when = new Date(Date.UTC(2024, 2, 5, 6, 7, 0));
  fs.utimesSync(path.join(localDir, 'exists.txt'), when, when);
  fs.writeFileSync(path.join(localDir, 'run.sh'), '#!/bin/sh\n');
  fs.chmodSync(path.join(localDir, 'run.sh'), 0o777);
});

test("transfer defaults: a bad speed limit refused; saved, stored by the service and the status bar's limit", async ({
  app,
  engine,
  page,
}) => {
  await app.open();
  await page.getByRole('toolbar', { name: 'Main toolbar' }).getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  const form = dialog.getByRole('form', { name: 'Transfer defaults' });
  await expect(form.getByLabel('When a file exists')).toHaveValue('ask');
  await expect(form.getByLabel('Keep modification times')).toBeChecked();
  await expect(form.getByLabel(/Keep permissions/)).not.toBeChecked();
  await form.getByLabel('Connections per site').selectOption('2');
  await form.getByLabel('Channels per connection').selectOption('1');
  await form.getByLabel('When a file exists').selectOption('skip');
  await form.getByLabel('Verify each file').selectOption('sha256');
  await form.getByLabel(/Keep permissions/).check();
  await form.getByLabel('Speed limit (MiB/s)').fill('ten');
  await expect(form.getByRole('alert')).toContainText('Speed limit must be a number of MiB/s');
  await expect(form.getByRole('button', { name: 'Save transfer defaults' })).toBeDisabled();
  await form.getByLabel('Speed limit (MiB/s)').fill('50');
  await form.getByRole('button', { name: 'Save transfer defaults' }).click();
  await expect(form.getByRole('status')).toHaveText('Saved: new connections and the next transfers use them.');
  await app.screenshot('settings-transfers');
  await page.setViewportSize({ width: 1024, height: 700 });
  await form.getByRole('button', { name: 'Save transfer defaults' }).scrollIntoViewIfNeeded();
  await expect(form.getByRole('button', { name: 'Save transfer defaults' })).toBeInViewport({ ratio: 1 });
  await app.screenshot('settings-transfers-1024x700');
  await page.setViewportSize({ width: 1400, height: 900 });
  await dialog.getByRole('button', { name: 'Close' }).click();
  const got = await engine.service.invoke('settings.get', undefined);
  expect(got.ok && got.value.transfers).toEqual({
    connections: 2,
    channels: 1,
    conflict: 'skip',
    verify: 'sha256',
    preserveTimes: true,
    preservePermissions: true,
  });
  expect(got.ok && got.value.speedLimit).toBe(50 * MiB);
  await expect(app.statusBar.getByLabel('Speed limit')).toHaveValue(String(50 * MiB));
});

test.describe('with the defaults saved (2 × 1, skip, sha256, permissions kept, 50 MiB/s)', () => {
  test.beforeEach(async ({ app, sshd, engine, localDir }) => {
    const saved = await engine.service.invoke('settings.set', {
      transfers: {
        connections: 2,
        channels: 1,
        conflict: 'skip',
        verify: 'sha256',
        preserveTimes: true,
        preservePermissions: true,
      },
      speedLimit: 50 * MiB,
    });
    expect(saved.ok).toBe(true);
    await app.open();
    await app.createSite({
      name: 'Defaults',
      host: sshd.host,
      port: sshd.port,
      user: sshd.user,
      keyPath: sshd.clientKeyPath,
      localDir,
      remoteDir,
    });
    await app.startConnect('Defaults');
    await app.answerUnknownHostKey('Accept and save');
    await app.waitForRemoteListing(remoteDir);
  });

  test('a site without its own pool opens the default 2 connections × 1 channel', async ({ app }) => {
    await expect(app.statusBar.getByLabel('Connections')).toHaveText('2/2');
    await expect(app.statusBar.getByLabel('Pool').getByLabel(/^Connection \d up, 1 SFTP channels$/)).toHaveCount(2);
  });

  test('an existing target is skipped without asking', async ({ app }) => {
    await app.localRow('exists.txt').click();
    await app.localPane.getByRole('button', { name: 'Local: upload' }).click();
    await app.waitForJobState('exists.txt', 'done');
    await expect(app.conflictDialog).toHaveCount(0);
    expect(fs.readFileSync(path.join(remoteDir, 'exists.txt'), 'utf8')).toBe('old');
  });

  test('the permission bits are kept exactly (0777, not 0755 by the umask)', async ({ app }) => {
    await app.localRow('run.sh').click();
    await app.localPane.getByRole('button', { name: 'Local: upload' }).click();
    await app.waitForJobState('run.sh', 'done');
    expect(fs.statSync(path.join(remoteDir, 'run.sh')).mode & 0o777).toBe(0o777);
  });

  test("dates: the file list, the known-hosts list and the log in de-DE's own format", async ({ app, page }) => {
    await expect(app.localRow('exists.txt')).toContainText('05.03.2024, 06:07');
    await expect(app.log).toContainText(/^\d{2}:\d{2}:\d{2} INFO/);
    await page.getByRole('toolbar', { name: 'Main toolbar' }).getByRole('button', { name: 'Known hosts' }).click();
    const known = page.getByRole('dialog', { name: /Known hosts/ });
    await expect(
      known
        .locator('td')
        .filter({ hasText: /^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}$/ })
        .first(),
    ).toBeVisible();
    await expect(known).not.toContainText('UTC');
  });
});
