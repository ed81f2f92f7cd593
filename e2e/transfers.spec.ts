/**
 * Queue behaviour through the UI against the real engine: 200 files dropped from the OS at once,
 * pause and resume of a throttled upload (Toxiproxy), and the conflict dialog (overwrite, skip for all, rename,
 * "if newer" for all).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { emptyDir, sha256File, writeRandomFile } from './harness/files';
import { startProxyInFront, toxiproxyAvailable } from './fixtures/toxiproxy';
import { skipBecause } from './harness/skip';

/** Trusts the server up front (known_hosts line), so these specs start from a trusted key. */
function trust(knownHostsPath: string, line: string): void {
  fs.appendFileSync(knownHostsPath, `${line}\n`);
}

test('drop 200 files from the OS onto the remote pane: all done, all identical', async ({
  app,
  sshd,
  engine,
  localDir,
}) => {
  trust(engine.knownHostsPath, sshd.knownHostsLine());
  const remoteDir = emptyDir(path.join(sshd.root, 'many'));
  const batch = path.join(localDir, 'batch');
  const files = Array.from({ length: 200 }, (_, i) =>
    writeRandomFile(path.join(batch, `file-${String(i).padStart(3, '0')}.dat`), 1024 + i * 97),
  );

  await app.open();
  await app.createSite({
    name: 'Many',
    host: sshd.host,
    port: sshd.port,
    user: sshd.user,
    keyPath: sshd.clientKeyPath,
    localDir,
    remoteDir,
    connections: 2,
    channels: 2,
  });
  await app.startConnect('Many');
  await app.waitForRemoteListing(remoteDir);

  await app.dropOsFiles(files);
  await expect(app.queue.getByLabel('Jobs total')).toHaveText('200 jobs');
  await app.waitForDoneCount(200);
  await expect(app.queue.getByLabel('Failed jobs')).toHaveText('0 failed');
  for (const f of files)
    expect(sha256File(path.join(remoteDir, path.basename(f))), path.basename(f)).toBe(sha256File(f));
  // The queue is virtualized: far fewer rows in the DOM than jobs.
  const rendered = await app.queue.getByRole('listitem').count();
  expect(rendered).toBeGreaterThan(0);
  expect(rendered).toBeLessThan(60);
  // The remote pane is virtualized too: its last row is reached with End.
  await app.remoteGrid.focus();
  await app.page.keyboard.press('End');
  await expect(app.remoteRow('file-199.dat')).toBeVisible();
  await app.screenshot('queue-200-files');
});

test('a folder dropped from the OS is uploaded with its contents', async ({ app, sshd, engine, localDir }) => {
  trust(engine.knownHostsPath, sshd.knownHostsLine());
  const remoteDir = emptyDir(path.join(sshd.root, 'folder-drop'));
  await app.open();
  await app.createSite({
    name: 'Many',
    host: sshd.host,
    port: sshd.port,
    user: sshd.user,
    keyPath: sshd.clientKeyPath,
    localDir,
    remoteDir,
    connections: 2,
    channels: 2,
  });
  await app.startConnect('Many');
  await app.waitForRemoteListing(remoteDir);

  const tree = path.join(localDir, 'album');
  const nested = [
    writeRandomFile(path.join(tree, 'one.jpg'), 5000),
    writeRandomFile(path.join(tree, 'sub', 'two.jpg'), 7000),
  ];
  await app.dropOsFiles([tree]);
  await app.waitForDoneCount(1);
  await app.scrollQueueToEnd();
  await app.waitForJobState('album', 'done');
  for (const f of nested) expect(sha256File(path.join(remoteDir, path.relative(localDir, f)))).toBe(sha256File(f));
  await app.remoteGrid.focus();
  await app.page.keyboard.press('Home');
  await expect(app.remoteRow('album')).toHaveAttribute('data-type', 'dir');
});

