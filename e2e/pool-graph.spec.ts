/**
 * The transfer view against the real engine and sshd: an upload over a pool of 2 connections × 2 SFTP channels shows
 * one graph series per connection (solid, in the legend with its rate) beside the total, the status bar shows the
 * engine's own pool (2/2, each connection with its channels), and the status bar, the queue footer and the graph's
 * total show one speed (renderer/state/speeds.ts). A global speed limit keeps the upload running for a few seconds.
 * When the server cuts one connection of two, the status bar shows it down and the session stays connected on the
 * other.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { emptyDir, sha256File, writeRandomFile } from './harness/files';
import type { SluicePage } from './pages/SluicePage';
import { childPids, descendantPids } from './fixtures/sshd';

const MiB = 1024 * 1024;

test.describe('an upload over 2 connections × 2 channels', () => {
  let remoteDir = '';
  let local = '';

  test.beforeEach(async ({ app, sshd, engine, localDir }) => {
    fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
    remoteDir = emptyDir(path.join(sshd.root, 'pool'));
    local = writeRandomFile(path.join(localDir, 'big.bin'), 64 * MiB);
    await app.open();
    await app.createSite({
      name: 'Pool',
      host: sshd.host,
      port: sshd.port,
      user: sshd.user,
      keyPath: sshd.clientKeyPath,
      localDir,
      remoteDir,
      connections: 2,
      channels: 2,
    });
    await app.startConnect('Pool');
    await app.waitForRemoteListing(remoteDir);
  });

  /** 10 MiB/s for everything: 64 MiB take ~6 s, long enough to watch. Starts big.bin and waits until it runs. */
  async function startUpload(app: SluicePage): Promise<void> {
    await app.statusBar.getByLabel('Speed limit').selectOption(String(10 * MiB));
    await app.localRow('big.bin').click();
    await app.localPane.getByRole('button', { name: 'Local: upload' }).click();
    await app.waitForJobState('big.bin', 'running');
  }

  test('the pool as the engine has it: both connections up, each with its 2 SFTP channels', async ({ app }) => {
    const pool = app.statusBar.getByLabel('Pool');
    await expect(app.statusBar.getByLabel('Connections')).toHaveText('2/2');
    await expect(pool.getByLabel('Connection 1 up, 2 SFTP channels')).toBeVisible();
    await expect(pool.getByLabel('Connection 2 up, 2 SFTP channels')).toBeVisible();
  });

  test('both connections carry the upload: two connection series beside the total, each in the legend', async ({
    app,
    page,
  }) => {
    await startUpload(app);
    const legend = page.getByRole('list', { name: 'Series' });
    await expect
      .poll(async () => Number(await app.graph.getAttribute('data-connections')), { message: 'connection series' })
      .toBeGreaterThanOrEqual(2);
    await expect(legend.getByRole('listitem', { name: /^Connection 1 / })).toBeVisible();
    await expect(legend.getByRole('listitem', { name: /^Connection 2 / })).toBeVisible();
    // Each connection moves bytes (a non-zero rate in its legend entry at some point while the upload runs).
    await expect(legend.getByRole('listitem', { name: /^Connection 1 (?!0 B\/s)/ })).toBeVisible();
    await expect(legend.getByRole('listitem', { name: /^Connection 2 (?!0 B\/s)/ })).toBeVisible();
    // uPlot was given the total and both connections to draw.
    await expect
      .poll(async () => Number(await app.graph.getAttribute('data-plotted')), { message: 'series plotted' })
      .toBeGreaterThanOrEqual(3);
    // A few seconds of history in the picture (about 4 samples a second).
    await expect.poll(async () => Number(await app.graph.getAttribute('data-points'))).toBeGreaterThanOrEqual(12);
    await app.screenshot('graph-connections');
  });

  test("one speed: the status bar, the queue footer and the graph's total read alike in one frame", async ({
    app,
    page,
  }) => {
    await startUpload(app);
    // Read once both connections move bytes (as the series test sees them).
    const legend = page.getByRole('list', { name: 'Series' });
    await expect(legend.getByRole('listitem', { name: /^Connection 1 (?!0 B\/s)/ })).toBeVisible();
    await expect(legend.getByRole('listitem', { name: /^Connection 2 (?!0 B\/s)/ })).toBeVisible();
    const speeds = await page.evaluate(() => ({
      status: document.querySelector('[aria-label="Speed"]')?.textContent,
      footer: document.querySelector('[aria-label="Total speed"]')?.textContent,
      graph: document
        .querySelector('.graph [role="img"]')
        ?.getAttribute('aria-label')
        ?.replace(/^.*total /, ''),
    }));
    expect(speeds.status, JSON.stringify(speeds)).not.toBe('0 B/s');
    expect(speeds.footer).toBe(speeds.status);
    expect(speeds.graph).toBe(speeds.status);
  });

  test('done: the file is intact, every place reads 0, the pool is still up', async ({ app }) => {
    await startUpload(app);
    await app.waitForJobState('big.bin', 'done', 60_000);
    expect(sha256File(path.join(remoteDir, 'big.bin'))).toBe(sha256File(local));
    await expect(app.statusBar.getByLabel('Speed', { exact: true })).toHaveText('0 B/s');
    await expect(app.graph).toHaveAccessibleName(/total 0 B\/s$/);
    await expect(app.statusBar.getByLabel('Connections')).toHaveText('2/2');
  });
});

