/**
 * The quick-connect bar (issue #23 item 19) against the real service and a private sshd: a `~/.ssh/config` alias with
 * a path connects at once (User, Port, HostName and IdentityFile from the configuration, the host key asked) without
 * saving a site; `user@host:port` connects with the default key of ~/.ssh; an unreadable target is said in the bar;
 * "Save as site" opens the site form filled from the quick connection and saves it. Each test opens a fresh app.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SshdServer } from './fixtures/sshd';
import type { TestEngine } from './harness/engine';
import { expect, test } from './harness/test';
import type { SluicePage } from './pages/SluicePage';

const configFile = path.join(os.tmpdir(), `sluice-e2e-quick-${process.pid}.ssh_config`);
test.use({ engineOptions: { sshConfig: configFile } });
test.afterAll(() => fs.rmSync(configFile, { force: true }));

let remoteDir = '';

test.beforeEach(async ({ app, sshd }) => {
  fs.writeFileSync(
    configFile,
    `Host qbox\n  HostName ${sshd.host}\n  Port ${sshd.port}\n  User ${sshd.user}\n  IdentityFile ${sshd.clientKeyPath}\n`,
  );
  remoteDir = path.join(sshd.root, 'quick');
  fs.mkdirSync(remoteDir, { recursive: true });
  fs.writeFileSync(path.join(remoteDir, 'hello.txt'), 'hello');
  await app.open();
});

/** Quick-connects to `user@host:port` with the default key of ~/.ssh of the service's HOME (the host key known). */
async function quickConnectWithDefaultKey(app: SluicePage, sshd: SshdServer, engine: TestEngine): Promise<void> {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  fs.mkdirSync(path.join(engine.home, '.ssh'), { recursive: true, mode: 0o700 });
  fs.copyFileSync(sshd.clientKeyPath, path.join(engine.home, '.ssh', 'id_ed25519'));
  fs.chmodSync(path.join(engine.home, '.ssh', 'id_ed25519'), 0o600);
  await app.quickConnectTo(`${sshd.user}@${sshd.host}:${sshd.port}`);
}

test('an unreadable target is refused in the bar, naming what is wrong; nothing connects', async ({ app }) => {
  await app.quickConnectTo('qbox:99999');
  await expect(app.quickConnect.getByRole('alert')).toContainText('"99999" is not a port number');
  await expect(app.remotePane).toContainText('Select a site and press Connect.');
});

test("an ssh_config alias and a folder: the configuration's user, port and key; the host key asked once; no site saved", async ({
  app,
  sshd,
  page,
}) => {
  await app.quickConnectTo(`sftp://qbox${remoteDir}`);
  await app.answerUnknownHostKey('Accept and save');
  await app.waitForRemoteListing(remoteDir);
  await expect(app.remoteRow('hello.txt')).toBeVisible();
  await expect(app.quickConnect).toContainText(`qbox → ${sshd.host}`);
  await expect(page.getByRole('toolbar', { name: 'Main toolbar' })).toContainText(`${sshd.user}@qbox:${sshd.port}`);
  await expect(app.statusBar).toContainText(`Site: ${sshd.user}@qbox:${sshd.port} (connected)`);
  await expect(app.siteManager.getByRole('treeitem')).toHaveCount(0);
  // No agent here: a quick connection asks one only when SSH_AUTH_SOCK is set, as ssh(1) does (no warning).
  await expect(app.log).toContainText(`Connected to qbox:${sshd.port}`);
  await expect(app.log).not.toContainText('ssh-agent requested');
  await app.screenshot('quick-connect');
  await page.setViewportSize({ width: 1024, height: 700 });
  await expect(app.quickConnect.getByRole('button', { name: 'Save as site' })).toBeInViewport({ ratio: 1 });
  await app.screenshot('quick-connect-1024x700');
});

test("user@host:port: the agent method tries ~/.ssh/id_ed25519 of the service's HOME, as ssh(1) would", async ({
  app,
  sshd,
  engine,
  page,
}) => {
  await quickConnectWithDefaultKey(app, sshd, engine);
  await expect(page.getByRole('toolbar', { name: 'Main toolbar' })).toContainText(
    `${sshd.user}@${sshd.host}:${sshd.port}`,
  );
  await expect(app.remoteGrid).toBeVisible({ timeout: 30_000 });
  await expect(app.remotePane).toHaveAttribute('data-loading', 'false');
  await expect(app.remotePane).not.toHaveAttribute('data-path', remoteDir);
});

test('Save as site: the form is filled from the quick connection; saved, it is in the tree', async ({
  app,
  sshd,
  engine,
  page,
}) => {
  await quickConnectWithDefaultKey(app, sshd, engine);
  await expect(app.remoteGrid).toBeVisible({ timeout: 30_000 });
  await app.quickConnect.getByRole('button', { name: 'Save as site' }).click();
  const form = page.getByRole('dialog', { name: 'New site' });
  await expect(form.getByLabel('Host', { exact: true })).toHaveValue(sshd.host);
  await expect(form.getByLabel('Port', { exact: true })).toHaveValue(String(sshd.port));
  await expect(form.getByLabel('User', { exact: true })).toHaveValue(sshd.user);
  await expect(form.getByLabel('Name', { exact: true })).toHaveValue(`${sshd.user}@${sshd.host}:${sshd.port}`);
  await form.getByLabel('Name', { exact: true }).fill('Quick box');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form).toBeHidden();
  await expect(app.siteItem('Quick box')).toBeVisible();
  const listed = await engine.service.invoke('sites.list', undefined);
  expect(listed.ok && listed.value.sites.map((s) => [s.name, s.host, s.port, s.user, s.authMethod])).toEqual([
    ['Quick box', sshd.host, sshd.port, sshd.user, 'agent'],
  ]);
});
