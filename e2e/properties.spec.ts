/**
 * The remote pane's Properties dialog (#26 item 2) against the real sshd: a file's path, type, size and mode shown;
 * a mode changed by the rwx grid (the octal field follows), applied, reopened with the new mode (and the mode checked
 * on disk); a folder's recursion, files only; a link's target; a refusal shows the server's text in the dialog.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './harness/test';
import { emptyDir } from './harness/files';
import { skipBecause } from './harness/skip';
import type { SluicePage } from './pages/SluicePage';

let remoteDir = '';
const modeOf = (p: string): number => fs.statSync(p).mode & 0o7777;

test.beforeEach(async ({ app, sshd, engine, localDir }) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  remoteDir = emptyDir(path.join(sshd.root, 'props'));
  fs.writeFileSync(path.join(remoteDir, 'notes.txt'), 'x'.repeat(2048));
  fs.chmodSync(path.join(remoteDir, 'notes.txt'), 0o644);
  fs.mkdirSync(path.join(remoteDir, 'site', 'css'), { recursive: true });
  fs.writeFileSync(path.join(remoteDir, 'site', 'index.html'), '<p>');
  fs.chmodSync(path.join(remoteDir, 'site', 'index.html'), 0o644);
  fs.chmodSync(path.join(remoteDir, 'site', 'css'), 0o755);
  fs.symlinkSync('notes.txt', path.join(remoteDir, 'latest'));
  await app.open();
  await app.createSite({
    name: 'Props',
    host: sshd.host,
    port: sshd.port,
    user: sshd.user,
    keyPath: sshd.clientKeyPath,
    localDir,
    remoteDir,
  });
  await app.startConnect('Props');
  await app.waitForRemoteListing(remoteDir);
});

/** Opens the Properties dialog of `name` from the remote pane's context menu. */
async function openProperties(app: SluicePage, page: Page, name: string) {
  await app.remoteRow(name).click({ button: 'right' });
  await page
    .getByRole('menu', { name: 'Remote files menu' })
    .getByRole('menuitem', { name: /^Properties…/ })
    .click();
  const dialog = page.getByRole('dialog', { name: `Properties of ${name}` });
  await expect(dialog.getByLabel('Numeric value')).toBeVisible();
  return dialog;
}

test('a file: its properties; the grid changes the mode, Apply, reopened shows it (and the disk has it)', async ({
  app,
  page,
  sshd,
}) => {
  const file = path.join(remoteDir, 'notes.txt');
  let dialog = await openProperties(app, page, 'notes.txt');
  const facts = dialog.getByRole('definition');
  await expect(facts.first()).toHaveText(file);
  await expect(dialog.getByLabel('Properties')).toContainText('File');
  await expect(dialog.getByLabel('Properties')).toContainText('2,048 bytes');
  // Owner and group: the names from the pane's long listing, the ids from the STAT.
  // The sshd runs as the test's user (root), who wrote the file.
  const st = fs.statSync(file);
  await expect(facts.nth(4)).toHaveText(`${sshd.user} (${st.uid})`);
  await expect(facts.nth(5)).toHaveText(`${sshd.user} (${st.gid})`);
  await expect(dialog.getByLabel('Numeric value')).toHaveValue('644');
  await expect(dialog.getByLabel('group read')).toBeChecked();
  await dialog.getByLabel('group write').check();
  await dialog.getByLabel('others read').uncheck();
  await expect(dialog.getByLabel('Numeric value')).toHaveValue('660');
  await app.screenshot('properties-file');
  await dialog.getByRole('button', { name: 'Apply' }).click();
  await expect(dialog).toBeHidden();
  expect(modeOf(file).toString(8)).toBe('660');

  dialog = await openProperties(app, page, 'notes.txt');
  await expect(dialog.getByLabel('Numeric value')).toHaveValue('660');
  await expect(dialog.getByLabel('others read')).not.toBeChecked();
  await dialog.getByLabel('Numeric value').fill('600');
  await expect(dialog.getByLabel('group read')).not.toBeChecked();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  expect(modeOf(file).toString(8)).toBe('660');
});