test('one connection of two cut by the server mid-upload: its series goes, the status bar shows it down, the upload ends on the other', async ({
  app,
  sshd,
  engine,
  localDir,
}) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  const remoteDir = path.join(sshd.root, 'cut');
  fs.mkdirSync(remoteDir, { recursive: true });
  fs.writeFileSync(path.join(remoteDir, 'still.txt'), 'x');
  const local = writeRandomFile(path.join(localDir, 'cut.bin'), 48 * MiB);
  const before = new Set(childPids(sshd.pid));
  await app.open();
  await app.createSite({
    name: 'Cut',
    host: sshd.host,
    port: sshd.port,
    user: sshd.user,
    keyPath: sshd.clientKeyPath,
    localDir,
    remoteDir,
    connections: 2,
    channels: 1,
  });
  await app.startConnect('Cut');
  await app.waitForRemoteListing(remoteDir);
  const pool = app.statusBar.getByLabel('Pool');
  await expect(app.statusBar.getByLabel('Connections')).toHaveText('2/2');
  await expect(pool.getByLabel(/^Connection \d up, 1 SFTP channels$/)).toHaveCount(2);

  // A rate-limited upload over both connections: two connection series.
  await app.statusBar.getByLabel('Speed limit').selectOption(String(10 * MiB));
  await app.localRow('cut.bin').click();
  await app.localPane.getByRole('button', { name: 'Local: upload' }).click();
  await app.waitForJobState('cut.bin', 'running');
  await expect
    .poll(async () => Number(await app.graph.getAttribute('data-connections')), { message: 'connection series' })
    .toBe(2);

  // The newest per-connection sshd process is this site's second connection: SIGKILL it (and its children).
  const mine = childPids(sshd.pid)
    .filter((p) => !before.has(p))
    .sort((a, b) => a - b);
  expect(mine.length, 'per-connection sshd processes of the site').toBe(2);
  const victim = mine[1];
  for (const p of [...descendantPids(victim), victim]) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      /* gone already */
    }
  }

  await expect(app.statusBar.getByLabel('Connections')).toHaveText('1/2');
  await expect(pool.getByLabel(/^Connection \d down$/)).toHaveCount(1);
  await expect(pool.getByLabel(/^Connection \d up, 1 SFTP channels$/)).toHaveCount(1);
  await expect(app.statusBar.getByLabel('Connected site')).toHaveText('Cut (connected)');
  // The cut connection's series is gone; the upload ends on the other connection, intact.
  await expect(app.graph).toHaveAttribute('data-connections', '1');
  await app.waitForJobState('cut.bin', 'done', 60_000);
  expect(sha256File(path.join(remoteDir, 'cut.bin'))).toBe(sha256File(local));
  // Browsing goes on over the connection left.
  await app.remoteGrid.focus();
  await app.page.keyboard.press('F5');
  await expect(app.remoteRow('still.txt')).toBeVisible();
});
