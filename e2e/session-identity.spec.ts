/**
 * Every piece of the window derives from the current session state (#29.4, #23.21): the title line, Connect and
 * Disconnect, the remote pane and its header follow the session after a disconnect and after a failed connect, and
 * every queue row names its site and destination.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { expect, test } from './harness/test';

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('title, Connect, Disconnect and the remote pane follow the session; queue rows name their site', async ({ app, sshd, engine, localDir }) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  const alphaDir = path.join(sshd.root, 'identity', 'alpha');
  const betaDir = path.join(sshd.root, 'identity', 'beta');
  fs.mkdirSync(alphaDir, { recursive: true });
  fs.mkdirSync(betaDir, { recursive: true });
  fs.writeFileSync(path.join(alphaDir, 'only.txt'), 'x');
  fs.writeFileSync(path.join(localDir, 'up.txt'), 'up');
  const site = { host: sshd.host, port: sshd.port, user: sshd.user, keyPath: sshd.clientKeyPath, localDir };
  const who = `${sshd.user}@${sshd.host}:${sshd.port}`;
  const title = app.page.getByRole('toolbar', { name: 'Main toolbar' }).getByLabel('Session');
  const disconnect = app.page.getByRole('toolbar', { name: 'Main toolbar' }).getByRole('button', { name: 'Disconnect' });
  const connect = app.siteManager.getByRole('button', { name: 'Connect' });
  const remoteActions = app.remotePane.getByRole('toolbar', { name: 'Remote actions' });

  await app.open();
  await app.createSite({ name: 'Alpha', ...site, remoteDir: alphaDir });
  await app.createSite({ name: 'Beta', ...site, remoteDir: betaDir });
  await app.createSite({ name: 'Nowhere', ...site, port: await closedPort() });
  await expect(title).toHaveText('No site connected');

  await app.startConnect('Alpha');
  await app.waitForRemoteListing(alphaDir);
  await expect(title).toHaveText(who);
  await expect(connect).toBeDisabled();
  await expect(disconnect).toBeEnabled();
  await expect(remoteActions).toContainText('1 item');

  // A job names its site and where it goes.
  await app.localRow('up.txt').click();
  await app.localPane.getByRole('button', { name: 'Local: upload' }).click();
  await app.waitForJobState('up.txt', 'done');
  await expect(app.jobRow('up.txt').getByLabel('up.txt site and destination')).toHaveText(`Alpha → ${alphaDir}`);

  // Disconnect: nothing of Alpha's connection is left in the window.
  await disconnect.click();
  await expect(app.remotePane).toContainText('Select a site and press Connect.');
  await expect(title).toHaveText('No site connected');
  await expect(disconnect).toBeDisabled();
  await expect(connect).toBeEnabled();
  await expect(remoteActions).not.toContainText('item');
  await expect(app.statusBar.getByLabel('Cipher')).toHaveText('—');

  // A failed connect: no identity, no Disconnect, no count of the last listing.
  await app.startConnect('Nowhere');
  await expect(app.connectionErrorBanner).toBeVisible({ timeout: 30_000 });
  // A connection never made is not 'lost' (#29.8).
  await expect(app.connectionErrorBanner).toContainText('(CONNECTION_REFUSED)');
  await expect(title).toHaveText('No site connected');
  await expect(disconnect).toBeDisabled();
  await expect(remoteActions).not.toContainText('item');
  await app.screenshot('session-connect-failed');

  // Another site: its own folder, and Alpha's job still says Alpha.
  await app.startConnect('Beta');
  await app.waitForRemoteListing(betaDir);
  await expect(remoteActions).toContainText('0 items');
  await expect(app.jobRow('up.txt').getByLabel('up.txt site and destination')).toHaveText(`Alpha → ${alphaDir}`);
});
