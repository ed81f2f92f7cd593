/**
 * Symbolic links in the remote pane (#29.2), against the real engine and sshd: a link is listed as what it points to
 * (file or folder, the target's size, the target path in the tooltip); a link to a file acts as a file (a double-click
 * downloads it), a link to a folder opens it, and a broken link says so instead of a false "no such file".
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';

test('links resolved: a link to a file downloads, a link to a folder opens, a broken link says so', async ({
  app,
  sshd,
  engine,
  localDir,
}) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  const srv = path.join(sshd.root, 'links', 'srv');
  fs.mkdirSync(path.join(srv, 'docs'), { recursive: true });
  fs.writeFileSync(path.join(srv, 'docs', 'inside.txt'), 'inside');
  fs.writeFileSync(path.join(srv, 'alpha.txt'), 'a'.repeat(5000));
  fs.symlinkSync(path.join(srv, 'alpha.txt'), path.join(srv, 'to-file'));
  fs.symlinkSync('docs', path.join(srv, 'to-dir'));
  fs.symlinkSync(path.join(srv, 'missing.txt'), path.join(srv, 'dangling'));

  await app.open();
  await app.createSite({
    name: 'Links',
    host: sshd.host,
    port: sshd.port,
    user: sshd.user,
    keyPath: sshd.clientKeyPath,
    localDir,
    remoteDir: srv,
  });
  await app.startConnect('Links');
  await app.waitForRemoteListing(srv);

  const toFile = app.remoteRow('to-file');
  await expect(toFile).toHaveAttribute('data-type', 'file');
  await expect(toFile).toHaveAttribute('data-link', 'ok');
  await expect(toFile.getByRole('gridcell').nth(1)).toHaveText('4.9 KiB');
  await expect(toFile.getByRole('gridcell').first()).toHaveAttribute('title', `Link to ${path.join(srv, 'alpha.txt')}`);
  await expect(app.remoteRow('to-dir')).toHaveAttribute('data-type', 'dir');
  await expect(app.remoteRow('to-dir').getByRole('gridcell').first()).toHaveAttribute('title', 'Link to docs');
  const dangling = app.remoteRow('dangling');
  await expect(dangling).toHaveAttribute('data-link', 'broken');
  await expect(dangling.getByRole('gridcell').nth(1)).toHaveText('broken link');
  await expect(dangling.getByRole('gridcell').first()).toHaveAttribute(
    'title',
    `Broken link to ${path.join(srv, 'missing.txt')}`,
  );
  await app.screenshot('symlinks');

  // A broken link says so and the pane stays where it is.
  await dangling.dblclick();
  await expect(app.remotePane.getByRole('alert', { name: 'Remote error' })).toHaveText(
    `${path.join(srv, 'dangling')}: broken link, ${path.join(srv, 'missing.txt')} does not exist`,
  );
  await expect(app.remotePane).toHaveAttribute('data-path', srv);

  // A link to a file is a file: a double-click downloads what it points to.
  await toFile.dblclick();
  await app.waitForJobState('to-file', 'done');
  expect(fs.readFileSync(path.join(localDir, 'to-file'), 'utf8')).toBe('a'.repeat(5000));
  await expect(app.remotePane).toHaveAttribute('data-path', srv);

  // A link to a folder opens it.
  await app.remoteRow('to-dir').dblclick();
  await expect(app.remoteRow('inside.txt')).toBeVisible();
  await expect(app.remotePane.getByRole('alert', { name: 'Remote error' })).toBeHidden();
});
