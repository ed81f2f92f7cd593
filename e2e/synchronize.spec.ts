/**
 * Synchronize… (#27, the app side) against the real engine and sshd: the preview lists both folders recursively and
 * shows the plan in create / update / delete sections with counts and bytes; items unticked (a folder takes what it
 * holds along); a folder the server cannot list (sftp-server as nobody, a 0700 folder) is named, deletion is turned
 * off and no deletion is planned.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { emptyDir } from './harness/files';
import { SFTP_SERVER_PATH, startSshd, type SshdServer } from './fixtures/sshd';
import { SyncDialogPage } from './pages/ComparePage';
import type { SluicePage } from './pages/SluicePage';

const T = new Date('2026-03-01T12:00:00Z');
const LATER = new Date(T.getTime() + 3600_000);

function write(root: string, rel: string, text: string, time = T): void {
  const p = path.join(root, ...rel.split('/'));
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
  fs.utimesSync(p, time, time);
}

/** A local site tree and an older remote copy of it; returns the remote folder. */
function trees(localDir: string, serverRoot: string): string {
  const remote = emptyDir(path.join(serverRoot, 'www'));
  write(localDir, 'index.html', '<h1>the new page</h1>', LATER);
  write(remote, 'index.html', '<h1>old</h1>');
  write(localDir, 'style.css', 'body{}');
  write(remote, 'style.css', 'body{}');
  write(localDir, 'img/logo.png', 'x'.repeat(2048));
  write(localDir, 'img/icons/a.svg', '<svg/>');
  write(localDir, 'notes.tmp', 'scratch');
  write(remote, 'old.html', 'gone');
  write(remote, 'old/a.txt', 'gone too');
  return remote;
}

async function connect(app: SluicePage, server: SshdServer, localDir: string, remote: string): Promise<void> {
  await app.open();
  await app.createSite({
    name: 'Sync',
    host: server.host,
    port: server.port,
    user: server.user,
    keyPath: server.clientKeyPath,
    localDir,
    remoteDir: remote,
  });
  await app.startConnect('Sync');
  await app.waitForRemoteListing(remote);
}

test('the preview lists the plan by section; unticked items leave the totals', async ({
  app,
  page,
  sshd,
  engine,
  localDir,
}) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  const remote = trees(localDir, sshd.root);
  await connect(app, sshd, localDir, remote);
  const sync = new SyncDialogPage(page);
  await sync.open();
  await sync.preview({ delete: true, exclude: '*.tmp' });
  await expect(sync.section('Create')).toHaveAccessibleName('Create: 2 files, 2 folders, 2.0 KiB');
  await expect(sync.section('Update')).toHaveAccessibleName('Update: 1 file, 21 B');
  await expect(sync.section('Delete')).toHaveAccessibleName('Delete: 2 files, 1 folder, 12 B');
  await expect(sync.item('Create notes.tmp')).toHaveCount(0);
  await expect(sync.dialog.getByLabel('Preview summary')).toHaveText(/^1 alike/);
  // A folder to create unticked takes what it holds along; the section says how many are left.
  await sync.item('Create img/icons').uncheck();
  await expect(sync.item('Create img/icons/a.svg')).not.toBeChecked();
  await expect(sync.item('Create img/logo.png')).toBeChecked();
  await expect(sync.section('Create')).toHaveAccessibleName('Create: 1 file, 1 folder, 2.0 KiB (2 of 4 ticked)');
  // Keeping a file inside a folder to delete keeps the folder.
  await sync.item('Delete old/a.txt').uncheck();
  await expect(sync.item('Delete old')).not.toBeChecked();
  await expect(sync.section('Delete')).toHaveAccessibleName('Delete: 1 file, 4 B (1 of 3 ticked)');
  await app.screenshot('synchronize-preview');
  await sync.section('Delete').check();
  await expect(sync.item('Delete old/a.txt')).toBeChecked();
  expect(fs.existsSync(path.join(remote, 'old.html')), 'a preview changes nothing').toBe(true);
});

test('a folder the server cannot list: named, deletion turned off, nothing to delete', async ({
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
    const remote = trees(localDir, server.root);
    write(remote, 'locked/secret.txt', 'x');
    fs.chmodSync(path.join(remote, 'locked'), 0o700);
    await connect(app, server, localDir, remote);
    const sync = new SyncDialogPage(page);
    await sync.open();
    await sync.preview({ delete: true });
    await expect(sync.errors).toContainText('Nothing will be deleted: a folder could not be listed.');
    await expect(sync.errors).toContainText(/Remote locked: .*permission denied/i);
    await expect(sync.deleteBox).toBeDisabled();
    await expect(sync.deleteBox).not.toBeChecked();
    await expect(sync.section('Delete')).toHaveCount(0);
    await expect(sync.section('Create')).toBeVisible();
    await app.screenshot('synchronize-listing-error');
  } finally {
    await server.stop();
  }
});

test('Run puts the ticked plan in the queue as one batch; the files arrive and the deletions follow', async ({
  app,
  page,
  sshd,
  engine,
  localDir,
}) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  const remote = trees(localDir, sshd.root);
  await connect(app, sshd, localDir, remote);
  const sync = new SyncDialogPage(page);
  await sync.open();
  await sync.preview({ delete: true, exclude: '*.tmp' });
  await sync.item('Create img/icons').uncheck();
  await sync.run.click();
  await expect(sync.dialog).toBeHidden();
  await expect(app.log).toContainText('Synchronize: 2 copies and 3 deletions queued as one batch');
  await app.waitForJobState('logo.png and 2 more', 'done');
  expect(fs.readFileSync(path.join(remote, 'index.html'), 'utf8')).toBe('<h1>the new page</h1>');
  expect(fs.statSync(path.join(remote, 'index.html')).mtimeMs).toBe(LATER.getTime());
  expect(fs.statSync(path.join(remote, 'img', 'logo.png')).size).toBe(2048);
  expect(fs.existsSync(path.join(remote, 'img', 'icons')), 'unticked: not created').toBe(false);
  expect(fs.existsSync(path.join(remote, 'notes.tmp')), 'excluded').toBe(false);
  expect(fs.existsSync(path.join(remote, 'old.html'))).toBe(false);
  expect(fs.existsSync(path.join(remote, 'old'))).toBe(false);
  await app.remoteGrid.focus();
  await page.keyboard.press('F5');
  await expect(app.remoteRow('old.html')).toHaveCount(0);
  await expect(app.remoteRow('img')).toBeVisible();
  await app.screenshot('synchronize-queued');
});
