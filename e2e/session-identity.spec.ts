/**
 * Every piece of the window derives from the current session state (#29.4, #23.21): the title line, Connect and
 * Disconnect, the remote pane and its header follow the session after a disconnect and after a failed connect, and
 * every queue row names its site and destination. Each test starts from a fresh app with three sites saved (Alpha,
 * Beta, Nowhere on a closed port).
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { emptyDir } from './harness/files';
import { expect, test } from './harness/test';
import type { SluicePage } from './pages/SluicePage';

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let alphaDir = '';
let betaDir = '';

test.beforeEach(async ({ app, sshd, engine, localDir }) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  alphaDir = emptyDir(path.join(sshd.root, 'identity', 'alpha'));
  betaDir = emptyDir(path.join(sshd.root, 'identity', 'beta'));
  fs.writeFileSync(path.join(alphaDir, 'only.txt'), 'x');
  fs.writeFileSync(path.join(localDir, 'up.txt'), 'up');
  const site = { host: sshd.host, port: sshd.port, user: sshd.user, keyPath: sshd.clientKeyPath, localDir };
  await app.open();
  await app.createSite({ name: 'Alpha', ...site, remoteDir: alphaDir });
  await app.createSite({ name: 'Beta', ...site, remoteDir: betaDir });
  await app.createSite({ name: 'Nowhere', ...site, port: await closedPort() });
});

/** The window's pieces that follow the session. */
function controls(app: SluicePage) {
  const toolbar = app.page.getByRole('toolbar', { name: 'Main toolbar' });
  return {
    title: toolbar.getByLabel('Session'),
    disconnect: toolbar.getByRole('button', { name: 'Disconnect' }),
    connect: app.siteManager.getByRole('button', { name: 'Connect' }),
    remoteActions: app.remotePane.getByRole('toolbar', { name: 'Remote actions' }),
  };
}

/** Connects Alpha, uploads up.txt to it, and disconnects (the window as a day's work leaves it). */
async function alphaUsedAndLeft(app: SluicePage): Promise<void> {
  await app.startConnect('Alpha');
  await app.waitForRemoteListing(alphaDir);
  await app.localRow('up.txt').click();
  await app.localPane.getByRole('button', { name: 'Local: upload' }).click();
  await app.waitForJobState('up.txt', 'done');
  await controls(app).disconnect.click();
  await expect(app.remotePane).toContainText('Select a site and press Connect.');
}

test('connected: the title names the session, Connect is off and Disconnect on, the remote pane counts', async ({
  app,
  sshd,
}) => {
  const { title, connect, disconnect, remoteActions } = controls(app);
  const who = `${sshd.user}@${sshd.host}:${sshd.port}`;
  await expect(title).toHaveText('No site connected');
  await app.startConnect('Alpha');
  await app.waitForRemoteListing(alphaDir);
  await expect(title).toHaveText(who);
  await expect(connect).toBeDisabled();
  await expect(disconnect).toBeEnabled();
  await expect(remoteActions).toContainText('1 item');
});

test('a job names its site and where it goes', async ({ app }) => {
  await app.startConnect('Alpha');
  await app.waitForRemoteListing(alphaDir);
  await app.localRow('up.txt').click();
  await app.localPane.getByRole('button', { name: 'Local: upload' }).click();
  await app.waitForJobState('up.txt', 'done');
  await expect(app.jobRow('up.txt').getByLabel('up.txt site and destination')).toHaveText(`Alpha → ${alphaDir}`);
});

test('Disconnect: nothing of the connection is left in the window', async ({ app }) => {
  const { title, connect, disconnect, remoteActions } = controls(app);
  await app.startConnect('Alpha');
  await app.waitForRemoteListing(alphaDir);
  await disconnect.click();
  await expect(app.remotePane).toContainText('Select a site and press Connect.');
  await expect(title).toHaveText('No site connected');
  await expect(disconnect).toBeDisabled();
  await expect(connect).toBeEnabled();
  await expect(remoteActions).not.toContainText('item');
  await expect(app.statusBar.getByLabel('Cipher')).toHaveText('—');
});

test('a failed connect: no identity, no Disconnect, no count of the last listing; refused, not lost', async ({
  app,
}) => {
  const { title, disconnect, remoteActions } = controls(app);
  await alphaUsedAndLeft(app);
  await app.startConnect('Nowhere');
  await expect(app.connectionErrorBanner).toBeVisible({ timeout: 30_000 });
  // A connection never made is not 'lost' (#29.8).
  await expect(app.connectionErrorBanner).toContainText('(CONNECTION_REFUSED)');
  await expect(title).toHaveText('No site connected');
  await expect(disconnect).toBeDisabled();
  await expect(remoteActions).not.toContainText('item');
  await app.screenshot('session-connect-failed');
});

test("another site: its own folder, and the first site's job still names the first site", async ({ app }) => {
  const { remoteActions } = controls(app);
  await alphaUsedAndLeft(app);
  await app.startConnect('Beta');
  await app.waitForRemoteListing(betaDir);
  await expect(remoteActions).toContainText('0 items');
  await expect(app.jobRow('up.txt').getByLabel('up.txt site and destination')).toHaveText(`Alpha → ${alphaDir}`);
});
