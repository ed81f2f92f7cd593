/**
 * The remote pane's tabs (#26 item 4) against the real engine and sshd: two sites in two tabs, each keeping its
 * folder, selection, Back/Forward history and filter when switching (and its listing: switching lists nothing again),
 * the local pane's Upload going to the shown tab's site and folder, the tab's menu;
 * the same site twice in two folders, an upload dropped on the second tab landing in its folder; closing tabs (the
 * close button, a middle click, Ctrl+W; the last tab of a site disconnects it unless it has transfers running); a
 * site whose connection is lost says so on its tab while the other tab stays connected.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { emptyDir, writeRandomFile } from './harness/files';
import { startSshd } from './fixtures/sshd';
import type { SluicePage } from './pages/SluicePage';

const MiB = 1024 * 1024;

test.use({ engineOptions: { reconnectPolicy: { tries: 2, baseDelayMs: 300, maxDelayMs: 600, totalDelayMs: 3000 } } });

let alpha = '';
let beta = '';

/** The tab strip, and a tab by the start of its accessible name (`Alpha: a1, connected`). */
function tabs(app: SluicePage) {
  const strip = app.page.getByRole('tablist', { name: 'Remote sessions' });
  return { strip, tab: (name: string) => strip.getByRole('tab', { name: new RegExp(`^${name},`) }) };
}

/** Creates a site on the test's sshd (or `port`), its remote folder `remoteDir`. */
async function site(
  app: SluicePage,
  sshd: { host: string; port: number; user: string; clientKeyPath: string },
  name: string,
  remoteDir: string,
  localDir: string,
): Promise<void> {
  await app.createSite({
    name,
    host: sshd.host,
    port: sshd.port,
    user: sshd.user,
    keyPath: sshd.clientKeyPath,
    localDir,
    remoteDir,
  });
}

test.beforeEach(async ({ app, sshd, engine, localDir }) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  const root = emptyDir(path.join(sshd.root, 'tabs'));
  alpha = path.join(root, 'alpha');
  beta = path.join(root, 'beta');
  fs.mkdirSync(path.join(alpha, 'a1'), { recursive: true });
  fs.mkdirSync(path.join(beta, 'b1'), { recursive: true });
  fs.writeFileSync(path.join(alpha, 'one.txt'), 'one\n');
  fs.writeFileSync(path.join(beta, 'two.txt'), 'two\n');
  fs.writeFileSync(path.join(beta, 'three.txt'), 'three\n');
  fs.writeFileSync(path.join(localDir, 'up.txt'), 'up\n');
  await app.open();
  await site(app, sshd, 'Alpha', alpha, localDir);
});