test('pause and resume a throttled upload; the file arrives intact', async ({ app, sshd, localDir }) => {
  skipBecause(!toxiproxyAvailable(), 'toxiproxy-server is not installed (/usr/local/bin/toxiproxy-server)');
  // 4 MB/s client -> server: a 24 MiB upload takes ~6 s, long enough to pause early.
  const { toxi, port } = await startProxyInFront(sshd.port, [
    { type: 'bandwidth', stream: 'upstream', attributes: { rate: 4096 } },
  ]);
  try {
    const remoteDir = path.join(sshd.root, 'pause');
    fs.mkdirSync(remoteDir, { recursive: true });
    const local = writeRandomFile(path.join(localDir, 'slow.bin'), 24 * 1024 * 1024);

    await app.open();
    await app.createSite({
      name: 'Slow link',
      host: sshd.host,
      port,
      user: sshd.user,
      keyPath: sshd.clientKeyPath,
      localDir,
      remoteDir,
    });
    await app.startConnect('Slow link');
    await expect(app.hostKeyDialog('unknown')).toBeVisible();
    await app.answerUnknownHostKey('Accept once');
    await app.waitForRemoteListing(remoteDir);

    await app.dragLocalToRemote('slow.bin');
    const row = app.jobRow('slow.bin');
    await app.waitForJobState('slow.bin', 'running');
    await app.waitForJobBytes('slow.bin', 1);
    await app.jobAction('slow.bin', 'Pause');
    await app.waitForJobState('slow.bin', 'paused');
    await expect(app.graph).not.toHaveAttribute('data-points', '0');
    await app.screenshot('queue-paused');
    // Integrity: a paused upload has not reached its final name.
    expect(fs.existsSync(path.join(remoteDir, 'slow.bin')), 'no final file while paused').toBe(false);
    // How far the engine got before the pause took effect (in-flight writes drain first); reported, not asserted.
    test.info().annotations.push({
      type: 'bytes at pause',
      description: `${await row.getAttribute('data-bytes-done')} of ${24 * 1024 * 1024}`,
    });

    await app.jobAction('slow.bin', 'Resume');
    await app.waitForJobState('slow.bin', 'done', 90_000);
    expect(sha256File(path.join(remoteDir, 'slow.bin'))).toBe(sha256File(local));
  } finally {
    await toxi.stop();
  }
});

