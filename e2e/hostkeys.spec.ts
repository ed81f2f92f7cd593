/**
 * Host keys the user manages: a changed key replaced after typing the host name, then the connection goes through
 * and known_hosts holds the new key in place of the old one (other lines kept).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { fingerprintOf } from './harness/files';

test('a changed key is replaced only after the exact host name is typed; then the site connects', async ({
  app,
  sshd,
  engine,
  localDir,
}) => {
  // The client key's public half stands in for the "old" host key of this [host]:port.
  const oldPub = fs.readFileSync(`${sshd.clientKeyPath}.pub`, 'utf8').trim().split(/\s+/);
  const hostPattern = `[${sshd.host}]:${sshd.port}`;
  const otherLine = `other.example ${oldPub[0]} ${oldPub[1]}\n`;
  fs.writeFileSync(engine.knownHostsPath, `${otherLine}${hostPattern} ${oldPub[0]} ${oldPub[1]}\n`);
  const remoteDir = path.join(sshd.root, 'replaced-key');
  fs.mkdirSync(remoteDir, { recursive: true });
  fs.writeFileSync(path.join(remoteDir, 'after-replace.txt'), 'hello\n');

  await app.open();
  await app.createSite({
    name: 'Reinstalled',
    host: sshd.host,
    port: sshd.port,
    user: sshd.user,
    keyPath: sshd.clientKeyPath,
    localDir,
    remoteDir,
  });
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

test('the known-hosts manager lists each line with file:line, type, fingerprint and dates, and removes one after confirming', async ({
  app,
  sshd,
  engine,
}) => {
  const pub = fs.readFileSync(`${sshd.clientKeyPath}.pub`, 'utf8').trim().split(/\s+/);
  const keep = `keep.example ${pub[0]} ${pub[1]}\n`;
  fs.writeFileSync(engine.knownHostsPath, `# comment\n${keep}gone.example ${pub[0]} ${pub[1]}\n`);
  const fp = fingerprintOf(Buffer.from(pub[1], 'base64'));

  await app.open();
  await app.page.getByRole('button', { name: 'Known hosts' }).click();
  const table = app.page.getByRole('table', { name: 'Known hosts' });
  const rows = table.locator('tbody tr');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText(`keep.example${engine.knownHostsPath}:2ED25519${fp}unknownunknown`);
  await expect(rows.nth(1)).toContainText(`gone.example${engine.knownHostsPath}:3`);
  await app.screenshot('known-hosts');

  await app.page.getByRole('button', { name: 'Remove gone.example ED25519' }).click();
  const confirm = app.page.getByRole('alertdialog', { name: 'Remove host key' });
  await expect(confirm.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await confirm.getByRole('button', { name: 'Remove' }).click();
  await expect(rows).toHaveCount(1);
  expect(fs.readFileSync(engine.knownHostsPath, 'utf8')).toBe(`# comment\n${keep}`);
});
