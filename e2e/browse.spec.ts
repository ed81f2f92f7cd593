/**
 * File panes against a real sshd: keyboard navigation (arrows, Enter into a folder, Backspace / Alt+Up out) and
 * multi-select, sorting, new folder / rename / delete with confirmation on the remote side, and a download by dragging
 * a remote file to the local pane. Each test connects a fresh app to its own remote folder (big.bin, a.txt, c.txt),
 * listed in the remote pane.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './harness/test';
import { emptyDir, sha256File, writeRandomFile } from './harness/files';
import type { SluicePage } from './pages/SluicePage';

let remoteDir = '';

test.beforeEach(async ({ app, sshd, engine, localDir }) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  remoteDir = emptyDir(path.join(sshd.root, 'browse'));
  writeRandomFile(path.join(remoteDir, 'big.bin'), 3 * 1024 * 1024);
  fs.writeFileSync(path.join(remoteDir, 'a.txt'), 'a');
  fs.writeFileSync(path.join(remoteDir, 'c.txt'), 'ccc');

  await app.open();
  await app.createSite({
    name: 'Browse',
    host: sshd.host,
    port: sshd.port,
    user: sshd.user,
    keyPath: sshd.clientKeyPath,
    localDir,
    remoteDir,
  });
  await app.startConnect('Browse');
  await app.waitForRemoteListing(remoteDir);
});

/** Creates a remote folder through the pane's New folder dialog and waits for its row. */
async function newRemoteFolder(app: SluicePage, page: Page, name: string): Promise<void> {
  await app.remotePane.getByRole('button', { name: 'Remote: new folder' }).click();
  const mkdir = page.getByRole('dialog', { name: 'New remote folder' });
  await mkdir.getByLabel('Folder name').fill(name);
  await mkdir.getByRole('button', { name: 'Create' }).click();
  await expect(app.remoteRow(name)).toHaveAttribute('data-type', 'dir');
}

test('sorting: by size, descending, puts big.bin first; by name again', async ({ app }) => {
  const names = () =>
    app.remoteGrid.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-label')));
  await app.remoteGrid.getByRole('button', { name: 'Sort by Size' }).click();
  await app.remoteGrid.getByRole('button', { name: 'Sort by Size' }).click();
  await expect(app.remoteGrid.getByRole('columnheader', { name: 'Sort by Size' })).toHaveAttribute(
    'aria-sort',
    'descending',
  );
  expect(await names()).toEqual(['big.bin', 'c.txt', 'a.txt']);
  await app.remoteGrid.getByRole('button', { name: 'Sort by Name' }).click();
  expect(await names()).toEqual(['a.txt', 'big.bin', 'c.txt']);
});

test('keyboard: in the focused grid arrows move, shift+arrow extends the selection', async ({ app, page }) => {
  await app.remoteGrid.focus();
  await page.keyboard.press('ArrowDown');
  await expect(app.remoteRow('a.txt')).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Shift+ArrowDown');
  await expect(app.remoteRow('big.bin')).toHaveAttribute('aria-selected', 'true');
  await expect(app.remotePane).toContainText('2 selected');
});

test('new folder: a name with a slash is refused; a good one is made on the server', async ({ app, page }) => {
  await app.remotePane.getByRole('button', { name: 'Remote: new folder' }).click();
  const mkdir = page.getByRole('dialog', { name: 'New remote folder' });
  await mkdir.getByLabel('Folder name').fill('bad/name');
  await expect(mkdir.getByRole('alert')).toHaveText('Name cannot contain / or \\');
  await mkdir.getByLabel('Folder name').fill('reports');
  await mkdir.getByRole('button', { name: 'Create' }).click();
  await expect(app.remoteRow('reports')).toHaveAttribute('data-type', 'dir');
  expect(fs.statSync(path.join(remoteDir, 'reports')).isDirectory()).toBe(true);
});

test('keyboard: Home + Enter opens a folder, Backspace and Alt+Up come back with the folder focused', async ({
  app,
  page,
}) => {
  await newRemoteFolder(app, page, 'reports');
  fs.writeFileSync(path.join(remoteDir, 'reports', 'q1.txt'), 'q1');
  await app.remoteGrid.focus();
  await page.keyboard.press('Home');
  await expect(app.remoteRow('reports')).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await app.waitForRemoteListing(path.join(remoteDir, 'reports'));
  await expect(app.remoteRow('q1.txt')).toBeVisible();
  await expect(app.remoteGrid).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(app.remoteRow('q1.txt')).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Backspace');
  await app.waitForRemoteListing(remoteDir);
  await expect(app.remoteRow('reports')).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await app.waitForRemoteListing(path.join(remoteDir, 'reports'));
  await page.keyboard.press('Alt+ArrowUp');
  await app.waitForRemoteListing(remoteDir);
  await expect(app.remoteRow('reports')).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ArrowDown');
  await expect(app.remoteRow('a.txt')).toHaveAttribute('aria-selected', 'true');
});

test('rename with F2 renames the file on the server', async ({ app, page }) => {
  await app.remoteRow('c.txt').click();
  await page.keyboard.press('F2');
  const rename = page.getByRole('dialog', { name: 'Rename c.txt' });
  await rename.getByLabel('New name').fill('renamed.txt');
  await rename.getByRole('button', { name: 'Rename' }).click();
  await expect(app.remoteRow('renamed.txt')).toBeVisible();
  expect(fs.readFileSync(path.join(remoteDir, 'renamed.txt'), 'utf8')).toBe('ccc');
});

test('delete asks first: Cancel (focused) keeps the file, Delete removes it', async ({ app, page }) => {
  await app.remoteRow('a.txt').click();
  await page.keyboard.press('Delete');
  const confirm = page.getByRole('alertdialog', { name: 'Delete from remote' });
  await expect(confirm.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(confirm).toBeHidden();
  expect(fs.existsSync(path.join(remoteDir, 'a.txt'))).toBe(true);
  await app.remotePane.getByRole('button', { name: 'Remote: delete' }).click();
  await page.getByRole('alertdialog', { name: 'Delete from remote' }).getByRole('button', { name: 'Delete' }).click();
  await expect(app.remoteRow('a.txt')).toHaveCount(0);
  expect(fs.existsSync(path.join(remoteDir, 'a.txt'))).toBe(false);
});

test('download: a remote row dragged to the local pane arrives with the same SHA-256', async ({ app, localDir }) => {
  await app.dragRemoteToLocal('big.bin');
  await app.waitForJobState('big.bin', 'done');
  await expect(app.localRow('big.bin')).toBeVisible();
  expect(sha256File(path.join(localDir, 'big.bin'))).toBe(sha256File(path.join(remoteDir, 'big.bin')));
});
