/**
 * Editing a remote file (#26 item 1) against the real engine and sshd, started as a user does: the remote pane's
 * context menu "Edit" or F4 on the selected file (a folder or several files: Edit is disabled, F4 does nothing). The
 * "Open files" list then shows the edit's line; a save shows "uploaded at"; a remote file changed meanwhile shows the
 * conflict and its three answers, and Overwrite sends the save; Close removes the line. (The harness's service has no
 * editor to start: the spec saves into the private copy as an editor would.)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { emptyDir } from './harness/files';
import type { TestEngine } from './harness/engine';

/** The private copy of the edit of `remote`, from the service's list. */
async function localCopyOf(engine: TestEngine, remote: string): Promise<string> {
  const list = await engine.service.invoke('edit.list', undefined);
  const view = list.ok ? list.value.find((v) => v.remotePath === remote) : undefined;
  expect(view, `an edit of ${remote}`).toBeTruthy();
  return view!.localPath;
}

test.describe('editing a remote file', () => {
  let srv = '';
  let remote = '';

  test.beforeEach(async ({ app, sshd, engine, localDir }) => {
    fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
    srv = emptyDir(path.join(sshd.root, 'edit'));
    fs.mkdirSync(path.join(srv, 'folder'));
    remote = path.join(srv, 'notes.txt');
    fs.writeFileSync(remote, 'first\n');
    fs.writeFileSync(path.join(srv, 'other.txt'), 'other\n');
    await app.open();
    await expect(app.page.getByRole('region', { name: 'Open files' })).toHaveCount(0);
    await app.createSite({
      name: 'Edit',
      host: sshd.host,
      port: sshd.port,
      user: sshd.user,
      keyPath: sshd.clientKeyPath,
      localDir,
      remoteDir: srv,
    });
    await app.startConnect('Edit');
    await app.waitForRemoteListing(srv);
  });

  test("the menu's Edit: editing, uploaded at, a conflict answered with Overwrite, closed", async ({ app, engine }) => {
    const menu = app.page.getByRole('menu', { name: 'Remote files menu' });
    await app.remoteRow('notes.txt').click({ button: 'right' });
    await menu.getByRole('menuitem', { name: /^Edit/ }).click();
    const line = app.page.getByRole('group', { name: `Edited file ${remote}` });
    await expect(line).toContainText(`${remote} — editing`);
    await app.screenshot('open-files-edit');
    const localPath = await localCopyOf(engine, remote);

    fs.writeFileSync(localPath, 'second, saved in the editor\n');
    await expect(line).toHaveAttribute('data-state', 'uploaded');
    await expect(line).toContainText(/uploaded at \d/);
    expect(fs.readFileSync(remote, 'utf8')).toBe('second, saved in the editor\n');

    fs.writeFileSync(remote, 'changed on the server by someone else\n');
    fs.writeFileSync(localPath, 'third\n');
    await expect(line).toHaveAttribute('data-state', 'conflict');
    await expect(line).toContainText('changed on the server: not uploaded');
    for (const label of ['Overwrite', 'Save as new name', 'Reopen'])
      await expect(line.getByRole('button', { name: label })).toBeVisible();
    expect(fs.readFileSync(remote, 'utf8')).toBe('changed on the server by someone else\n');
    await app.screenshot('open-files-conflict');
    // Closing a file whose save is not on the server takes a second click, named for what it loses.
    await line.getByRole('button', { name: 'Close', exact: true }).click();
    await expect(line.getByRole('button', { name: 'Close anyway (the save is lost)' })).toBeVisible();
    expect(fs.existsSync(localPath)).toBe(true);

    await line.getByRole('button', { name: 'Overwrite' }).click();
    await expect(line).toHaveAttribute('data-state', 'uploaded');
    expect(fs.readFileSync(remote, 'utf8')).toBe('third\n');

    await line.getByRole('button', { name: 'Close', exact: true }).click();
    await expect(line).toHaveCount(0);
    expect(fs.existsSync(path.dirname(localPath))).toBe(false);
  });

  test('F4 edits the selected file; on a folder or with two files selected F4 does nothing and Edit is disabled', async ({
    app,
    page,
  }) => {
    const menu = page.getByRole('menu', { name: 'Remote files menu' });
    const lines = page.getByRole('region', { name: 'Open files' }).getByRole('group');
    await app.remoteRow('folder').click();
    await page.keyboard.press('F4');
    await app.remoteRow('folder').click({ button: 'right' });
    await expect(menu.getByRole('menuitem', { name: /^Edit/ })).toHaveAttribute('aria-disabled', 'true');
    await page.keyboard.press('Escape');
    await app.remoteRow('notes.txt').click();
    await app.remoteRow('other.txt').click({ modifiers: ['Control'] });
    await page.keyboard.press('F4');
    await app.remoteRow('other.txt').click({ button: 'right' });
    await expect(menu.getByRole('menuitem', { name: /^Edit/ })).toHaveAttribute('aria-disabled', 'true');
    await page.keyboard.press('Escape');
    await expect(lines).toHaveCount(0);

    await app.remoteRow('other.txt').click();
    await page.keyboard.press('F4');
    const other = path.join(srv, 'other.txt');
    await expect(page.getByRole('group', { name: `Edited file ${other}` })).toContainText(`${other} — editing`);
    await expect(lines).toHaveCount(1);
  });

  test('Clear finished closes the files whose saves are on the server and removes their private copies', async ({
    app,
    page,
    engine,
  }) => {
    const region = page.getByRole('region', { name: 'Open files' });
    const clear = region.getByRole('button', { name: /^Clear finished/ });
    await app.remoteRow('notes.txt').click();
    await page.keyboard.press('F4');
    const other = path.join(srv, 'other.txt');
    await app.remoteRow('other.txt').click();
    await page.keyboard.press('F4');
    const notesLine = page.getByRole('group', { name: `Edited file ${remote}` });
    const otherLine = page.getByRole('group', { name: `Edited file ${other}` });
    await expect(otherLine).toContainText('editing');
    await expect(clear).toHaveCount(0);
    const notesCopy = await localCopyOf(engine, remote);
    fs.writeFileSync(notesCopy, 'saved and sent\n');
    await expect(notesLine).toHaveAttribute('data-state', 'uploaded');
    await expect(clear).toHaveText('Clear finished (1)');
    await clear.click();
    await expect(notesLine).toHaveCount(0);
    expect(fs.existsSync(path.dirname(notesCopy))).toBe(false);
    await expect(otherLine).toContainText('editing');
    await expect(clear).toHaveCount(0);
    expect(fs.readFileSync(remote, 'utf8')).toBe('saved and sent\n');
  });
});
