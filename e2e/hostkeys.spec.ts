/**
 * Host keys the user manages: a changed key replaced after typing the host name, then the connection goes through
 * and known_hosts holds the new key in place of the old one (other lines kept).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { fingerprintOf } from './harness/files';

test('a changed key is replaced only after the exact host name is typed; then the site connects', async ({ app, sshd, engine, localDir }) => {
  // The client key's public half stands in for the "old" host key of this [host]:port.
  const oldPub = fs.readFileSync(`${sshd.clientKeyPath}.pub`, 'utf8').trim().split(/\s+/);
  const hostPattern = `[${sshd.host}]:${sshd.port}`;
  const otherLine = `other.example ${oldPub[0]} ${oldPub[1]}\n`;
  fs.writeFileSync(engine.knownHostsPath, `${otherLine}${hostPattern} ${oldPub[0]} ${oldPub[1]}\n`);
  const remoteDir = path.join(sshd.root, 'replaced-key');
  fs.mkdirSync(remoteDir, { recursive: true });
  fs.writeFileSync(path.join(remoteDir, 'after-replace.txt'), 'hello\n');

  await app.open();
  await app.createSite({ name: 'Reinstalled', host: sshd.host, port: sshd.port, user: sshd.user, keyPath: sshd.clientKeyPath, localDir, remoteDir });
  await app.startConnect('Reinstalled');
  const dialog = app.hostKeyDialog('changed');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel('Saved key location')).toHaveText(`${engine.knownHostsPath}:2`);
  await dialog.getByRole('button', { name: 'Replace the saved key…' }).click();

  const typed = dialog.getByLabel(/Type the host name/);
  const replace = dialog.getByRole('button', { name: 'Replace the saved key', exact: true });
  await expect(typed).toBeFocused();
  await expect(replace).toBeDisabled();
  await typed.fill(`${sshd.host}x`);
  await expect(replace).toBeDisabled();
  await typed.fill(sshd.host);
  await expect(replace).toBeEnabled();
  await app.screenshot('hostkey-replace');
  await replace.click();
  await expect(dialog).toBeHidden();

  // Connected with the new key: the remote folder is listed, and no dialog came back.
  await expect(app.page.getByText('after-replace.txt')).toBeVisible();
  await expect(app.hostKeyDialog('changed')).toHaveCount(0);
  const newKey = sshd.hostKeyBlobs()[0];
  const text = fs.readFileSync(engine.knownHostsPath, 'utf8');
  expect(text.startsWith(otherLine)).toBe(true);
  const lines = text.split('\n').filter(Boolean);
  expect(lines).toHaveLength(2);
  const [host, type, blob] = lines[1].split(' ');
  expect(host).toBe(hostPattern);
  expect(fingerprintOf(Buffer.from(blob, 'base64'))).toBe(fingerprintOf(newKey));
  expect(type).toBe(oldPub[0]);
});
