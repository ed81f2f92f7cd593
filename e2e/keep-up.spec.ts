/**
 * Keep remote up to date… (#27, the app side) against the real engine and sshd: started from the bar over the panes
 * on the local pane's folder and the remote pane's, it syncs first, then a file written locally shows in the status
 * bar's count and in the remote pane (listed again as keep-up reports it) and on the server; a rename with delete on
 * is a rename there; Stop leaves the status bar, and a later write does not arrive. An upload the server refuses
 * shows the operation, the local path and the server's message in the status bar, and the keep-up goes on.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { SFTP_SERVER_PATH, startSshd } from './fixtures/sshd';
import { emptyDir } from './harness/files';
import { KeepUpPage } from './pages/KeepUpPage';

test('keep up to date: sync first, a local write counted and shown in the remote pane, a rename, Stop', async ({
  app,
  page,
  sshd,
  engine,
  localDir,
}) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  const remote = emptyDir(path.join(sshd.root, 'kept'));
  fs.writeFileSync(path.join(localDir, 'index.html'), '<h1>there before</h1>');
  await app.open();
  await app.createSite({
    name: 'Kept',
    host: sshd.host,
    port: sshd.port,
    user: sshd.user,
    keyPath: sshd.clientKeyPath,
    localDir,
    remoteDir: remote,
  });
  await app.startConnect('Kept');
  await app.waitForRemoteListing(remote);

  const keep = new KeepUpPage(page);
  await keep.open();
  await expect(keep.syncFirstBox).toBeChecked();
  await app.screenshot('keep-up-dialog');
  await keep.start({ delete: true });
  await expect(keep.state(localDir)).toHaveText('1 uploaded, 0 deleted', { timeout: 30_000 });
  await expect(app.remoteRow('index.html')).toBeVisible();

  fs.writeFileSync(path.join(localDir, 'news.html'), '<p>written while kept</p>');
  await expect(keep.state(localDir)).toHaveText('2 uploaded, 0 deleted', { timeout: 30_000 });
  await expect(keep.lastChange(localDir)).toContainText('uploaded news.html');
  await expect(app.remoteRow('news.html')).toBeVisible();
  expect(fs.readFileSync(path.join(remote, 'news.html'), 'utf8')).toBe('<p>written while kept</p>');
  await app.screenshot('keep-up-status');

  const inode = fs.statSync(path.join(remote, 'news.html')).ino;
  fs.renameSync(path.join(localDir, 'news.html'), path.join(localDir, 'latest.html'));
  await expect(keep.state(localDir)).toHaveText('2 uploaded, 0 deleted, 1 renamed', { timeout: 30_000 });
  await expect(keep.lastChange(localDir)).toContainText('renamed news.html → latest.html');
  await expect(app.remoteRow('latest.html')).toBeVisible();
  await expect(app.remoteRow('news.html')).toHaveCount(0);
  expect(fs.statSync(path.join(remote, 'latest.html')).ino, 'renamed, not sent again').toBe(inode);

  await keep.stop(localDir);
  fs.writeFileSync(path.join(localDir, 'late.html'), 'after the stop');
  // Another keep-up of a subfolder (no sync first): its write arrives, the stopped one's never does.
  const sub = path.join(localDir, 'sub');
  fs.mkdirSync(sub);
  await page.keyboard.press('Escape');
  await app.localGrid.focus();
  await page.keyboard.press('F5');
  await app.localRow('sub').dblclick();
  await expect(app.localPane).toHaveAttribute('data-path', sub);
  await keep.open();
  await keep.start({ syncFirst: false });
  fs.writeFileSync(path.join(sub, 'b.html'), 'second');
  await expect(keep.state(sub)).toHaveText('1 uploaded, 0 deleted', { timeout: 30_000 });
  expect(fs.existsSync(path.join(remote, 'b.html')), 'the second keep-up uploads into the remote folder').toBe(true);
  expect(fs.existsSync(path.join(remote, 'late.html')), 'nothing arrives after Stop').toBe(false);
  await keep.stop(sub);
});

test('an upload the server refuses: the operation, the local path and the message in the status bar', async ({
  app,
  page,
  engine,
  localDir,
}) => {
  // sftp-server as nobody: the root-run tests' permission bits hold for it.
  const server = await startSshd({
    extraConfig: [`Subsystem sftp /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups ${SFTP_SERVER_PATH}`],
  });
  try {
    fs.appendFileSync(engine.knownHostsPath, `${server.knownHostsLine()}\n`);
    for (const d of [path.dirname(server.root), server.root]) fs.chmodSync(d, 0o755);
    const remote = emptyDir(path.join(server.root, 'shared'));
    fs.mkdirSync(path.join(remote, 'locked'));
    fs.chmodSync(remote, 0o777);
    fs.chmodSync(path.join(remote, 'locked'), 0o555);
    fs.mkdirSync(path.join(localDir, 'locked'));
    await app.open();
    await app.createSite({
      name: 'Refusing',
      host: server.host,
      port: server.port,
      user: server.user,
      keyPath: server.clientKeyPath,
      localDir,
      remoteDir: remote,
    });
    await app.startConnect('Refusing');
    await app.waitForRemoteListing(remote);
    const keep = new KeepUpPage(page);
    await keep.open();
    await keep.start({ syncFirst: false });
    await expect(keep.state(localDir)).toHaveText('0 uploaded, 0 deleted');
    fs.writeFileSync(path.join(localDir, 'locked', 'report.txt'), 'refused');
    const error = keep.segment(localDir).getByRole('alert', { name: 'Keep-up error' });
    await expect(error).toContainText(`cannot upload ${path.join(localDir, 'locked', 'report.txt')}:`, {
      timeout: 30_000,
    });
    await expect(error).toContainText(/permission denied/i);
    fs.writeFileSync(path.join(localDir, 'ok.txt'), 'accepted');
    await expect(keep.state(localDir)).toHaveText('1 uploaded, 0 deleted', { timeout: 30_000 });
    await app.screenshot('keep-up-error');
    await keep.stop(localDir);
  } finally {
    await server.stop();
  }
});
