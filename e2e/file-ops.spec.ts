/**
 * The panes' file operations (#26 item 6) against the real sshd and the local disk: a move by dragging rows onto a
 * folder row of the same pane, Cut then Paste into another folder (an existing target asks: Overwrite), Duplicate
 * ("name (copy).ext" by copy-data), New file, New symlink, a name with `/` refused in the dialog before anything is
 * sent, Open with default application (the harness records the path instead of Electron's shell.openPath), and (item
 * 7) both ways between the panes and remote rows dragged out of the window (fetched, then given to the OS drag, which
 * the harness records).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './harness/test';
import { emptyDir, sha256File, writeRandomFile } from './harness/files';

let remoteDir = '';
const opened: string[] = [];
/** What the service gave the OS drag (the harness stands in for Electron's webContents.startDrag). */
const dragged: string[][] = [];
test.use({
  engineOptions: {
    openPath: async (file: string) => {
      opened.push(file);
      return '';
    },
    startDrag: (files: string[]) => void dragged.push(files),
  },
});

test.beforeEach(async ({ app, sshd, engine, localDir }) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  remoteDir = emptyDir(path.join(sshd.root, 'fileops'));
  fs.mkdirSync(path.join(remoteDir, 'archive'));
  fs.writeFileSync(path.join(remoteDir, 'notes.txt'), 'remote notes');
  fs.writeFileSync(path.join(remoteDir, 'plan.txt'), 'the plan');
  fs.writeFileSync(path.join(remoteDir, 'archive', 'plan.txt'), 'an old plan');
  fs.mkdirSync(path.join(localDir, 'docs'));
  fs.writeFileSync(path.join(localDir, 'report.txt'), 'local report');
  await app.open();
  await app.createSite({
    name: 'Files',
    host: sshd.host,
    port: sshd.port,
    user: sshd.user,
    keyPath: sshd.clientKeyPath,
    localDir,
    remoteDir,
  });
  await app.startConnect('Files');
  await app.waitForRemoteListing(remoteDir);
});

/** Runs the item `name` of the context menu of `row` in `pane` (`Remote` or `Local`). */
async function menu(page: Page, pane: 'Remote' | 'Local', row: Locator, name: string | RegExp) {
  await row.click({ button: 'right' });
  await page
    .getByRole('menu', { name: `${pane} files menu` })
    .getByRole('menuitem', { name })
    .click();
}

test('a remote row dragged onto a folder row of the same pane moves into it', async ({ app }) => {
  await app.remoteRow('notes.txt').dragTo(app.remoteRow('archive'));
  await expect(app.remoteRow('notes.txt')).toHaveCount(0);
  expect(fs.readFileSync(path.join(remoteDir, 'archive', 'notes.txt'), 'utf8')).toBe('remote notes');
  await app.remoteRow('archive').dblclick();
  await app.waitForRemoteListing(path.join(remoteDir, 'archive'));
  await expect(app.remoteRow('notes.txt')).toBeVisible();
  await app.screenshot('fileops-move-drag');
});

test('a folder dragged onto itself is refused with a message; nothing moves', async ({ app }) => {
  // From its name to the far end of its own row: the pointer moves, so the drag starts.
  await app.remoteRow('archive').dragTo(app.remoteRow('archive'), {
    sourcePosition: { x: 20, y: 8 },
    targetPosition: { x: 300, y: 8 },
  });
  await expect(app.log).toContainText('Cannot move archive into itself');
  expect(fs.existsSync(path.join(remoteDir, 'archive', 'plan.txt'))).toBe(true);
});

test('Cut then Paste into another folder; an existing target asks, Overwrite replaces it', async ({ app, page }) => {
  await app.remoteRow('plan.txt').click();
  await page.keyboard.press('Control+x');
  await expect(app.remoteRow('plan.txt')).toHaveAttribute('data-cut', 'true');
  await expect(app.remoteRow('notes.txt')).not.toHaveAttribute('data-cut');
  await app.remoteRow('archive').dblclick();
  await app.waitForRemoteListing(path.join(remoteDir, 'archive'));
  await app.remoteGrid.focus();
  await page.keyboard.press('Control+v');
  const ask = page.getByRole('alertdialog', { name: 'The target exists' });
  await expect(ask).toContainText(path.join(remoteDir, 'archive', 'plan.txt'));
  await app.screenshot('fileops-move-conflict');
  await ask.getByRole('button', { name: 'Overwrite' }).click();
  await expect(ask).toBeHidden();
  await expect.poll(() => fs.readFileSync(path.join(remoteDir, 'archive', 'plan.txt'), 'utf8')).toBe('the plan');
  expect(fs.existsSync(path.join(remoteDir, 'plan.txt'))).toBe(false);
});

test('Cut and Paste from the menu; Skip keeps the existing target', async ({ app, page }) => {
  await menu(page, 'Remote', app.remoteRow('plan.txt'), /^Cut/);
  await app.remoteRow('archive').dblclick();
  await app.waitForRemoteListing(path.join(remoteDir, 'archive'));
  await menu(page, 'Remote', app.remoteRow('plan.txt'), /^Paste/);
  await page.getByRole('alertdialog', { name: 'The target exists' }).getByRole('button', { name: 'Skip' }).click();
  expect(fs.readFileSync(path.join(remoteDir, 'archive', 'plan.txt'), 'utf8')).toBe('an old plan');
  expect(fs.readFileSync(path.join(remoteDir, 'plan.txt'), 'utf8')).toBe('the plan');
});

