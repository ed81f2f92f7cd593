/**
 * Compare (#27, the app side) against the real engine and sshd: the toggle marks both panes' rows against the other
 * pane's folder (only here, newer here / there, same size different time, same), the legend counts them, "Differences
 * only" hides the same rows in both panes, and the marks follow a listing that changed (F5 after a file changed on
 * the server); Ctrl+O toggles it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { emptyDir } from './harness/files';
import { ComparePage } from './pages/ComparePage';

const T = new Date('2026-03-01T12:00:00Z');
const later = new Date(T.getTime() + 3600_000);

/** Writes `name` with `text` and its modification time. */
function put(dir: string, name: string, text: string, mtime: Date): void {
  fs.writeFileSync(path.join(dir, name), text);
  fs.utimesSync(path.join(dir, name), mtime, mtime);
}

test.describe('compare', () => {
  test.beforeEach(async ({ app, sshd, engine, localDir }) => {
    fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
    const root = emptyDir(path.join(sshd.root, 'compare'));
    put(localDir, 'only-local.txt', 'local', T);
    put(root, 'only-remote.txt', 'remote', T);
    put(localDir, 'edited-here.html', 'a longer local copy', later);
    put(root, 'edited-here.html', 'short', T);
    put(localDir, 'edited-there.css', 'old', T);
    put(root, 'edited-there.css', 'newer remote', later);
    put(localDir, 'touched.js', 'same', later);
    put(root, 'touched.js', 'same', T);
    put(localDir, 'same.png', 'pixels', T);
    put(root, 'same.png', 'pixels', T);
    fs.mkdirSync(path.join(localDir, 'assets'));
    fs.mkdirSync(path.join(root, 'assets'));
    await app.open();
    await app.createSite({
      name: 'Compare',
      host: sshd.host,
      port: sshd.port,
      user: sshd.user,
      keyPath: sshd.clientKeyPath,
      localDir,
      remoteDir: root,
    });
    await app.startConnect('Compare');
    await app.waitForRemoteListing(root);
  });

  test('marks both panes, counts them in the legend, differences only hides the same rows', async ({ app, page }) => {
    const cmp = new ComparePage(page);
    await expect(cmp.toggle).toHaveAttribute('aria-pressed', 'false');
    await expect(app.localPane.locator('tr[data-compare]')).toHaveCount(0);
    await cmp.toggle.click();
    await expect(cmp.toggle).toHaveAttribute('aria-pressed', 'true');
    await cmp.expectMarks(app.localPane, {
      'only-local.txt': 'only-here',
      'edited-here.html': 'newer-here',
      'edited-there.css': 'newer-there',
      'touched.js': 'same-size-different-time',
      'same.png': 'same',
      assets: 'same',
    });
    await cmp.expectMarks(app.remotePane, {
      'only-remote.txt': 'only-here',
      'edited-here.html': 'newer-there',
      'edited-there.css': 'newer-here',
      'touched.js': 'same-size-different-time',
      'same.png': 'same',
    });
    // Not colour alone: the glyph's accessible name says the status.
    await expect(app.localRow('edited-here.html').getByRole('img', { name: 'newer here' })).toBeVisible();
    await expect(app.remoteRow('edited-here.html').getByRole('img', { name: 'newer there' })).toBeVisible();
    await expect(cmp.legendLine('only in Local')).toHaveText(/only in Local: 1$/);
    await expect(cmp.legendLine('only in Remote')).toHaveText(/only in Remote: 1$/);
    await expect(cmp.legendLine('same size, different time')).toHaveText(/: 1$/);
    await expect(cmp.legendLine(/^.?\s*same: /)).toHaveText(/same: 2$/);
    await app.screenshot('compare-marks');

    await cmp.differencesOnly.check();
    await expect(app.localGrid.getByRole('row')).toHaveText([
      /^Name/,
      /edited-here\.html/,
      /edited-there\.css/,
      /only-local\.txt/,
      /touched\.js/,
    ]);
    await expect(app.remoteGrid.getByRole('row')).toHaveText([
      /^Name/,
      /edited-here\.html/,
      /edited-there\.css/,
      /only-remote\.txt/,
      /touched\.js/,
    ]);
    await expect(app.localPane.locator('.pane-actions .count')).toHaveText('4 of 6 shown');
    await app.screenshot('compare-differences-only');
    await cmp.differencesOnly.uncheck();
    await expect(app.localRow('same.png')).toBeVisible();
  });

  test('the marks follow a changed listing; Ctrl+O toggles Compare', async ({ app, page, sshd }) => {
    const cmp = new ComparePage(page);
    await app.localGrid.focus();
    await page.keyboard.press('Control+o');
    await expect(cmp.toggle).toHaveAttribute('aria-pressed', 'true');
    await expect(app.localRow('same.png')).toHaveAttribute('data-compare', 'same');
    put(path.join(sshd.root, 'compare'), 'same.png', 'pixels, edited on the server', later);
    await app.remoteGrid.focus();
    await page.keyboard.press('F5');
    await expect(app.remoteRow('same.png')).toHaveAttribute('data-compare', 'newer-here');
    await expect(app.localRow('same.png')).toHaveAttribute('data-compare', 'newer-there');
    await page.keyboard.press('Control+o');
    await expect(cmp.toggle).toHaveAttribute('aria-pressed', 'false');
    await expect(app.localPane.locator('tr[data-compare]')).toHaveCount(0);
  });
});