test('two sites in two tabs: each keeps its folder, selection, history and filter, and is not listed again', async ({
  app,
  page,
  sshd,
  localDir,
}) => {
  const { strip, tab } = tabs(app);
  await site(app, sshd, 'Beta', beta, localDir);
  await app.startConnect('Alpha');
  await app.waitForRemoteListing(alpha);
  await app.remoteRow('a1').dblclick();
  await app.waitForRemoteListing(path.join(alpha, 'a1'));
  await app.remotePane.getByRole('button', { name: 'Remote: back' }).click();
  await app.waitForRemoteListing(alpha);
  await app.remoteRow('one.txt').click();

  await app.startConnect('Beta');
  await app.waitForRemoteListing(beta);
  await expect(strip.getByRole('tab')).toHaveCount(2);
  await expect(tab('Beta: beta')).toHaveAttribute('aria-selected', 'true');
  await app.remoteRow('two.txt').click();
  await app.remoteGrid.press('t');
  await app.remoteGrid.press('w');
  await expect(app.remotePane.getByLabel('Remote filter')).toHaveValue('tw');
  await expect(app.remoteRow('three.txt')).toHaveCount(0);
  await expect(app.statusBar.getByLabel('Connected site')).toHaveText(/^Beta/);

  // A file made on the server now shows only after a refresh: switching tabs lists nothing again.
  fs.writeFileSync(path.join(alpha, 'later.txt'), 'later\n');
  await tab('Alpha: alpha').click();
  await expect(app.remotePane).toHaveAttribute('data-path', alpha);
  await expect(app.remoteRow('one.txt')).toHaveAttribute('aria-selected', 'true');
  await expect(app.remotePane.getByRole('button', { name: 'Remote: forward' })).toBeEnabled();
  await expect(app.remoteRow('later.txt')).toHaveCount(0);
  await expect(app.statusBar.getByLabel('Connected site')).toHaveText(/^Alpha/);
  await app.remoteGrid.press('F5');
  await expect(app.remoteRow('later.txt')).toBeVisible();
  await app.remotePane.getByRole('button', { name: 'Remote: forward' }).click();
  await app.waitForRemoteListing(path.join(alpha, 'a1'));
  await expect(tab('Alpha: a1')).toHaveAttribute('title', new RegExp(`${path.join(alpha, 'a1')} — connected$`));

  await page.keyboard.press('Control+Tab');
  await expect(tab('Beta: beta')).toHaveAttribute('aria-selected', 'true');
  await expect(app.remotePane).toHaveAttribute('data-path', beta);
  await expect(app.remotePane.getByLabel('Remote filter')).toHaveValue('tw');
  await expect(app.remoteRow('two.txt')).toHaveAttribute('aria-selected', 'true');
  await expect(app.remoteGrid).toBeFocused();
  await app.screenshot('remote-tabs');

  await page.keyboard.press('Control+Shift+Tab');
  await expect(tab('Alpha: a1')).toHaveAttribute('aria-selected', 'true');
  // The ARIA tabs pattern: arrows move between tabs, the one focused is shown.
  await tab('Alpha: a1').focus();
  await page.keyboard.press('ArrowRight');
  await expect(tab('Beta: beta')).toBeFocused();
  await expect(tab('Beta: beta')).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Home');
  await expect(tab('Alpha: a1')).toHaveAttribute('aria-selected', 'true');

  // The local pane's Upload (Ctrl+U) goes to the shown tab's site and folder.
  await page.keyboard.press('End');
  await expect(tab('Beta: beta')).toHaveAttribute('aria-selected', 'true');
  await app.localRow('up.txt').click();
  await page.keyboard.press('Control+U');
  await app.waitForJobState('up.txt', 'done');
  expect(fs.readFileSync(path.join(beta, 'up.txt'), 'utf8')).toBe('up\n');
  expect(fs.existsSync(path.join(alpha, 'a1', 'up.txt'))).toBe(false);
  await expect(app.jobRow('up.txt').getByLabel('up.txt site and destination')).toHaveText(`Beta → ${beta}`);

  // The tab's menu: Close other tabs closes Alpha's (its last: Alpha disconnects).
  await tab('Beta: beta').click({ button: 'right' });
  const menu = page.getByRole('menu', { name: 'Tab menu' });
  await menu.getByRole('menuitem', { name: 'Close other tabs' }).click();
  await expect(strip.getByRole('tab')).toHaveCount(1);
  await expect(app.siteItem('Alpha').locator('.icon')).toHaveClass(/conn-disconnected|conn-none/);
  await tab('Beta: beta').focus();
  await page.keyboard.press('Shift+F10');
  await expect(menu.getByRole('menuitem', { name: 'Close other tabs' })).toHaveAttribute('aria-disabled', 'true');
  await page.keyboard.press('Escape');
  await expect(tab('Beta: beta')).toBeFocused();
});