test('Duplicate makes "name (copy).ext", then "(copy 2)", on the server', async ({ app, page }) => {
  await menu(page, 'Remote', app.remoteRow('notes.txt'), 'Duplicate');
  await expect(app.remoteRow('notes (copy).txt')).toBeVisible();
  await menu(page, 'Remote', app.remoteRow('notes.txt'), 'Duplicate');
  await expect(app.remoteRow('notes (copy 2).txt')).toBeVisible();
  expect(fs.readFileSync(path.join(remoteDir, 'notes (copy 2).txt'), 'utf8')).toBe('remote notes');
  await app.screenshot('fileops-duplicate');
});

test('New file makes an empty file; a name with / is refused before anything is sent', async ({
  app,
  page,
  harness,
}) => {
  await menu(page, 'Remote', app.remoteRow('notes.txt'), 'New file');
  const dialog = page.getByRole('dialog', { name: 'New remote file' });
  await dialog.getByLabel('File name').fill('a/b.txt');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('Name cannot contain /');
  await app.screenshot('fileops-refused-name');
  expect(harness.calls).not.toContain('remote.newFile');
  await dialog.getByLabel('File name').fill('empty.txt');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(app.remoteRow('empty.txt')).toBeVisible();
  expect(fs.statSync(path.join(remoteDir, 'empty.txt')).size).toBe(0);
});

test('New symlink: a link naming the target as typed', async ({ app, page }) => {
  await menu(page, 'Remote', app.remoteRow('notes.txt'), 'New symlink…');
  const dialog = page.getByRole('dialog', { name: 'New remote symlink' });
  await dialog.getByLabel('Target').fill('notes.txt');
  await dialog.getByLabel('Link name').fill('latest');
  await app.screenshot('fileops-new-symlink');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(app.remoteRow('latest')).toBeVisible();
  expect(fs.readlinkSync(path.join(remoteDir, 'latest'))).toBe('notes.txt');
});

test('local: a move by drag, Duplicate, and Open with default application', async ({ app, page, localDir }) => {
  await app.localRow('report.txt').dragTo(app.localRow('docs'));
  await expect(app.localRow('report.txt')).toHaveCount(0);
  expect(fs.readFileSync(path.join(localDir, 'docs', 'report.txt'), 'utf8')).toBe('local report');
  await app.localRow('docs').dblclick();
  await expect(app.localRow('report.txt')).toBeVisible();
  await menu(page, 'Local', app.localRow('report.txt'), 'Duplicate');
  await expect(app.localRow('report (copy).txt')).toBeVisible();
  opened.length = 0;
  await menu(page, 'Local', app.localRow('report.txt'), 'Open with default application');
  await expect.poll(() => opened).toEqual([path.join(localDir, 'docs', 'report.txt')]);
});

test('between the panes both ways: remote → local downloads, local → remote uploads, same bytes', async ({
  app,
  localDir,
}) => {
  writeRandomFile(path.join(remoteDir, 'down.bin'), 300_000);
  writeRandomFile(path.join(localDir, 'up.bin'), 200_000);
  await app.remotePane.getByRole('button', { name: /Remote: refresh/ }).click();
  await app.dragRemoteToLocal('down.bin');
  await app.waitForJobState('down.bin', 'done');
  expect(sha256File(path.join(localDir, 'down.bin'))).toBe(sha256File(path.join(remoteDir, 'down.bin')));
  await app.localPane.getByRole('button', { name: /Local: refresh/ }).click();
  await app.dragLocalToRemote('up.bin');
  await app.waitForJobState('up.bin', 'done');
  expect(sha256File(path.join(remoteDir, 'up.bin'))).toBe(sha256File(path.join(localDir, 'up.bin')));
});

test('remote rows dragged out of the window: fetched into the cache, the files given to the OS drag', async ({
  app,
  page,
  engine,
}) => {
  dragged.length = 0;
  await app.remoteRow('notes.txt').click();
  await app.remoteRow('plan.txt').click({ modifiers: ['Control'] });
  const dataTransfer = await page.evaluateHandle(() => new DataTransfer());
  await app.remoteRow('plan.txt').dispatchEvent('dragstart', { dataTransfer });
  // The drag leaves the window at its left edge: Chromium's dragleave with no element it goes to.
  await page.evaluate(() =>
    document.body.dispatchEvent(new DragEvent('dragleave', { bubbles: true, clientX: -1, clientY: 300 })),
  );
  await expect.poll(() => dragged.length, { timeout: 30_000 }).toBe(1);
  const [notes, plan] = dragged[0];
  expect(path.basename(notes)).toBe('notes.txt');
  expect(notes.startsWith(path.join(engine.home, 'drag-out') + path.sep)).toBe(true);
  expect(fs.readFileSync(notes, 'utf8')).toBe('remote notes');
  expect(fs.readFileSync(plan, 'utf8')).toBe('the plan');
  await expect(app.log).toContainText('Dragging out 2 files: drop them on the desktop or a folder');
  await app.screenshot('fileops-drag-out');
});

test("a server's refusal is shown with its own message and the path", async ({ app, page }) => {
  fs.mkdirSync(path.join(remoteDir, 'gone'));
  await app.remotePane.getByRole('button', { name: /Remote: refresh/ }).click();
  await app.remoteRow('gone').dblclick();
  await app.waitForRemoteListing(path.join(remoteDir, 'gone'));
  // Removed behind the pane's back: the server refuses the new file's OPEN.
  fs.rmdirSync(path.join(remoteDir, 'gone'));
  await app.remoteGrid.focus();
  await page.keyboard.press('Shift+F10');
  await page.getByRole('menu', { name: 'Remote files menu' }).getByRole('menuitem', { name: 'New file' }).click();
  const dialog = page.getByRole('dialog', { name: 'New remote file' });
  await dialog.getByLabel('File name').fill('x.txt');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(app.log).toContainText(
    `Creating the file failed: OPEN ${path.join(remoteDir, 'gone', 'x.txt')}: no such file`,
  );
});
