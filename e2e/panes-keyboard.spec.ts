/**
 * The file panes by keyboard and context menu, against the real engine and sshd: Ctrl+U uploads and Ctrl+D downloads
 * the selection, F5 refreshes, Home/End, Enter opens and Backspace goes up, Delete asks first, Shift+F10 and the
 * ContextMenu key open the menu (arrows, Enter, Escape), the menu's New folder and Copy path; and a 20,000-entry remote
 * folder renders only a window of rows and scrolls to its end. Each keyboard test connects a fresh app to its own
 * remote folder (inbox/, down.bin, zz-last.txt; up.bin and a-first.txt on the local side).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { emptyDir, sha256File, writeRandomFile } from './harness/files';
import type { SluicePage } from './pages/SluicePage';
import type { SshdServer } from './fixtures/sshd';

/** Trusts the server, creates a site for `remoteDir` and connects (the remote pane lists it). */
async function connect(
  app: SluicePage,
  sshd: SshdServer,
  knownHostsPath: string,
  localDir: string,
  remoteDir: string,
): Promise<void> {
  fs.appendFileSync(knownHostsPath, `${sshd.knownHostsLine()}\n`);
  await app.open();
  await app.createSite({
    name: 'Keys',
    host: sshd.host,
    port: sshd.port,
    user: sshd.user,
    keyPath: sshd.clientKeyPath,
    localDir,
    remoteDir,
  });
  await app.startConnect('Keys');
  await app.waitForRemoteListing(remoteDir);
  await expect(app.localPane).toHaveAttribute('data-path', localDir);
}