test('a folder: Alt+Enter; recurse into subfolders, files only', async ({ app, page }) => {
  await app.remoteRow('site').click();
  await page.keyboard.press('Alt+Enter');
  const dialog = page.getByRole('dialog', { name: 'Properties of site' });
  await expect(dialog.getByLabel('Properties')).toContainText('Folder');
  await dialog.getByLabel('Numeric value').fill('600');
  await dialog.getByLabel('Recurse into subfolders').check();
  await dialog.getByLabel('Files only').check();
  await dialog.getByRole('button', { name: 'Apply' }).click();
  await expect(dialog).toBeHidden();
  expect(modeOf(path.join(remoteDir, 'site', 'index.html')).toString(8)).toBe('600');
  expect(modeOf(path.join(remoteDir, 'site', 'css')).toString(8)).toBe('755');
});

test('a link shows its target, read by READLINK', async ({ app, page }) => {
  const dialog = await openProperties(app, page, 'latest');
  await expect(dialog.getByLabel('Properties')).toContainText('Symbolic link');
  await expect(dialog.getByLabel('Properties')).toContainText('notes.txt (file)');
});

test("a refusal shows the server's message in the dialog, and the mode stays", async ({ app, page }) => {
  const file = path.join(remoteDir, 'notes.txt');
  // chattr +i: the file system refuses even root's chmod (EPERM), so the server answers SSH_FX_PERMISSION_DENIED.
  const locked = spawnSync('chattr', ['+i', file], { timeout: 5_000 }).status === 0;
  skipBecause(!locked, 'chattr +i is not available on this file system (needs root and ext4/xfs/btrfs)');
  try {
    const dialog = await openProperties(app, page, 'notes.txt');
    await dialog.getByLabel('owner execute').check();
    await dialog.getByRole('button', { name: 'Apply' }).click();
    await expect(dialog.getByRole('alert')).toHaveText(
      `cannot change the mode of ${file}: permission denied (SSH_FX_PERMISSION_DENIED)`,
    );
    await expect(dialog).toBeVisible();
    await app.screenshot('properties-refused');
    expect(modeOf(file).toString(8)).toBe('644');
  } finally {
    spawnSync('chattr', ['-i', file], { timeout: 5_000 });
  }
});

test('a wide remote pane has Permissions and Owner columns, sortable; a narrow one and the local pane have neither', async ({
  app,
  page,
  sshd,
}) => {
  // The columns need a pane of 680 px or more (a 1920-px window); a narrower pane keeps Name, Size and Modified whole.
  await page.setViewportSize({ width: 1920, height: 1080 });
  const cells = (name: string) => app.remoteRow(name).getByRole('gridcell');
  await expect(cells('notes.txt').nth(3)).toHaveText('-rw-r--r--');
  await expect(cells('site').nth(3)).toHaveText('drwxr-xr-x');
  // The sshd runs as the test's user (root): its `ls -l` lines name the owner and group.
  await expect(cells('notes.txt').nth(4)).toHaveText(`${sshd.user} ${sshd.user}`);
  fs.chmodSync(path.join(remoteDir, 'notes.txt'), 0o600);
  fs.writeFileSync(path.join(remoteDir, 'run.sh'), '#!/bin/sh\n');
  fs.chmodSync(path.join(remoteDir, 'run.sh'), 0o755);
  await app.remotePane.getByRole('button', { name: 'Remote: refresh' }).click();
  await expect(cells('notes.txt').nth(3)).toHaveText('-rw-------');
  const names = () =>
    app.remoteGrid.locator('tbody tr[aria-label]').evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-label')));
  await app.remoteGrid.getByRole('button', { name: 'Sort by Permissions' }).click();
  // The link shows what it names (notes.txt, 600): equal modes go by name.
  expect(await names()).toEqual(['site', 'latest', 'notes.txt', 'run.sh']);
  await app.remoteGrid.getByRole('button', { name: 'Sort by Permissions' }).click();
  expect(await names()).toEqual(['site', 'run.sh', 'notes.txt', 'latest']);
  await expect(app.remoteGrid.getByRole('button', { name: 'Sort by Owner' })).toBeVisible();
  await expect(app.localPane.getByRole('button', { name: 'Sort by Permissions' })).toHaveCount(0);
  await app.screenshot('remote-permission-columns-1920x1080');
  await page.setViewportSize({ width: 1024, height: 700 });
  await expect(app.remoteGrid.getByRole('button', { name: 'Sort by Permissions' })).toBeHidden();
  await expect(app.remoteGrid.getByRole('button', { name: 'Sort by Name' })).toBeVisible();
});
