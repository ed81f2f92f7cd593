/**
 * The remote find (#26 item 5) against the real engine and sshd: opened by F3 from the remote pane, a glob searched
 * from the pane's folder down, the matches listed with their folder, size and date, a symlink loop visited once and
 * said, and Go to opening the match's folder with its row selected; Ctrl+F and the menu open it too.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { emptyDir } from './harness/files';

test.describe('remote find', () => {
  let root = '';

  test.beforeEach(async ({ app, sshd, engine, localDir }) => {
    fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
    root = emptyDir(path.join(sshd.root, 'findme'));
    for (const d of ['logs/2025', 'logs/2026/nov', 'src']) fs.mkdirSync(path.join(root, d), { recursive: true });
    fs.writeFileSync(path.join(root, 'logs', '2025', 'app.log'), 'x'.repeat(2048));
    fs.writeFileSync(path.join(root, 'logs', '2026', 'nov', 'APP.LOG'), 'y');
    fs.writeFileSync(path.join(root, 'logs', '2026', 'nov', 'other.txt'), 'z');
    fs.writeFileSync(path.join(root, 'src', 'main.c'), 'int main;\n');
    fs.symlinkSync('../..', path.join(root, 'logs', '2025', 'back'));
    await app.open();
    await app.createSite({
      name: 'Find',
      host: sshd.host,
      port: sshd.port,
      user: sshd.user,
      keyPath: sshd.clientKeyPath,
      localDir,
      remoteDir: root,
    });
    await app.startConnect('Find');
    await app.waitForRemoteListing(root);
  });

  test('F3: a glob found below the folder, a loop said once, Go to opens the folder with the row selected', async ({
    app,
    page,
  }) => {
    await app.remoteGrid.focus();
    await page.keyboard.press('F3');
    const dialog = page.getByRole('dialog', { name: 'Find remote files' });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByLabel('Find name')).toBeFocused();
    await dialog.getByLabel('Match', { exact: true }).selectOption('glob');
    await dialog.getByLabel('Find name').fill('*.log');
    await page.keyboard.press('Enter');
    const status = dialog.getByRole('status', { name: 'Find status' });
    await expect(status).toHaveText('Done: 2 matches in 6 folders');
    const results = dialog.getByRole('table', { name: 'Find results' });
    await expect(results.getByRole('row', { name: 'app.log', exact: true })).toContainText(
      path.join(root, 'logs', '2025'),
    );
    await expect(results.getByRole('row', { name: 'app.log', exact: true })).toContainText('2.0 KiB');
    await expect(results.getByRole('row', { name: 'APP.LOG', exact: true })).toContainText(
      path.join(root, 'logs', '2026', 'nov'),
    );
    await expect(dialog.getByRole('list', { name: 'Find notes' })).toHaveText(
      `${path.join(root, 'logs', '2025', 'back')}: a symlink loop (it leads to ${root}, a folder above it): visited once`,
    );
    await app.screenshot('remote-find');

    await results.getByRole('row', { name: 'APP.LOG', exact: true }).getByRole('button', { name: 'Go to' }).click();
    await expect(dialog).toBeHidden();
    await app.waitForRemoteListing(path.join(root, 'logs', '2026', 'nov'));
    await expect(app.remoteRow('APP.LOG')).toHaveAttribute('aria-selected', 'true');
    await expect(app.remoteRow('other.txt')).toHaveAttribute('aria-selected', 'false');
    await app.screenshot('remote-find-go-to');
  });

  test('Ctrl+F and the menu open it; case matched when asked; nothing found says so', async ({ app, page }) => {
    await app.remoteGrid.focus();
    await page.keyboard.press('Control+F');
    const dialog = page.getByRole('dialog', { name: 'Find remote files' });
    await dialog.getByLabel('Find name').fill('LOG');
    await dialog.getByLabel('Match case').check();
    await dialog.getByRole('button', { name: 'Find' }).click();
    const status = dialog.getByRole('status', { name: 'Find status' });
    await expect(status).toHaveText('Done: 1 match in 6 folders');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(dialog).toBeHidden();

    await app.remoteRow('src').click({ button: 'right' });
    await page.getByRole('menu', { name: 'Remote files menu' }).getByRole('menuitem', { name: 'Find…' }).click();
    await dialog.getByLabel('Find name').fill('no-such-name');
    await page.keyboard.press('Enter');
    await expect(status).toHaveText('Done: 0 matches in 6 folders');
    await expect(dialog.getByRole('table', { name: 'Find results' })).toHaveCount(0);
  });
});
