/**
 * Settings → Editing (#26 item 1): the editor command typed, checked as the engine splits it (an unclosed quote is
 * refused before saving), saved, and then used by Edit instead of the system's default application: a stand-in
 * editor (sh copying the file it is given, `{file}` placed by the command) receives the private copy of the remote
 * file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { emptyDir } from './harness/files';

test('the editor command: checked, saved, shown again, and the program Edit starts', async ({
  app,
  page,
  sshd,
  engine,
  localDir,
}) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  const srv = emptyDir(path.join(sshd.root, 'editor'));
  fs.writeFileSync(path.join(srv, 'notes.txt'), 'remote words\n');
  const opened = path.join(localDir, 'opened-by-editor.txt');
  await app.open();

  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  const field = dialog.getByLabel('Editor command');
  const save = dialog.getByRole('form', { name: 'Editing' }).getByRole('button', { name: 'Save editor command' });
  await expect(field).toHaveValue('');
  await expect(field).toHaveAttribute('placeholder', "the system's default application");
  await field.fill('gvim -f "{file}');
  await expect(dialog.getByRole('alert')).toHaveText('The editor command has an unclosed ": gvim -f "{file}');
  await expect(save).toBeDisabled();
  await field.fill(`sh -c 'cp "$0" ${opened}' {file}`);
  await expect(dialog.getByRole('alert')).toHaveCount(0);
  await save.click();
  await expect(dialog.getByRole('form', { name: 'Editing' }).getByRole('status')).toHaveText(
    `Saved: files open for editing with sh -c 'cp "$0" ${opened}' {file}`,
  );
  await app.screenshot('settings-editor');
  await dialog.getByRole('button', { name: 'Close' }).click();
  const settings = await engine.service.invoke('settings.get', undefined);
  expect(settings.ok && settings.value.editorCommand).toBe(`sh -c 'cp "$0" ${opened}' {file}`);

  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(dialog.getByLabel('Editor command')).toHaveValue(`sh -c 'cp "$0" ${opened}' {file}`);
  await dialog.getByRole('button', { name: 'Close' }).click();

  await app.createSite({
    name: 'Editor',
    host: sshd.host,
    port: sshd.port,
    user: sshd.user,
    keyPath: sshd.clientKeyPath,
    localDir,
    remoteDir: srv,
  });
  await app.startConnect('Editor');
  await app.waitForRemoteListing(srv);
  await app.remoteRow('notes.txt').click();
  await page.keyboard.press('F4');
  await expect(page.getByRole('group', { name: `Edited file ${path.join(srv, 'notes.txt')}` })).toContainText(
    'editing',
  );
  await expect.poll(() => (fs.existsSync(opened) ? fs.readFileSync(opened, 'utf8') : '')).toBe('remote words\n');
});
