/**
 * A pane's navigation (#26 item 3) against the real engine and sshd: the typed path (Ctrl+L or the pencil beside the
 * breadcrumbs; Enter goes, Escape cancels; a path that cannot be listed shows the server's error and keeps the
 * folder), Back/Forward through the folders visited (Alt+←/Alt+→ and the header's buttons), Backspace to the parent.
 * Each test connects a fresh app to its own remote folder (a/, a/b/, notes.txt).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { emptyDir } from './harness/files';

test.describe('pane navigation', () => {
  let root = '';
  let a = '';
  let b = '';

  test.beforeEach(async ({ app, sshd, engine, localDir }) => {
    fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
    root = emptyDir(path.join(sshd.root, 'nav'));
    a = path.join(root, 'a');
    b = path.join(a, 'b');
    fs.mkdirSync(b, { recursive: true });
    fs.writeFileSync(path.join(root, 'notes.txt'), 'notes\n');
    await app.open();
    await app.createSite({
      name: 'Nav',
      host: sshd.host,
      port: sshd.port,
      user: sshd.user,
      keyPath: sshd.clientKeyPath,
      localDir,
      remoteDir: root,
    });
    await app.startConnect('Nav');
    await app.waitForRemoteListing(root);
  });

  test('Ctrl+L: the path field holds the folder; a typed path and Enter go there; Escape cancels', async ({
    app,
    page,
  }) => {
    const field = app.remotePane.getByRole('textbox', { name: 'Remote path' });
    await app.remoteGrid.focus();
    await page.keyboard.press('Control+L');
    await expect(field).toBeFocused();
    await expect(field).toHaveValue(root);
    await field.fill(b);
    await app.screenshot('pane-path-field');
    await page.keyboard.press('Enter');
    await app.waitForRemoteListing(b);
    await expect(field).toHaveCount(0);
    await expect(app.remoteGrid).toBeFocused();

    await app.remotePane.getByRole('button', { name: 'Remote: type a path' }).click();
    await expect(field).toBeFocused();
    await field.fill(root);
    await page.keyboard.press('Escape');
    await expect(field).toHaveCount(0);
    await expect(app.remoteGrid).toBeFocused();
    await expect(app.remotePane).toHaveAttribute('data-path', b);
  });

  test("a path that cannot be listed: the server's error, the folder kept, the field open to fix it", async ({
    app,
    page,
  }) => {
    const field = app.remotePane.getByRole('textbox', { name: 'Remote path' });
    const missing = path.join(root, 'no-such-folder');
    await app.remoteGrid.focus();
    await page.keyboard.press('Control+L');
    await field.fill(missing);
    await page.keyboard.press('Enter');
    await expect(app.remotePane.getByRole('alert', { name: 'Remote error' })).toContainText(/no such file/i);
    await expect(app.remotePane).toHaveAttribute('data-path', root);
    await expect(app.remoteRow('notes.txt')).toBeVisible();
    await expect(field).toHaveValue(missing);
    await field.fill(a);
    await page.keyboard.press('Enter');
    await app.waitForRemoteListing(a);
    await expect(app.remotePane.getByRole('alert', { name: 'Remote error' })).toHaveCount(0);
  });

  test('Back and Forward walk the folders visited (Alt+←/Alt+→ and the buttons); Backspace goes to the parent', async ({
    app,
    page,
  }) => {
    const back = app.remotePane.getByRole('button', { name: 'Remote: back' });
    const forward = app.remotePane.getByRole('button', { name: 'Remote: forward' });
    await expect(back).toBeDisabled();
    await expect(forward).toBeDisabled();
    await expect(back).toHaveAttribute('title', 'Back (Alt+←)');
    await expect(forward).toHaveAttribute('title', 'Forward (Alt+→)');
    await app.remoteRow('a').dblclick();
    await app.waitForRemoteListing(a);
    await app.remoteRow('b').dblclick();
    await app.waitForRemoteListing(b);
    await app.remoteGrid.focus();
    await page.keyboard.press('Alt+ArrowLeft');
    await app.waitForRemoteListing(a);
    await page.keyboard.press('Alt+ArrowLeft');
    await app.waitForRemoteListing(root);
    await expect(back).toBeDisabled();
    await page.keyboard.press('Alt+ArrowRight');
    await app.waitForRemoteListing(a);
    await forward.click();
    await app.waitForRemoteListing(b);
    await expect(forward).toBeDisabled();
    await back.click();
    await app.waitForRemoteListing(a);
    await expect(forward).toBeEnabled();

    // Backspace: the parent, a visit like any other (what was ahead is dropped).
    await app.remoteGrid.focus();
    await page.keyboard.press('Backspace');
    await app.waitForRemoteListing(root);
    await expect(app.remoteRow('a')).toHaveAttribute('aria-selected', 'true');
    await expect(forward).toBeDisabled();
    await back.click();
    await app.waitForRemoteListing(a);
  });
});
