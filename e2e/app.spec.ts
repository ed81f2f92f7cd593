/**
 * The desktop app's main paths, driven through the UI against the real engine and a private sshd:
 * sites, the unknown-key dialog, browsing, drag and drop uploads, the queue and graph, the remote SHA-256; a changed
 * host key refused. Each test starts from a fresh app with its site saved (and, for a changed key, the dialog open).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { emptyDir, fingerprintOf, sha256File, writeRandomFile } from './harness/files';
import type { SshdServer } from './fixtures/sshd';
import type { SluicePage } from './pages/SluicePage';

test.describe('a new site', () => {
  let remoteDir = '';
  let local = '';

  test.beforeEach(async ({ app, sshd, localDir }) => {
    remoteDir = emptyDir(path.join(sshd.root, 'upload-by-drag'));
    fs.mkdirSync(path.join(remoteDir, 'existing-folder'), { recursive: true });
    fs.writeFileSync(path.join(remoteDir, 'readme.txt'), 'remote readme\n');
    fs.writeFileSync(path.join(remoteDir, 'existing-folder', 'inner.txt'), 'inner\n');
    local = writeRandomFile(path.join(localDir, 'hello.bin'), 48 * 1024 * 1024);
    fs.writeFileSync(path.join(localDir, 'notes.txt'), 'local notes\n');
    fs.writeFileSync(path.join(localDir, '.hidden'), 'hidden\n');
    fs.mkdirSync(path.join(localDir, 'photos'));

    await app.open();
    await app.createSite({
      name: 'Test server',
      folder: 'Lab',
      host: sshd.host,
      port: sshd.port,
      user: sshd.user,
      keyPath: sshd.clientKeyPath,
      localDir,
      remoteDir,
      connections: 2,
      channels: 2,
    });
  });

  /** Connects the site with its host key already in known_hosts (no dialog). */
  async function connectTrusted(app: SluicePage, sshd: SshdServer, knownHostsPath: string): Promise<void> {
    fs.appendFileSync(knownHostsPath, `${sshd.knownHostsLine()}\n`);
    await app.startConnect('Test server');
    await app.waitForRemoteListing(remoteDir);
  }

  test('the saved site is in the tree, in its folder', async ({ app }) => {
    await expect(app.siteManager.getByRole('treeitem', { name: 'Folder Lab' })).toBeVisible();
    await app.screenshot('site-manager');
  });

  test('its unknown host key: the fingerprint, Cancel focused; Accept and save writes known_hosts and connects', async ({
    app,
    sshd,
    engine,
  }) => {
    await app.startConnect('Test server');
    const dialog = app.hostKeyDialog('unknown');
    await expect(dialog).toBeVisible();
    await expect(dialog.getByLabel('Fingerprint')).toHaveText(fingerprintOf(sshd.hostKeyBlobs()[0]));
    await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
    await app.screenshot('hostkey-unknown');
    await app.answerUnknownHostKey('Accept and save');

    await app.waitForRemoteListing(remoteDir);
    expect(fs.readFileSync(engine.knownHostsPath, 'utf8')).toContain(
      sshd.knownHostsLine().split(' ').slice(1).join(' '),
    );
    await expect(app.statusBar.getByLabel('Cipher')).not.toHaveText('—');
    await expect(app.statusBar.getByLabel('Key exchange')).not.toHaveText('—');
  });

  test('browse: folders first, hidden files only on request, into a folder and back by breadcrumb', async ({
    app,
    sshd,
    engine,
  }) => {
    await connectTrusted(app, sshd, engine.knownHostsPath);
    await expect(app.remoteRow('readme.txt')).toBeVisible();
    await expect(app.localRow('.hidden')).toHaveCount(0);
    await app.localPane.getByLabel('Local: show hidden files').check();
    await expect(app.localRow('.hidden')).toBeVisible();
    await app.remoteRow('existing-folder').dblclick();
    await app.waitForRemoteListing(path.join(remoteDir, 'existing-folder'));
    await expect(app.remoteRow('inner.txt')).toBeVisible();
    await app.remotePane
      .getByRole('navigation', { name: 'Remote path' })
      .getByRole('button', { name: path.basename(remoteDir) })
      .click();
    await app.waitForRemoteListing(remoteDir);
    await app.screenshot('browser');
  });

  test('upload by drag and drop: the file arrives identical, the graph is drawn, the queue counts it done', async ({
    app,
    sshd,
    engine,
  }) => {
    await connectTrusted(app, sshd, engine.knownHostsPath);
    await app.dragLocalToRemote('hello.bin');
    await app.waitForJobState('hello.bin', 'done');
    await expect(app.remoteRow('hello.bin')).toBeVisible();
    expect(sha256File(path.join(remoteDir, 'hello.bin'))).toBe(sha256File(local));
    await expect(app.graph).not.toHaveAttribute('data-points', '0');
    await expect(app.queue.getByLabel('Done jobs')).toHaveText('1 done');
    await app.screenshot('queue-and-graph');
  });
});

