/**
 * A pane has one current folder, the one the user sees (#29.1): a folder that fails to open shows its error beside the
 * listing that stays, the breadcrumbs, the item count, Up and an upload all still mean that folder.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';

test('a folder that fails to open leaves the pane where it was: listing, breadcrumbs, Up and uploads', async ({
  app,
  sshd,
  engine,
  localDir,
  page,
}) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  const srv = path.join(sshd.root, 'pane-folder', 'srv');
  fs.mkdirSync(path.join(srv, 'gone'), { recursive: true });
  fs.writeFileSync(path.join(srv, 'alpha.txt'), 'alpha');
  fs.writeFileSync(path.join(localDir, 'up.txt'), 'uploaded');

  await app.open();
  await app.createSite({
    name: 'Folder',
    host: sshd.host,
    port: sshd.port,
    user: sshd.user,
    keyPath: sshd.clientKeyPath,
    localDir,
    remoteDir: srv,
  });
  await app.startConnect('Folder');
  await app.waitForRemoteListing(srv);
  await expect(app.remotePane).toContainText('2 items');

  // The folder goes away behind the listing's back: opening it fails.
  fs.rmdirSync(path.join(srv, 'gone'));
  await app.remoteRow('gone').dblclick();
  const error = app.remotePane.getByRole('alert', { name: 'Remote error' });
  await expect(error).toContainText(path.join(srv, 'gone'));
  await expect(error).toContainText('no such file');
  await expect(app.remotePane).toHaveAttribute('data-loading', 'false');
  await expect(app.remotePane).toHaveAttribute('data-path', srv);
  await expect(app.remoteRow('alpha.txt')).toBeVisible();
  await expect(
    app.remotePane.getByRole('navigation', { name: 'Remote path' }).locator('[aria-current="location"]'),
  ).toHaveText('srv');
  await expect(app.remotePane).toContainText('2 items');
  await app.screenshot('pane-folder-open-failed');

  // An upload now goes to the folder shown, not to the one that failed.
  await app.localRow('up.txt').click();
  await app.localPane.getByRole('button', { name: 'Local: upload' }).click();
  await app.waitForJobState('up.txt', 'done');
  expect(fs.readFileSync(path.join(srv, 'up.txt'), 'utf8')).toBe('uploaded');
  expect(fs.existsSync(path.join(srv, 'gone'))).toBe(false);

  // Up goes one level up from the folder shown, with the folder we came from selected; the error is gone.
  await app.remoteGrid.focus();
  await page.keyboard.press('Backspace');
  await app.waitForRemoteListing(path.dirname(srv));
  await expect(app.remoteRow('srv')).toHaveAttribute('aria-selected', 'true');
  await expect(error).toBeHidden();
});