test('the same site twice in two folders: Ctrl+T and "Open in new tab"; a drop on the second tab lands in its folder', async ({
  app,
  page,
}) => {
  const { strip, tab } = tabs(app);
  await app.startConnect('Alpha');
  await app.waitForRemoteListing(alpha);
  await app.remoteGrid.focus();
  await page.keyboard.press('Control+T');
  await expect(strip.getByRole('tab')).toHaveCount(2);
  await app.waitForRemoteListing(alpha);
  await app.remoteRow('a1').dblclick();
  await app.waitForRemoteListing(path.join(alpha, 'a1'));
  await expect(tab('Alpha: a1')).toHaveAttribute('aria-selected', 'true');
  await expect(tab('Alpha: alpha')).toHaveAttribute('data-status', 'connected');

  await app.dragLocalToRemote('up.txt');
  await app.waitForJobState('up.txt', 'done');
  expect(fs.readFileSync(path.join(alpha, 'a1', 'up.txt'), 'utf8')).toBe('up\n');
  expect(fs.existsSync(path.join(alpha, 'up.txt'))).toBe(false);
  await expect(app.remoteRow('up.txt')).toBeVisible();

  await tab('Alpha: alpha').click();
  await expect(app.remotePane).toHaveAttribute('data-path', alpha);
  await expect(app.remoteRow('up.txt')).toHaveCount(0);
  await app.screenshot('remote-tabs-same-site');

  // Connect on a site with a tab shows its tab; "Open in new tab" opens another on the same session.
  await tab('Alpha: a1').click();
  await app.siteItem('Alpha').locator('.label').dblclick();
  await expect(strip.getByRole('tab')).toHaveCount(2);
  await expect(tab('Alpha: alpha')).toHaveAttribute('aria-selected', 'true');
  await app.siteItem('Alpha').locator('.label').click({ button: 'right' });
  await page.getByRole('menu', { name: 'Alpha menu' }).getByRole('menuitem', { name: 'Open in new tab' }).click();
  await expect(strip.getByRole('tab')).toHaveCount(3);
  await app.waitForRemoteListing(alpha);
  await expect(app.statusBar.getByLabel('Connected site')).toHaveText(/^Alpha/);

  // One session under the three tabs: Disconnect ends it for all of them, the tabs stay.
  await page.getByRole('toolbar', { name: 'Main toolbar' }).getByRole('button', { name: 'Disconnect' }).click();
  await expect(strip.getByRole('tab')).toHaveCount(3);
  for (const t of await strip.getByRole('tab').all()) await expect(t).toHaveAttribute('data-status', 'not connected');
  await expect(app.remotePane).toContainText('Select a site and press Connect.');
});

test('closing tabs: the button, a middle click, Delete, Ctrl+W; the last tab of a site disconnects it', async ({
  app,
  page,
  sshd,
  localDir,
}) => {
  const { strip, tab } = tabs(app);
  await site(app, sshd, 'Beta', beta, localDir);
  await app.startConnect('Alpha');
  await app.waitForRemoteListing(alpha);
  await app.startConnect('Beta');
  await app.waitForRemoteListing(beta);
  await app.remoteGrid.focus();
  await page.keyboard.press('Control+Shift+Tab');
  await expect(app.remoteGrid).toBeFocused();
  await page.keyboard.press('Control+Tab');
  await strip.getByRole('button', { name: 'Close Beta: beta' }).click();
  await expect(strip.getByRole('tab')).toHaveCount(1);
  await expect(app.siteItem('Beta').locator('.icon')).toHaveClass(/conn-disconnected|conn-none/);
  await expect(tab('Alpha: alpha')).toHaveAttribute('aria-selected', 'true');
  await app.waitForRemoteListing(alpha);

  await page.getByRole('button', { name: 'Duplicate tab' }).click();
  await expect(strip.getByRole('tab')).toHaveCount(2);
  await tab('Alpha: alpha').first().click({ button: 'middle' });
  await expect(strip.getByRole('tab')).toHaveCount(1);
  await expect(app.siteItem('Alpha').locator('.icon')).toHaveClass(/conn-connected/);
  await page.keyboard.press('Control+T');
  await expect(strip.getByRole('tab')).toHaveCount(2);
  await tab('Alpha: alpha').last().focus();
  await page.keyboard.press('Delete');
  await expect(strip.getByRole('tab')).toHaveCount(1);
  await expect(tab('Alpha: alpha')).toBeFocused();
  await page.keyboard.press('Control+T');
  await app.waitForRemoteListing(alpha);
  await app.remoteGrid.focus();
  await page.keyboard.press('Control+W');
  await expect(strip.getByRole('tab')).toHaveCount(1);
  await expect(app.remoteGrid).toBeFocused();
  await expect(app.siteItem('Alpha').locator('.icon')).toHaveClass(/conn-connected/);
  await page.keyboard.press('Control+W');
  await expect(strip).toHaveCount(0);
  await expect(app.siteItem('Alpha').locator('.icon')).toHaveClass(/conn-disconnected|conn-none/);
  await expect(app.remotePane).toContainText('Select a site and press Connect.');
});

