/**
 * The "Open files" list (#26 item 1) against the real engine and sshd: an edit opened through the service shows its
 * line; a save shows "uploaded at"; a remote file changed meanwhile shows the conflict and its three answers, and
 * Overwrite sends the save; Close removes the line. (The pane's Edit entry is not there yet: the spec opens the edit
 * through the service, as the bridge's editOpen does.)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';

test('open files: editing, uploaded at, a conflict answered with Overwrite, closed', async ({
  app,
  sshd,
  engine,
  localDir,
}) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  const srv = path.join(sshd.root, 'edit');
  fs.mkdirSync(srv, { recursive: true });
  const remote = path.join(srv, 'notes.txt');
  fs.writeFileSync(remote, 'first\n');

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
  const sites = await engine.service.invoke('sites.list', undefined);
  const siteId = sites.ok ? sites.value.sites.find((s) => s.name === 'Edit')?.id : undefined;
  expect(siteId).toBeTruthy();

  const opened = await engine.service.invoke('edit.open', { siteId: siteId!, path: remote });
  expect(opened.ok).toBe(true);
  const localPath = opened.ok ? opened.value.localPath : '';
  const line = app.page.getByRole('group', { name: `Edited file ${remote}` });
  await expect(line).toContainText(`${remote} — editing`);

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
