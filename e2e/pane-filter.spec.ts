/**
 * A pane's filter (#26 item 5, the pane part) against the real engine and sshd: typing in the grid starts the filter
 * (a substring), the count says "2 of 6 shown", Escape clears; a glob with * and ?; the clear button; the selection
 * keeps only the rows shown. Each test connects a fresh app to its own remote folder.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { emptyDir } from './harness/files';

const FILES = ['report-01.csv', 'report-02.csv', 'notes.txt', 'app.log', 'old.log'];

test.describe('pane filter', () => {
  test.beforeEach(async ({ app, sshd, engine, localDir }) => {
    fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
    const root = emptyDir(path.join(sshd.root, 'filter'));
    fs.mkdirSync(path.join(root, 'logs'));
    for (const name of FILES) fs.writeFileSync(path.join(root, name), name);
    await app.open();
    await app.createSite({
      name: 'Filter',
      host: sshd.host,
      port: sshd.port,
      user: sshd.user,
      keyPath: sshd.clientKeyPath,
      localDir,
      remoteDir: root,
    });
    await app.startConnect('Filter');
    await app.waitForRemoteListing(root);
  });

  test('typing in the grid filters by substring; the count says "2 of 6 shown"; Escape clears', async ({
    app,
    page,
  }) => {
    const field = app.remotePane.getByRole('searchbox', { name: 'Remote filter' });
    const count = app.remotePane.locator('.pane-actions .count');
    await expect(count).toHaveText('6 items');
    await app.remoteGrid.focus();
    await page.keyboard.type('REP');
    await expect(field).toBeFocused();
    await expect(field).toHaveValue('REP');
    await expect(app.remoteGrid.getByRole('row')).toHaveText([/^Name/, /^report-01\.csv/, /^report-02\.csv/]);
    await expect(count).toHaveText('2 of 6 shown');
    await app.screenshot('pane-filter');
    await page.keyboard.press('Escape');
    await expect(field).toHaveValue('');
    await expect(app.remoteGrid).toBeFocused();
    await expect(count).toHaveText('6 items');
    await expect(app.remoteRow('notes.txt')).toBeVisible();
  });

  test('* and ? make a glob over the whole name; the clear button shows every row again', async ({ app }) => {
    const field = app.remotePane.getByRole('searchbox', { name: 'Remote filter' });
    const count = app.remotePane.locator('.pane-actions .count');
    await field.fill('*.log');
    await expect(app.remoteGrid.getByRole('row')).toHaveText([/^Name/, /^app\.log/, /^old\.log/]);
    await field.fill('report-0?.csv');
    await expect(count).toHaveText('2 of 6 shown');
    await field.fill('zzz');
    await expect(count).toHaveText('0 of 6 shown');
    await app.remotePane.getByRole('button', { name: 'Remote: clear filter' }).click();
    await expect(field).toHaveValue('');
    await expect(count).toHaveText('6 items');
    await expect(app.remoteRow('logs')).toBeVisible();
  });

  test('the selection keeps only the rows shown', async ({ app, page }) => {
    const field = app.remotePane.getByRole('searchbox', { name: 'Remote filter' });
    const count = app.remotePane.locator('.pane-actions .count');
    await app.remoteGrid.focus();
    await page.keyboard.press('Control+A');
    await expect(count).toHaveText('6 items, 6 selected');
    await field.fill('report');
    await expect(count).toHaveText('2 of 6 shown, 2 selected');
    await field.fill('');
    await expect(count).toHaveText('6 items, 2 selected');
    await expect(app.remoteRow('report-01.csv')).toHaveAttribute('aria-selected', 'true');
    await expect(app.remoteRow('notes.txt')).toHaveAttribute('aria-selected', 'false');
  });
});
