/**
 * The site form (issue #23 item 20) against the real service and a private sshd: Save in view at 1400×860 and 1024×700
 * with the advanced settings folded; the key file chosen with Browse… (the main process's open dialog, the harness
 * standing in) and used to connect; a password kept in the secret store and not in sluice.db; AES-GCM as one row
 * (ssh2 also spells it RFC 5647's aes128-gcm); a weak algorithm's reason shown whole.
 * Each test opens a fresh app and a New site form filled for the private sshd with key authentication.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import type { SshdServer } from './fixtures/sshd';
import { FileDialogStandIn } from './harness/dialogs';
import { expect, test } from './harness/test';

const dialogs = new FileDialogStandIn();
test.use({ engineOptions: { dialogs } });

test.beforeEach(async ({ app }) => {
  dialogs.answers.length = 0;
  dialogs.asked.length = 0;
  await app.open();
});

/** Opens New site and fills it for `sshd` (name Keyed, key authentication, no key file yet). */
async function keyedForm(page: Page, sshd: SshdServer): Promise<Locator> {
  await page.getByRole('complementary', { name: 'Site manager' }).getByRole('button', { name: 'New site' }).click();
  const form = page.getByRole('dialog', { name: 'New site' });
  await form.getByLabel('Name', { exact: true }).fill('Keyed');
  await form.getByLabel('Host', { exact: true }).fill(sshd.host);
  await form.getByLabel('Port', { exact: true }).fill(String(sshd.port));
  await form.getByLabel('User', { exact: true }).fill(sshd.user);
  await form.getByLabel('Authentication').selectOption('key');
  return form;
}

test('the form: Save in view at 1400×860 and 1024×700, Advanced folded', async ({ app, page }) => {
  await app.siteManager.getByRole('button', { name: 'New site' }).click();
  const form = page.getByRole('dialog', { name: 'New site' });
  const save = form.getByRole('button', { name: 'Save' });
  await expect(save).toBeInViewport({ ratio: 1 });
  await expect(form.getByLabel('Connections')).toBeHidden();
  await page.setViewportSize({ width: 1024, height: 700 });
  await expect(save).toBeInViewport({ ratio: 1 });
});

test('Browse… for the key: cancelled leaves the field as it was; chosen fills it; the dialog starts in ~/.ssh', async ({
  app,
  sshd,
  engine,
  page,
}) => {
  const form = await keyedForm(page, sshd);
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
});

test('Advanced at 1024×700: one AES-GCM row per key size, a weak reason whole, Save still in view', async ({
  app,
  sshd,
  page,
}) => {
  const form = await keyedForm(page, sshd);
  await form.getByLabel('Key file').fill(sshd.clientKeyPath);
  const save = form.getByRole('button', { name: 'Save' });
  await page.setViewportSize({ width: 1024, height: 700 });
  const ciphers = await app.algorithmList(form, 'Ciphers');
  const names = await ciphers.locator('li code').allTextContents();
  expect(names).toContain('aes128-gcm@openssh.com');
  expect(names.filter((n) => n.startsWith('aes128-gcm'))).toEqual(['aes128-gcm@openssh.com']);
  expect(names.filter((n) => n.startsWith('aes256-gcm'))).toEqual(['aes256-gcm@openssh.com']);
  const cbc = ciphers
    .getByRole('listitem')
    .filter({ has: page.getByRole('checkbox', { name: 'aes128-cbc', exact: true }) });
  const reason = cbc.locator('.weak-badge');
  await reason.scrollIntoViewIfNeeded();
  await expect(reason).toHaveText(
    'weak: CBC mode (plaintext recovery, CVE-2008-5161); off by default since OpenSSH 7.4',
  );
  expect(
    await reason.evaluate(
      (el) =>
        el.scrollWidth <= el.clientWidth &&
        el.getBoundingClientRect().right <= el.closest('li')!.getBoundingClientRect().right,
    ),
  ).toBe(true);
  await expect(save).toBeInViewport({ ratio: 1 });
  await app.screenshot('site-form-advanced-1024x700');
});

test('the key chosen with Browse… logs in', async ({ app, sshd, engine, page }) => {
  const form = await keyedForm(page, sshd);
  dialogs.answers.push(sshd.clientKeyPath);
  await form.getByRole('button', { name: 'Browse…' }).click();
  await expect(form.getByLabel('Key file')).toHaveValue(sshd.clientKeyPath);
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form).toBeHidden();
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  await app.startConnect('Keyed');
  await expect(app.statusBar).toContainText('Site: Keyed (connected)', { timeout: 30_000 });
});

test('a password goes to the secret store, never into the site row', async ({ app, sshd, engine }) => {
  const secret = 'correct horse battery staple';
  await app.createSite({
    name: 'Pw',
    host: sshd.host,
    port: sshd.port,
    user: sshd.user,
    auth: 'password',
    password: secret,
  });
  const listed = await engine.service.invoke('sites.list', undefined);
  expect(listed.ok && listed.value.sites.find((s) => s.name === 'Pw')?.hasPassword).toBe(true);
  for (const f of fs.readdirSync(engine.home).filter((n) => n.startsWith('sluice.db'))) {
    expect(fs.readFileSync(path.join(engine.home, f)).includes(secret), `${f} holds no password`).toBe(false);
  }
});