test.describe('the conflict dialog', () => {
  const names = ['same.txt', 'a.txt', 'b.txt', 'c.txt', 'd.txt'];
  let remoteDir = '';

  test.beforeEach(async ({ app, sshd, engine, localDir }) => {
    trust(engine.knownHostsPath, sshd.knownHostsLine());
    remoteDir = emptyDir(path.join(sshd.root, 'conflicts'));
    for (const n of names) {
      fs.writeFileSync(path.join(remoteDir, n), `old remote ${n}\n`);
      fs.writeFileSync(path.join(localDir, n), `new local ${n} (longer)\n`);
    }
    // For "if newer": c.txt's local copy is a year older than the remote one, d.txt's a year newer.
    const [y2020, y2021] = [1_588_888_888, 1_588_888_888 + 365 * 86_400];
    for (const [p, t] of [
      ['c.txt', y2020],
      ['d.txt', y2021],
    ] as const)
      fs.utimesSync(path.join(localDir, p), t, t);
    for (const [p, t] of [
      ['c.txt', y2021],
      ['d.txt', y2020],
    ] as const)
      fs.utimesSync(path.join(remoteDir, p), t, t);

    await app.open();
    await app.createSite({
      name: 'Conflicts',
      host: sshd.host,
      port: sshd.port,
      user: sshd.user,
      keyPath: sshd.clientKeyPath,
      localDir,
      remoteDir,
    });
    await app.startConnect('Conflicts');
    await app.waitForRemoteListing(remoteDir);
  });

  test('one file: the dialog names the target and both sizes, Skip focused; Overwrite replaces it', async ({ app }) => {
    await app.dragLocalToRemote('same.txt');
    const dialog = app.conflictDialog;
    await expect(dialog).toBeVisible();
    await expect(dialog.getByLabel('Conflicting target')).toHaveText(path.join(remoteDir, 'same.txt'));
    await expect(dialog).toContainText(/Existing\s*20 B/);
    await expect(dialog).toContainText(/Incoming\s*28 B/);
    await expect(dialog.getByRole('button', { name: 'Skip' })).toBeFocused();
    await app.screenshot('conflict-dialog');
    await dialog.getByRole('button', { name: 'Overwrite' }).click();
    await app.waitForJobState('same.txt', 'done');
    expect(fs.readFileSync(path.join(remoteDir, 'same.txt'), 'utf8')).toBe('new local same.txt (longer)\n');
  });

  test('two files in one drag = one batch, one row: "skip, for all" answers both, and both show as skipped', async ({
    app,
  }) => {
    const dialog = app.conflictDialog;
    await app.localRow('a.txt').click();
    await app.localRow('b.txt').click({ modifiers: ['Control'] });
    await app.dragLocalToRemote('a.txt');
    await expect(dialog).toBeVisible();
    await dialog.getByLabel(/Apply to all conflicts/).check();
    await dialog.getByRole('button', { name: 'Skip' }).click();
    await app.waitForJobState('a.txt and 1 more', 'done');
    await expect(app.jobRow('a.txt and 1 more').locator('.state')).toHaveText('skipped');
    await app.expandBatch('a.txt and 1 more');
    await expect(app.fileRow('a.txt')).toHaveAttribute('data-file-state', 'skipped');
    await expect(app.fileRow('b.txt')).toHaveAttribute('data-file-state', 'skipped');
    await expect(dialog).toBeHidden();
    expect(fs.readFileSync(path.join(remoteDir, 'a.txt'), 'utf8')).toBe('old remote a.txt\n');
    expect(fs.readFileSync(path.join(remoteDir, 'b.txt'), 'utf8')).toBe('old remote b.txt\n');
  });

  test('Rename: the existing file stays, the upload lands beside it under a free name', async ({ app, localDir }) => {
    const dialog = app.conflictDialog;
    fs.writeFileSync(path.join(localDir, 'a.txt'), 'renamed upload of a.txt\n');
    await app.localRow('a.txt').click();
    await app.dragLocalToRemote('a.txt');
    await expect(dialog).toBeVisible();
    await expect(dialog.getByLabel('Conflicting target')).toHaveText(path.join(remoteDir, 'a.txt'));
    await dialog.getByRole('button', { name: 'Rename' }).click();
    await expect(dialog).toBeHidden();
    await expect(app.queue.getByLabel('Done jobs')).toHaveText('1 done');
    expect(fs.readFileSync(path.join(remoteDir, 'a.txt'), 'utf8')).toBe('old remote a.txt\n');
    const added = fs.readdirSync(remoteDir).filter((n) => !names.includes(n));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/^a.*\.txt$/);
    expect(fs.readFileSync(path.join(remoteDir, added[0]), 'utf8')).toBe('renamed upload of a.txt\n');
    await expect(app.remoteRow(added[0])).toBeVisible();
  });

  test('"If newer", for all: the engine decides per file; the newer d.txt replaces its target, the older c.txt is skipped', async ({
    app,
  }) => {
    const dialog = app.conflictDialog;
    await app.localRow('c.txt').click();
    await app.localRow('d.txt').click({ modifiers: ['Control'] });
    await app.dragLocalToRemote('c.txt');
    await expect(dialog).toBeVisible();
    await dialog.getByLabel(/Apply to all conflicts/).check();
    await dialog.getByRole('button', { name: 'If newer' }).click();
    await app.waitForJobState('c.txt and 1 more', 'done');
    await app.expandBatch('c.txt and 1 more');
    await expect(app.fileRow('c.txt')).toHaveAttribute('data-file-state', 'skipped');
    await expect(app.queue.getByRole('note', { name: 'Why c.txt skipped' })).toHaveText('the target is newer');
    await expect(app.fileRow('d.txt')).toHaveAttribute('data-file-state', 'done');
    await expect(dialog).toBeHidden();
    expect(fs.readFileSync(path.join(remoteDir, 'c.txt'), 'utf8')).toBe('old remote c.txt\n');
    expect(fs.readFileSync(path.join(remoteDir, 'd.txt'), 'utf8')).toBe('new local d.txt (longer)\n');
  });
});