test.describe('a changed host key', () => {
  let remoteDir = '';
  let knownBefore = '';
  let oldPub: string[] = [];

  test.beforeEach(async ({ app, sshd, engine, localDir }) => {
    // known_hosts holds another key for this [host]:port: the client key's public half stands in for the "old" key.
    oldPub = fs.readFileSync(`${sshd.clientKeyPath}.pub`, 'utf8').trim().split(/\s+/);
    const hostPattern = `[${sshd.host}]:${sshd.port}`;
    fs.writeFileSync(engine.knownHostsPath, `${hostPattern} ${oldPub[0]} ${oldPub[1]}\n`);
    knownBefore = fs.readFileSync(engine.knownHostsPath, 'utf8');
    remoteDir = emptyDir(path.join(sshd.root, 'changed-key'));
    fs.writeFileSync(path.join(localDir, 'secret.txt'), 'must not leave\n');

    await app.open();
    await app.createSite({
      name: 'Spoofed',
      host: sshd.host,
      port: sshd.port,
      user: sshd.user,
      keyPath: sshd.clientKeyPath,
      localDir,
      remoteDir,
    });
    await app.startConnect('Spoofed');
    await expect(app.hostKeyDialog('changed')).toBeVisible();
  });

  /** Answers the changed-key dialog with its default (Enter: Cancel). */
  async function refuse(app: SluicePage): Promise<void> {
    await app.page.keyboard.press('Enter');
    await expect(app.hostKeyDialog('changed')).toBeHidden();
  }

  test('the red dialog: both fingerprints, where the saved key is, Cancel the default', async ({
    app,
    sshd,
    engine,
  }) => {
    const dialog = app.hostKeyDialog('changed');
    await expect(dialog.getByLabel('New fingerprint')).toHaveText(fingerprintOf(sshd.hostKeyBlobs()[0]));
    await expect(dialog.getByLabel('Saved key fingerprint')).toHaveText(
      fingerprintOf(Buffer.from(oldPub[1], 'base64')),
    );
    await expect(dialog).toContainText('ED25519');
    await expect(dialog.getByRole('button')).toHaveText([
      'Cancel',
      'Add as an additional key',
      'Replace the saved key…',
    ]);
    await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
    await expect(dialog.getByLabel('Saved key location')).toHaveText(`${engine.knownHostsPath}:1`);
    await expect(dialog.getByLabel('Saved key seen')).toHaveText('first seen unknown, last seen unknown');
    const border = await dialog.evaluate((el) => getComputedStyle(el).borderTopColor);
    expect(border).toMatch(/^rgb\((19[0-9]|2[0-5][0-9]), [0-9]{1,2}, [0-9]{1,2}\)$/); // red
    await app.screenshot('hostkey-changed');
    await refuse(app);
  });

  test('refused: the remote pane has nothing to drop onto, a drop "from the OS" enqueues nothing, known_hosts unchanged', async ({
    app,
    engine,
    localDir,
    harness,
  }) => {
    await refuse(app);
    await expect(app.remoteGrid).toHaveCount(0);
    await app.dropOsFiles([path.join(localDir, 'secret.txt')]);
    await expect(app.page.getByRole('alert').filter({ hasText: 'HOSTKEY' })).toBeVisible();
    expect(harness.calls).not.toContain('queue.enqueue');
    expect(fs.readdirSync(remoteDir)).toEqual([]);
    expect(fs.readFileSync(engine.knownHostsPath, 'utf8')).toBe(knownBefore);
  });

  test('the error banner is one compact line that leaves the layout alone; the OpenSSH text is in Details and the log', async ({
    app,
  }) => {
    await refuse(app);
    const banner = app.connectionErrorBanner;
    await expect(banner).toContainText(
      'Spoofed: The server’s host key has changed. Connection refused. (HOSTKEY_CHANGED)',
    );
    expect((await banner.boundingBox())!.height).toBeLessThan(44);
    const panes = await app.page.locator('.panes').boundingBox();
    expect(panes!.height, 'the panes keep their height under a banner').toBeGreaterThan(250);
    await expect(app.log).toContainText('REMOTE HOST IDENTIFICATION HAS CHANGED');
    await banner.getByRole('button', { name: 'Details' }).click();
    const details = app.page.getByRole('dialog', { name: 'Connecting to Spoofed failed' });
    await expect(details.getByLabel('Details')).toContainText('REMOTE HOST IDENTIFICATION HAS CHANGED');
    await app.screenshot('connection-error-details');
    await details.getByRole('button', { name: 'Close' }).click();
    await expect(details).toBeHidden();
    await banner.getByRole('button', { name: 'Dismiss: Connection error' }).click();
    await expect(banner).toHaveCount(0);
  });
});