test.describe('keyboard and context menu', () => {
  let remoteDir = '';
  let up = '';

  test.beforeEach(async ({ app, sshd, engine, localDir }) => {
    remoteDir = emptyDir(path.join(sshd.root, 'keys'));
    fs.mkdirSync(path.join(remoteDir, 'inbox'), { recursive: true });
    up = writeRandomFile(path.join(localDir, 'up.bin'), 300_000);
    fs.writeFileSync(path.join(localDir, 'a-first.txt'), 'first');
    writeRandomFile(path.join(remoteDir, 'down.bin'), 200_000);
    fs.writeFileSync(path.join(remoteDir, 'zz-last.txt'), 'last');
    await connect(app, sshd, engine.knownHostsPath, localDir, remoteDir);
  });

  test('local pane: End selects the last row, Home the first; Ctrl+U uploads the selection into the remote folder', async ({
    app,
    page,
  }) => {
    await app.localGrid.focus();
    await page.keyboard.press('Home');
    await expect(app.localRow('a-first.txt')).toHaveAttribute('aria-selected', 'true');
    await page.keyboard.press('End');
    await expect(app.localRow('up.bin')).toHaveAttribute('aria-selected', 'true');
    await expect(app.localRow('a-first.txt')).toHaveAttribute('aria-selected', 'false');
    await page.keyboard.press('Control+U');
    await app.waitForJobState('up.bin', 'done');
    expect(sha256File(path.join(remoteDir, 'up.bin'))).toBe(sha256File(up));
    await expect(app.remoteRow('up.bin')).toBeVisible();
  });

  test('remote pane: Ctrl+D downloads the selection into the local folder', async ({ app, localDir, page }) => {
    await app.remoteGrid.focus();
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowDown');
    await expect(app.remoteRow('down.bin')).toHaveAttribute('aria-selected', 'true');
    await page.keyboard.press('Control+D');
    await app.waitForJobState('down.bin', 'done');
    expect(sha256File(path.join(localDir, 'down.bin'))).toBe(sha256File(path.join(remoteDir, 'down.bin')));
  });

  test("F5: a file made on the server behind the app's back shows up", async ({ app, page }) => {
    await app.remoteGrid.focus();
    fs.writeFileSync(path.join(remoteDir, 'appeared.txt'), 'new');
    await expect(app.remoteRow('appeared.txt')).toHaveCount(0);
    await page.keyboard.press('F5');
    await expect(app.remoteRow('appeared.txt')).toBeVisible();
  });

  test('Enter opens the folder (Home: folders sort first), Backspace comes back with the folder focused', async ({
    app,
    page,
  }) => {
    await app.remoteGrid.focus();
    await page.keyboard.press('Home');
    await expect(app.remoteRow('inbox')).toHaveAttribute('aria-selected', 'true');
    await page.keyboard.press('Enter');
    await app.waitForRemoteListing(path.join(remoteDir, 'inbox'));
    await page.keyboard.press('Backspace');
    await app.waitForRemoteListing(remoteDir);
    await expect(app.remoteRow('inbox')).toHaveAttribute('aria-selected', 'true');
  });

  test('Delete asks first; Cancel keeps the file, Delete removes it', async ({ app, page }) => {
    await app.remoteGrid.focus();
    await page.keyboard.press('End');
    await expect(app.remoteRow('zz-last.txt')).toHaveAttribute('aria-selected', 'true');
    await page.keyboard.press('Delete');
    const confirm = page
      .getByRole('alertdialog', { name: 'Delete from remote' })
      .or(page.getByRole('dialog', { name: 'Delete from remote' }));
    await expect(confirm).toContainText('Delete "zz-last.txt"');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect(fs.existsSync(path.join(remoteDir, 'zz-last.txt'))).toBe(true);
    await app.remoteGrid.focus();
    await page.keyboard.press('Delete');
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await expect(app.remoteRow('zz-last.txt')).toHaveCount(0);
    expect(fs.existsSync(path.join(remoteDir, 'zz-last.txt'))).toBe(false);
  });

  test('Shift+F10 opens the menu on the selection, focused on its first item; Escape closes it and the grid has the focus', async ({
    app,
    page,
  }) => {
    fs.writeFileSync(path.join(remoteDir, 'appeared.txt'), 'new');
    await app.remoteGrid.focus();
    await page.keyboard.press('F5');
    await expect(app.remoteRow('appeared.txt')).toBeVisible();
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowDown');
    await expect(app.remoteRow('appeared.txt')).toHaveAttribute('aria-selected', 'true');
    await page.keyboard.press('Shift+F10');
    const menu = page.getByRole('menu', { name: 'Remote files menu' });
    await expect(menu).toBeVisible();
    await expect(menu.getByRole('menuitem', { name: /^Download/ })).toBeFocused();
    await expect(menu.getByRole('menuitem')).toHaveText([
      /^Download/,
      /^Edit/,
      /^Rename/,
      /^Delete/,
      /^Cut/,
      /^Paste/,
      /^Duplicate/,
      /^New folder/,
      /^New file/,
      /^New symlink…/,
      /^Copy path/,
      /^Refresh/,
      /^Find…/,
      /^Properties…/,
    ]);
    await app.screenshot('context-menu');
    await page.keyboard.press('Escape');
    await expect(menu).toBeHidden();
    await expect(app.remoteGrid).toBeFocused();
  });

  test('the ContextMenu key, arrows to New folder, Enter: the dialog, and the folder is made on the server', async ({
    app,
    page,
  }) => {
    const menu = page.getByRole('menu', { name: 'Remote files menu' });
    await app.remoteGrid.focus();
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ContextMenu');
    await expect(menu).toBeVisible();
    // Edit, Rename, Delete, Cut, Duplicate (Paste is disabled while nothing is cut: skipped), New folder.
    for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowDown');
    await expect(menu.getByRole('menuitem', { name: /^New folder/ })).toBeFocused();
    await page.keyboard.press('Enter');
    const mkdir = page.getByRole('dialog', { name: 'New remote folder' });
    await mkdir.getByLabel('Folder name').fill('made-by-menu');
    await mkdir.getByRole('button', { name: 'Create' }).click();
    await expect(app.remoteRow('made-by-menu')).toBeVisible();
    expect(fs.statSync(path.join(remoteDir, 'made-by-menu')).isDirectory()).toBe(true);
  });

  test('right-click a row: Copy path puts its full remote path on the clipboard', async ({ app, page, context }) => {
    const menu = page.getByRole('menu', { name: 'Remote files menu' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(page.url()).origin });
    await app.remoteRow('down.bin').click({ button: 'right' });
    await expect(app.remoteRow('down.bin')).toHaveAttribute('aria-selected', 'true');
    await menu.getByRole('menuitem', { name: /^Copy path/ }).click();
    await expect(menu).toBeHidden();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(path.join(remoteDir, 'down.bin'));
  });
});

