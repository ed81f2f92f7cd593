/**
 * The site form (issue #23 item 20) against the real service and a private sshd: Save in view at 1400×860 and 1024×700
 * with the advanced settings folded; the key file chosen with Browse… (the main process's open dialog, the harness
 * standing in) and used to connect; a password kept in the secret store and not in sluice.db; AES-GCM as one row
 * (ssh2 also spells it RFC 5647's aes128-gcm); a weak algorithm's reason shown whole.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FileDialogStandIn } from './harness/dialogs';
import { expect, test } from './harness/test';

const dialogs = new FileDialogStandIn();
test.use({ engineOptions: { dialogs } });

test('site form: Browse… for the key, password in the secret store, Advanced folded, one AES-GCM row, weak reasons whole', async ({ app, sshd, engine, page }) => {
  await app.open();
  await app.siteManager.getByRole('button', { name: 'New site' }).click();
  const form = page.getByRole('dialog', { name: 'New site' });
  const save = form.getByRole('button', { name: 'Save' });
  await expect(save).toBeInViewport({ ratio: 1 });
  await expect(form.getByLabel('Connections')).toBeHidden();
  await form.getByLabel('Name', { exact: true }).fill('Keyed');
  await form.getByLabel('Host', { exact: true }).fill(sshd.host);
  await form.getByLabel('Port', { exact: true }).fill(String(sshd.port));
  await form.getByLabel('User', { exact: true }).fill(sshd.user);
  await form.getByLabel('Authentication').selectOption('key');

  // Browse…: cancelled leaves the field as it was; chosen fills it. The dialog starts in ~/.ssh, hidden files shown.
  await form.getByRole('button', { name: 'Browse…' }).click();
  await expect.poll(() => dialogs.asked.length).toBe(1);
  await expect(form.getByLabel('Key file')).toHaveValue('');
  dialogs.answers.push(sshd.clientKeyPath);
  await form.getByRole('button', { name: 'Browse…' }).click();
  await expect(form.getByLabel('Key file')).toHaveValue(sshd.clientKeyPath);
  expect(dialogs.asked).toEqual([
    { title: 'Choose a private key', defaultPath: path.join(engine.home, '.ssh'), showHidden: true },
    { title: 'Choose a private key', defaultPath: path.join(engine.home, '.ssh'), showHidden: true },
  ]);
  await app.screenshot('site-form');
  await page.setViewportSize({ width: 1024, height: 700 });
  await expect(save).toBeInViewport({ ratio: 1 });

  // Advanced: one AES-GCM row per key size; a weak reason whole, not cut; Save still in view.
  const ciphers = await app.algorithmList(form, 'Ciphers');
  const names = await ciphers.locator('li code').allTextContents();
  expect(names).toContain('aes128-gcm@openssh.com');
  expect(names.filter((n) => n.startsWith('aes128-gcm'))).toEqual(['aes128-gcm@openssh.com']);
  expect(names.filter((n) => n.startsWith('aes256-gcm'))).toEqual(['aes256-gcm@openssh.com']);
  const cbc = ciphers.getByRole('listitem').filter({ has: page.getByRole('checkbox', { name: 'aes128-cbc', exact: true }) });
  const reason = cbc.locator('.weak-badge');
  await reason.scrollIntoViewIfNeeded();
  await expect(reason).toHaveText('weak: CBC mode (plaintext recovery, CVE-2008-5161); off by default since OpenSSH 7.4');
  expect(await reason.evaluate((el) => el.scrollWidth <= el.clientWidth && el.getBoundingClientRect().right <= el.closest('li')!.getBoundingClientRect().right)).toBe(true);
  await expect(save).toBeInViewport({ ratio: 1 });
  await app.screenshot('site-form-advanced-1024x700');
  await page.setViewportSize({ width: 1400, height: 860 });
  await save.click();
  await expect(form).toBeHidden();

  // The chosen key logs in.
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  await app.startConnect('Keyed');
  await expect(app.statusBar).toContainText('Site: Keyed (connected)', { timeout: 30_000 });

  // A password goes to the secret store, never into the site row.
  const secret = 'correct horse battery staple';
  await app.createSite({ name: 'Pw', host: sshd.host, port: sshd.port, user: sshd.user, auth: 'password', password: secret });
  const listed = await engine.service.invoke('sites.list', undefined);
  expect(listed.ok && listed.value.sites.find((s) => s.name === 'Pw')?.hasPassword).toBe(true);
  for (const f of fs.readdirSync(engine.home).filter((n) => n.startsWith('sluice.db'))) {
    expect(fs.readFileSync(path.join(engine.home, f)).includes(secret), `${f} holds no password`).toBe(false);
  }
});
