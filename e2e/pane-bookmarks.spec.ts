/**
 * Directory bookmarks and synchronized browsing (#26 item 3) against the real engine and sshd: a folder bookmarked
 * from the pane's Bookmarks menu, kept with the site, going there from the menu, removed again; synchronized
 * browsing pairing the two folders shown, the local pane following the remote one into a sub-folder and up (and the
 * reverse), and a folder missing locally saying so and switching the mode off.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { emptyDir } from './harness/files';

test.describe('bookmarks and synchronized browsing', () => {
  let root = '';
  let local = '';

  test.beforeEach(async ({ app, sshd, engine, localDir }) => {
    fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
    root = emptyDir(path.join(sshd.root, 'site'));
    local = path.join(localDir, 'site');
    for (const d of ['css/img', 'js', 'docs/a']) fs.mkdirSync(path.join(root, d), { recursive: true });
    for (const d of ['css/img', 'docs/a']) fs.mkdirSync(path.join(local, d), { recursive: true });
    fs.writeFileSync(path.join(root, 'index.html'), '<html>\n');
    await app.open();
    await app.createSite({
      name: 'Web',
      host: sshd.host,
      port: sshd.port,
      user: sshd.user,
      keyPath: sshd.clientKeyPath,
      localDir: local,
      remoteDir: root,
    });
    await app.startConnect('Web');
    await app.waitForRemoteListing(root);
  });

  test('a remote folder bookmarked, kept with the site, opened from the menu and removed', async ({
    app,
    page,
    engine,
  }) => {
    const button = app.remotePane.getByRole('button', { name: 'Remote: bookmarks' });
    const menu = page.getByRole('menu', { name: 'Remote bookmarks' });
    const img = path.join(root, 'css', 'img');
    await app.remoteRow('css').dblclick();
    await app.waitForRemoteListing(path.join(root, 'css'));
    await app.remoteRow('img').dblclick();
    await app.waitForRemoteListing(img);
    await button.click();
    await expect(menu.getByRole('menuitem', { name: 'No bookmarks yet' })).toBeVisible();
    await menu.getByRole('menuitem', { name: 'Bookmark this folder' }).click();
    await expect(menu).toBeHidden();

    await app.localPane.getByRole('button', { name: 'Local: bookmarks' }).click();
    await page
      .getByRole('menu', { name: 'Local bookmarks' })
      .getByRole('menuitem', { name: 'Bookmark this folder' })
      .click();
    const sites = await engine.service.invoke('sites.list', undefined);
    const siteId = sites.ok ? sites.value.sites[0].id : '';
    const saved = await engine.service.invoke('bookmarks.list', { siteId });
    expect(saved.ok && saved.value).toEqual([
      { side: 'remote', path: img },
      { side: 'local', path: local },
    ]);

    await app.remotePane.getByRole('button', { name: 'Remote: up one folder' }).click();
    await app.waitForRemoteListing(path.join(root, 'css'));
    await app.remotePane.getByRole('button', { name: 'Remote: up one folder' }).click();
    await app.waitForRemoteListing(root);
    await button.click();
    await expect(menu.getByRole('menuitem', { name: img })).toBeVisible();
    await app.screenshot('pane-bookmarks');
    await menu.getByRole('menuitem', { name: img }).click();
    await app.waitForRemoteListing(img);

    await button.click();
    await menu.getByRole('menuitem', { name: "Remove this folder's bookmark" }).click();
    await button.click();
    await expect(menu.getByRole('menuitem', { name: 'No bookmarks yet' })).toBeVisible();
    await expect(menu.getByRole('menuitem', { name: 'Bookmark this folder' })).toBeVisible();
    await page.keyboard.press('Escape');
    const after = await engine.service.invoke('bookmarks.list', { siteId });
    expect(after.ok && after.value).toEqual([{ side: 'local', path: local }]);
  });

  test('synchronized browsing: the local pane follows the remote one and back; a folder missing locally turns it off', async ({
    app,
    page,
  }) => {
    const toggle = app.remotePane.getByRole('button', { name: 'Synchronized browsing' });
    await expect(app.localPane).toHaveAttribute('data-path', local);
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-pressed', 'true');

    await app.remoteRow('css').dblclick();
    await app.waitForRemoteListing(path.join(root, 'css'));
    await expect(app.localPane).toHaveAttribute('data-path', path.join(local, 'css'));
    await app.remoteRow('img').dblclick();
    await expect(app.localPane).toHaveAttribute('data-path', path.join(local, 'css', 'img'));
    await app.screenshot('pane-sync-browsing');
    await app.remoteGrid.focus();
    await page.keyboard.press('Backspace');
    await expect(app.localPane).toHaveAttribute('data-path', path.join(local, 'css'));
    await page.keyboard.press('Backspace');
    await expect(app.localPane).toHaveAttribute('data-path', local);
    await app.waitForRemoteListing(root);

    // The reverse: the local pane moves, the remote one follows.
    await app.localRow('docs').dblclick();
    await expect(app.localPane).toHaveAttribute('data-path', path.join(local, 'docs'));
    await app.waitForRemoteListing(path.join(root, 'docs'));
    await app.localRow('a').dblclick();
    await app.waitForRemoteListing(path.join(root, 'docs', 'a'));
    await app.localGrid.focus();
    await page.keyboard.press('Backspace');
    await app.waitForRemoteListing(path.join(root, 'docs'));
    await page.keyboard.press('Backspace');
    await app.waitForRemoteListing(root);
    await expect(app.localPane).toHaveAttribute('data-path', local);

    // js/ exists only on the server: the remote pane goes there, the mode says why it stops.
    await app.remoteRow('js').dblclick();
    await app.waitForRemoteListing(path.join(root, 'js'));
    await expect(toggle).toHaveAttribute('aria-pressed', 'false');
    await expect(page.getByRole('region', { name: 'Log' })).toContainText(
      `Synchronized browsing is off: local folder ${path.join(local, 'js')} is missing`,
    );
    await expect(app.localPane).toHaveAttribute('data-path', local);
    await app.remotePane.getByRole('button', { name: 'Remote: up one folder' }).click();
    await app.waitForRemoteListing(root);
    await app.remoteRow('css').dblclick();
    await app.waitForRemoteListing(path.join(root, 'css'));
    await expect(app.localPane).toHaveAttribute('data-path', local);
  });
});