test('a 20,000-entry remote folder: a window of rows in the DOM, End reaches the last, scrolling keeps frames coming', async ({
  app,
  sshd,
  engine,
  localDir,
  page,
}) => {
  const remoteDir = path.join(sshd.root, 'large');
  fs.mkdirSync(remoteDir, { recursive: true });
  for (let i = 0; i < 20_000; i++)
    fs.closeSync(fs.openSync(path.join(remoteDir, `entry-${String(i).padStart(5, '0')}.dat`), 'w'));
  await connect(app, sshd, engine.knownHostsPath, localDir, remoteDir);

  await expect(app.remotePane).toContainText('20000 items');
  await expect(app.remoteGrid).toHaveAttribute('aria-rowcount', '20001');
  const rendered = () => app.remoteGrid.locator('tbody tr[aria-label]').count();
  expect(await rendered()).toBeGreaterThan(5);
  expect(await rendered()).toBeLessThan(100);

  // 3 s of wheel-speed scrolling (60 px a frame): frames keep coming and only a window of rows is ever in the DOM.
  const stats = await page.evaluate(async () => {
    const scroller = document.querySelector<HTMLElement>('[aria-label="Remote pane"] .grid-wrap')!;
    const gaps: number[] = [];
    let maxRows = 0;
    let last = performance.now();
    const end = last + 3000;
    await new Promise<void>((resolve) => {
      const frame = (t: number) => {
        gaps.push(t - last);
        last = t;
        maxRows = Math.max(maxRows, scroller.querySelectorAll('tbody tr[aria-label]').length);
        scroller.scrollTop += 60;
        if (t < end) requestAnimationFrame(frame);
        else resolve();
      };
      requestAnimationFrame(frame);
    });
    gaps.sort((a, b) => a - b);
    return {
      frames: gaps.length,
      median: gaps[Math.floor(gaps.length / 2)],
      max: gaps[gaps.length - 1],
      maxRows,
      scrolled: scroller.scrollTop,
    };
  });
  console.log(
    `20,000-entry folder: ${stats.frames} frames in 3 s of scrolling (median gap ${stats.median.toFixed(1)} ms, max ${stats.max.toFixed(1)} ms), at most ${stats.maxRows} rows in the DOM, scrolled ${stats.scrolled} px`,
  );
  expect(stats.maxRows).toBeLessThan(100);
  expect(stats.scrolled).toBeGreaterThan(1000);
  expect(stats.frames).toBeGreaterThanOrEqual(30);
  expect(stats.max).toBeLessThan(500);

  // The keyboard reaches the last entry: End selects it and it is scrolled into view.
  await app.remoteGrid.focus();
  await page.keyboard.press('End');
  await expect(app.remoteRow('entry-19999.dat')).toHaveAttribute('aria-selected', 'true');
  await expect(app.remoteRow('entry-19999.dat')).toBeInViewport();
  await page.keyboard.press('PageUp');
  await expect(app.remoteRow('entry-19979.dat')).toHaveAttribute('aria-selected', 'true');
  await expect(app.remoteRow('entry-19979.dat')).toBeInViewport();
  await app.screenshot('large-folder');
  await page.keyboard.press('Home');
  await expect(app.remoteRow('entry-00000.dat')).toBeInViewport();
  expect(await rendered()).toBeLessThan(100);
});
