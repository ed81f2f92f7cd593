/**
 * Secrets and host-key notices through the UI against the real engine:
 * a password site (scripted ssh2 server) asks for the password on Connect, a wrong one is asked again ("Wrong
 * password, try again."), cancelling fails with a compact banner, the right one connects, and neither ever shows up
 * in events, the log panel or the DOM;
 * a trusted OpenSSH server that announces a second host key (hostkeys-00@openssh.com) gets it saved to
 * known_hosts and the UI says so with a neutral notice.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { fingerprintOf, writeRandomFile } from './harness/files';
import type { Locator } from '@playwright/test';
import { startScriptedServer, type ScriptedServer } from './fixtures/scriptedServer';
import type { SluicePage } from './pages/SluicePage';
import { startSshd } from './fixtures/sshd';

const PASSWORD = 'Sluice-pw-7f3k9Q';
const WRONG = 'not-the-pw-Zx81';

test.describe('a password site (scripted ssh2 server)', () => {
  let server: ScriptedServer;
  let events: string[] = [];
  let unsubscribe = (): void => undefined;

  test.beforeEach(async ({ app, engine, localDir }) => {
    server = await startScriptedServer({ password: PASSWORD });
    events = [];
    unsubscribe = engine.service.subscribe((event, payload) => events.push(`${event} ${JSON.stringify(payload)}`));
    fs.appendFileSync(engine.knownHostsPath, `${server.knownHostsLine()}\n`);
    writeRandomFile(path.join(localDir, 'up.bin'), 64 * 1024);
    await app.open();
    await app.createSite({
      name: 'Pw',
      host: server.host,
      port: server.port,
      user: server.user,
      auth: 'password',
      localDir,
      remoteDir: server.root,
    });
  });

  test.afterEach(async () => {
    unsubscribe();
    await server.stop();
  });

  /** Nowhere: engine events (what the window receives), the log panel, the page's text, markup and inputs. */
  async function nowhere(app: SluicePage, secrets: string[]): Promise<void> {
    for (const secret of secrets) {
      expect(
        events.filter((e) => e.includes(secret)),
        `events carrying ${secret}`,
      ).toEqual([]);
      await expect(app.log).not.toContainText(secret);
      expect(await app.page.content()).not.toContain(secret);
      const inputs = await app.page
        .locator('input')
        .evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
      expect(inputs).not.toContain(secret);
    }
  }

  /** Connect, a wrong password, and the dialog asking again (the test's start). */
  async function wrongOnce(app: SluicePage): Promise<Locator> {
    await app.startConnect('Pw');
    const prompt = app.passwordDialog(`${server.user}@${server.host}`);
    await expect(prompt).toBeVisible();
    await expect(prompt.getByLabel('Password')).toHaveAttribute('type', 'password');
    await prompt.getByLabel('Password').fill(WRONG);
    await prompt.getByRole('button', { name: 'Connect' }).click();
    await expect(prompt.getByRole('alert')).toHaveText('Wrong password, try again.', { timeout: 30_000 });
    return prompt;
  }

  test('a wrong password is asked again in the same dialog, not a hard failure', async ({ app }) => {
    const prompt = await wrongOnce(app);
    await expect(prompt.getByLabel('Password')).toHaveValue('');
    await app.screenshot('password-retry');
    await nowhere(app, [WRONG]);
  });

  test('Cancel gives up: the connect fails with a one-line banner, no password in it; the failure is logged', async ({
    app,
    page,
  }) => {
    const prompt = await wrongOnce(app);
    await page.keyboard.press('Escape');
    await expect(prompt).toBeHidden();
    await expect(app.connectionErrorBanner).toContainText('AUTH_FAILED', { timeout: 30_000 });
    await nowhere(app, [WRONG]);
    expect(
      events.some((e) => e.startsWith('log ') && /AUTH_FAILED|authentication/i.test(e)),
      'the failure was logged',
    ).toBe(true);
  });

  test('the right password connects and browses; a transfer runs on the same session; the password is not stored', async ({
    app,
    engine,
    page,
  }) => {
    const prompt = await wrongOnce(app);
    await page.keyboard.press('Escape');
    await expect(app.connectionErrorBanner).toContainText('AUTH_FAILED', { timeout: 30_000 });
    await app.startConnect('Pw');
    await expect(prompt).toBeVisible();
    await expect(prompt.getByRole('alert')).toHaveCount(0);
    await prompt.getByLabel('Password').fill(PASSWORD);
    await prompt.getByRole('button', { name: 'Connect' }).click();
    await app.waitForRemoteListing(server.root);
    await expect(app.connectionErrorBanner).toHaveCount(0);
    await app.dragLocalToRemote('up.bin');
    await app.waitForJobState('up.bin', 'done');
    await nowhere(app, [PASSWORD, WRONG]);
    // Not stored either: the site still has no saved password.
    const sites = await engine.service.invoke('sites.list', undefined);
    expect(sites.ok && sites.value.sites.map((s) => s.hasPassword)).toEqual([false]);
  });
});

test('a trusted server announcing a new host key: saved to known_hosts, shown as a neutral notice', async ({
  app,
  engine,
  localDir,
}) => {
  const sshd = await startSshd({ hostKeyTypes: ['ed25519', 'ecdsa'] });
  try {
    // Only the ed25519 key is known; OpenSSH announces both after authentication (UpdateHostKeys).
    fs.writeFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
    const [, ecdsa] = sshd.hostKeyBlobs();
    await app.open();
    await app.createSite({
      name: 'Rotating',
      host: sshd.host,
      port: sshd.port,
      user: sshd.user,
      keyPath: sshd.clientKeyPath,
      localDir,
      remoteDir: sshd.root,
    });
    await app.startConnect('Rotating');
    await app.waitForRemoteListing(sshd.root);
    await expect(app.hostKeyDialog('unknown')).toHaveCount(0);

    const notice = app.notices;
    await expect(notice).toHaveCount(1, { timeout: 15_000 });
    await expect(notice).toContainText(
      `${sshd.host}:${sshd.port} announced 1 new host key (ecdsa-sha2-nistp256); saved to known_hosts.`,
    );
    await expect(app.log).toContainText('announced 1 new host key (hostkeys-00@openssh.com)');
    const known = fs.readFileSync(engine.knownHostsPath, 'utf8');
    expect(known).toContain(ecdsa.toString('base64'));
    expect(known.trim().split('\n')).toHaveLength(2);
    // Neutral, not an error: no alert, and the notice is one line.
    await expect(app.page.getByRole('alert')).toHaveCount(0);
    expect((await notice.boundingBox())!.height).toBeLessThan(40);
    await app.screenshot('hostkey-rotated');

    await notice.getByRole('button', { name: 'Details' }).click();
    const details = app.page.getByRole('dialog', { name: 'Host keys saved' });
    await expect(details.getByLabel('Details')).toContainText(fingerprintOf(ecdsa));
    await expect(details.getByLabel('Details')).toContainText(engine.knownHostsPath);
    await details.getByRole('button', { name: 'Close' }).click();
    await notice.getByRole('button', { name: 'Dismiss: Notice' }).click();
    await expect(notice).toHaveCount(0);
  } finally {
    await sshd.stop();
  }
});