test('the last tab closed while its transfer runs: the site stays connected for it, a notice says so', async ({
  app,
  localDir,
}) => {
  const { strip } = tabs(app);
  writeRandomFile(path.join(localDir, 'steady.bin'), 8 * MiB);
  await app.startConnect('Alpha');
  await app.waitForRemoteListing(alpha);
  await app.statusBar.getByLabel('Speed limit').selectOption({ label: '1.0 MiB/s' });
  await app.localRow('steady.bin').click();
  await app.localPane.getByRole('button', { name: 'Local: upload' }).click();
  await app.waitForJobBytes('steady.bin', MiB);
  await strip.getByRole('button', { name: 'Close Alpha: alpha' }).click();
  await expect(app.notices).toContainText(
    'Alpha stays connected for 1 queued or running transfer; the queue keeps it.',
  );
  await expect(app.siteItem('Alpha').locator('.icon')).toHaveClass(/conn-connected/);
  await app.screenshot('remote-tab-closed-transfers');
  // Connect opens a tab on the session kept for the transfer (no second login), and is off again once it has one.
  const connect = app.siteManager.getByRole('button', { name: 'Connect' });
  await app.siteItem('Alpha').locator('.label').click();
  await expect(connect).toBeEnabled();
  await connect.click();
  await app.waitForRemoteListing(alpha);
  await expect(strip.getByRole('tab')).toHaveCount(1);
  await expect(connect).toBeDisabled();
  await app.statusBar.getByLabel('Speed limit').selectOption({ label: 'unlimited' });
  await app.waitForJobState('steady.bin', 'done');
  expect(fs.statSync(path.join(alpha, 'steady.bin')).size).toBe(8 * MiB);
});

test('a lost connection shows on its tab; the other tab stays connected', async ({ app, engine, localDir }) => {
  const { tab } = tabs(app);
  const other = await startSshd();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await other.stop();
  };
  try {
    fs.appendFileSync(engine.knownHostsPath, `${other.knownHostsLine()}\n`);
    const far = emptyDir(path.join(other.root, 'far'));
    fs.writeFileSync(path.join(far, 'far.txt'), 'far\n');
    // The key outlives the server's folder, so the reconnect fails on the refused connection, as a user's would.
    const keyPath = path.join(path.dirname(engine.knownHostsPath), 'far_key');
    fs.copyFileSync(other.clientKeyPath, keyPath);
    fs.chmodSync(keyPath, 0o600);
    await site(app, { ...other, clientKeyPath: keyPath }, 'Far', far, localDir);
    await app.startConnect('Alpha');
    await app.waitForRemoteListing(alpha);
    await app.startConnect('Far');
    await app.waitForRemoteListing(far);
    await tab('Alpha: alpha').click();
    await stop();
    await expect(tab('Far: far')).toHaveAttribute('data-status', /reconnecting|lost/);
    await expect(tab('Far: far')).toHaveAttribute('data-status', 'lost', { timeout: 30_000 });
    await expect(tab('Far: far')).toContainText('lost');
    await expect(tab('Alpha: alpha')).toHaveAttribute('data-status', 'connected');
    await expect(app.remoteRow('one.txt')).toBeVisible();
    await app.screenshot('remote-tab-lost');
  } finally {
    await stop();
  }
});

test('many tabs in a small window: the strip scrolls, the tab shown stays in view, the panes keep their width', async ({
  app,
  page,
}) => {
  const { strip } = tabs(app);
  await page.setViewportSize({ width: 1024, height: 700 });
  await app.startConnect('Alpha');
  await app.waitForRemoteListing(alpha);
  await app.remoteGrid.focus();
  for (let i = 0; i < 9; i++) await page.keyboard.press('Control+T');
  await expect(strip.getByRole('tab')).toHaveCount(10);
  const inView = async () => {
    const list = (await strip.boundingBox())!;
    // The tab with its close button.
    const shown = (await strip.getByRole('tab', { selected: true }).locator('..').boundingBox())!;
    return shown.x >= list.x - 1 && shown.x + shown.width <= list.x + list.width + 1;
  };
  await expect.poll(inView).toBe(true);
  await page.keyboard.press('Control+Tab');
  await expect(strip.getByRole('tab').first()).toHaveAttribute('aria-selected', 'true');
  await expect.poll(inView).toBe(true);
  await page.keyboard.press('Control+Shift+Tab');
  await expect(strip.getByRole('tab').last()).toHaveAttribute('aria-selected', 'true');
  await expect.poll(inView).toBe(true);
  const pane = (await app.remotePane.boundingBox())!;
  expect(pane.x + pane.width).toBeLessThanOrEqual(1024);
  await app.screenshot('remote-tabs-many-1024x700');
});
