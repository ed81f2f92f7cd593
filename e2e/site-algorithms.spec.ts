/**
 * The site form's algorithm lists and "Test connection" (issue #15) against the real service and a private sshd: a weak
 * cipher marked with its reason and off by default, enabled and moved up with the keyboard, reset to the defaults; a
 * test with only ciphers the server refuses fails at the key exchange; a test restricted to aes256-ctr asks the host
 * key over the form and reports the negotiated set; the saved site's status bar shows the same set and the server.
 * A test of a server that never answers is cancelled from the form. Each test opens a fresh app and a New site form
 * filled for the private sshd (key authentication).
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import type { Locator } from '@playwright/test';
import { expect, test } from './harness/test';

let form: Locator;

test.beforeEach(async ({ app, sshd, page }) => {
  await app.open();
  await app.siteManager.getByRole('button', { name: 'New site' }).click();
  form = page.getByRole('dialog', { name: 'New site' });
  await form.getByLabel('Name', { exact: true }).fill('Restricted');
  await form.getByLabel('Host', { exact: true }).fill(sshd.host);
  await form.getByLabel('Port', { exact: true }).fill(String(sshd.port));
  await form.getByLabel('User', { exact: true }).fill(sshd.user);
  await form.getByLabel('Authentication').selectOption('key');
  await form.getByLabel('Key file').fill(sshd.clientKeyPath);
});

test('a test of a server that accepts and never says a word waits until "Cancel test"', async () => {
  const sockets = new Set<net.Socket>();
  const silent = net.createServer((sock) => {
    sockets.add(sock);
    sock.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    await form.getByLabel('Port', { exact: true }).fill(String((silent.address() as net.AddressInfo).port));
    await form.getByRole('button', { name: 'Test connection' }).click();
    await expect(form.getByLabel('Test result')).toHaveText('Testing the connection…');
    await form.getByRole('button', { name: 'Cancel test' }).click();
    await expect(form.getByLabel('Test result')).toHaveText('Test cancelled');
    await expect(form.getByRole('button', { name: 'Test connection' })).toBeEnabled();
  } finally {
    for (const sock of sockets) sock.destroy();
    silent.close();
  }
});

test('a weak cipher: marked with its reason, off by default; enabled it goes last, moves up from the keyboard; reset', async ({
  app,
  page,
}) => {
  const ciphers = await app.algorithmList(form, 'Ciphers');
  const cbc = ciphers
    .getByRole('listitem')
    .filter({ has: page.getByRole('checkbox', { name: 'aes128-cbc', exact: true }) });
  await expect(cbc).toContainText('weak: CBC mode');
  await expect(cbc.getByRole('checkbox')).not.toBeChecked();
  const defaults = await app.enabledAlgorithms(form, 'Ciphers');
  expect(defaults).not.toContain('aes128-cbc');
  await cbc.getByRole('checkbox').check();
  expect(await app.enabledAlgorithms(form, 'Ciphers')).toEqual([...defaults, 'aes128-cbc']);
  const up = ciphers.getByRole('button', { name: 'Move aes128-cbc up' });
  await up.focus();
  await page.keyboard.press('Enter');
  await expect(up).toBeFocused();
  await page.keyboard.press('Enter');
  const moved = [...defaults.slice(0, -2), 'aes128-cbc', ...defaults.slice(-2)];
  expect(await app.enabledAlgorithms(form, 'Ciphers')).toEqual(moved);
  await expect(form.locator('details.algorithm-family summary').filter({ hasText: 'Ciphers' })).toContainText('1 weak');
  await cbc.scrollIntoViewIfNeeded();
  await app.screenshot('site-algorithms');
  await form.getByRole('button', { name: 'Reset ciphers to defaults' }).click();
  await expect(ciphers, 'a reset keeps the list open').toBeVisible();
  expect(await app.enabledAlgorithms(form, 'Ciphers')).toEqual(defaults);
});

test('only ciphers the server refuses (OpenSSH offers no CBC since 7.4): the test fails at the key exchange', async ({
  app,
}) => {
  await app.chooseAlgorithms(form, 'Ciphers', ['aes128-cbc', '3des-cbc']);
  await form.getByRole('button', { name: 'Test connection' }).click();
  const result = form.getByLabel('Test result');
  await expect(result).toContainText('Test failed at key exchange');
  await expect(result).toContainText('aes128-cbc, 3des-cbc');
  await expect(result).toContainText('NEGOTIATION_FAILED');
});

test('restricted to aes256-ctr: the host-key dialog comes over the form, then the negotiated set', async ({
  app,
  sshd,
}) => {
  await app.chooseAlgorithms(form, 'Ciphers', ['aes256-ctr']);
  await form.getByRole('button', { name: 'Test connection' }).click();
  await expect(app.hostKeyDialog('unknown')).toBeVisible();
  await app.answerUnknownHostKey('Accept and save');
  const result = form.getByLabel('Test result');
  await expect(result).toContainText('Connection works');
  await expect(result.getByRole('definition').nth(1)).toHaveText('aes256-ctr');
  await expect(result).toContainText(/OpenSSH_\d/);
  await expect(result).toContainText('ssh-ed25519');
  await expect(result).toContainText(sshd.root);
  await result.scrollIntoViewIfNeeded();
  await app.screenshot('site-test-connection');
});

test('the saved site restricted to aes256-ctr: the status bar shows the set and the server; the editor the list', async ({
  app,
  sshd,
  engine,
  page,
}) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  await app.chooseAlgorithms(form, 'Ciphers', ['aes256-ctr']);
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form).toBeHidden();
  await app.startConnect('Restricted');
  await expect(app.statusBar.getByLabel('Cipher')).toHaveText('aes256-ctr');
  await expect(app.statusBar.getByLabel('Host-key algorithm')).toHaveText('ssh-ed25519');
  await expect(app.statusBar.getByLabel('MAC')).not.toHaveText('—');
  await expect(app.statusBar.getByLabel('Key exchange')).not.toHaveText('—');
  await expect(app.statusBar.getByLabel('Server version')).toHaveText(/^OpenSSH_\d/);

  // The saved list comes back in the editor.
  await app.siteManager.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit site Restricted' });
  expect(await app.enabledAlgorithms(edit, 'Ciphers')).toEqual(['aes256-ctr']);
  await edit.getByRole('button', { name: 'Cancel' }).click();
});
