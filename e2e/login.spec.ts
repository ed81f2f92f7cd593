/**
 * Logging in and staying connected (#15), through the UI against the real engine: an encrypted key's passphrase
 * asked in a dialog (again when wrong) and remembered on request; a keyboard-interactive one-time code asked with the
 * server's own text while the saved password answers the password prompt; a session whose connections are killed
 * comes back by itself, the status bar saying "reconnecting (attempt 2)" meanwhile. No secret reaches an event, the
 * log panel or the DOM.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { EngineFactory } from '../app/node/engine/engine';
import { startScriptedServer } from './fixtures/scriptedServer';
import { requireDist, startTestEngine } from './harness/engine';
import { expect, test } from './harness/test';
import type { SluicePage } from './pages/SluicePage';

const PHRASE = 'Unlock-phrase-62';
const PASSWORD = 'Saved-pw-4417';

/** Every event the service sends, as text, to look for secrets in. */
function recordEvents(service: { subscribe(l: (event: string, payload: unknown) => void): () => void }): string[] {
  const events: string[] = [];
  service.subscribe((event, payload) => events.push(`${event} ${JSON.stringify(payload)}`));
  return events;
}

/** Asserts `secrets` are in no event, nor in the log panel, the page's markup or its inputs. */
async function nowhere(app: SluicePage, events: string[], secrets: string[]): Promise<void> {
  for (const secret of secrets) {
    expect(
      events.filter((e) => e.includes(secret)),
      `events carrying ${secret}`,
    ).toEqual([]);
    await expect(app.log).not.toContainText(secret);
    expect(await app.page.content()).not.toContain(secret);
    const inputs = await app.page.locator('input').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
    expect(inputs).not.toContain(secret);
  }
}

test('an encrypted key: the passphrase dialog, again when wrong, remembered on request; the next connect asks nothing', async ({
  app,
  sshd,
  engine,
  localDir,
}) => {
  const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-e2e-key-'));
  try {
    const keyPath = path.join(keyDir, 'id_locked');
    fs.copyFileSync(sshd.clientKeyPath, keyPath);
    fs.chmodSync(keyPath, 0o600);
    execFileSync('ssh-keygen', ['-q', '-p', '-P', '', '-N', PHRASE, '-f', keyPath]);
    fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
    const events = recordEvents(engine.service);
    await app.open();
    await app.createSite({
      name: 'Locked key',
      host: sshd.host,
      port: sshd.port,
      user: sshd.user,
      keyPath,
      localDir,
      remoteDir: sshd.root,
    });

    await app.startConnect('Locked key');
    const dialog = app.passphraseDialog;
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText(keyPath);
    await expect(dialog.getByLabel('Passphrase', { exact: true })).toHaveAttribute('type', 'password');
    await expect(dialog.getByRole('alert')).toHaveCount(0);
    await dialog.getByLabel('Passphrase', { exact: true }).fill('not-the-phrase-3');
    await dialog.getByRole('button', { name: 'Unlock' }).click();
    await expect(dialog.getByRole('alert')).toHaveText('Wrong passphrase, try again.');
    await dialog.getByLabel('Passphrase', { exact: true }).fill(PHRASE);
    await dialog.getByLabel(/Remember the passphrase/).check();
    await app.screenshot('passphrase-dialog');
    await dialog.getByRole('button', { name: 'Unlock' }).click();
    await app.waitForRemoteListing(sshd.root);

    // Remembered: disconnect, connect again, no dialog.
    await app.page.getByRole('button', { name: 'Disconnect' }).click();
    await expect(app.remoteGrid).toBeHidden();
    await app.startConnect('Locked key');
    await app.waitForRemoteListing(sshd.root);
    await expect(dialog).toHaveCount(0);
    expect(
      events.filter((e) => e.startsWith('auth.prompt ')).length,
      'asked twice the first time, never the second',
    ).toBe(2);
    await nowhere(app, events, [PHRASE, 'not-the-phrase-3']);
  } finally {
    fs.rmSync(keyDir, { recursive: true, force: true });
  }
});

test("keyboard-interactive: the saved password answers the password prompt, the one-time code is asked with the server's text", async ({
  app,
  engine,
  localDir,
}) => {
  const server = await startScriptedServer({
    keyboardInteractive: [
      { prompts: [{ prompt: 'Password: ', echo: false }], answers: [PASSWORD] },
      {
        name: 'Second factor',
        instructions: 'Type the code your authenticator app shows.',
        prompts: [{ prompt: 'Verification code: ', echo: true }],
        answers: ['314159'],
      },
    ],
  });
  try {
    fs.appendFileSync(engine.knownHostsPath, `${server.knownHostsLine()}\n`);
    const events = recordEvents(engine.service);
    await app.open();
    await app.createSite({
      name: '2FA',
      host: server.host,
      port: server.port,
      user: server.user,
      auth: 'password',
      password: PASSWORD,
      localDir,
      remoteDir: server.root,
    });
    await app.startConnect('2FA');
    const dialog = app.loginDialog(`${server.user}@${server.host}`);
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText('Second factor');
    await expect(dialog).toContainText('Type the code your authenticator app shows.');
    await expect(dialog.getByLabel('Verification code')).toHaveAttribute('type', 'text');
    await expect(dialog.getByLabel('Password')).toHaveCount(0);
    await dialog.getByLabel('Verification code').fill('314159');
    await app.screenshot('login-code-dialog');
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await app.waitForRemoteListing(server.root);
    expect(server.keyboardAnswers).toEqual([[PASSWORD], ['314159']]);
    await nowhere(app, events, [PASSWORD]);
  } finally {
    await server.stop();
  }
});

/** The real engine, except that the first reconnect attempt fails (so the status shows attempt 2). */
const reconnecting = test.extend({
  // eslint-disable-next-line no-empty-pattern
  engine: async ({}, use) => {
    const { openEngine } = requireDist<{ openEngine: EngineFactory }>('app/node/engine/engine.js');
    let opens = 0;
    const engine = await startTestEngine({
      engine: async (o) => {
        if (++opens === 2)
          throw Object.assign(new Error('connection refused (the spec fails the first attempt)'), {
            code: 'CONNECTION_LOST',
          });
        return openEngine(o);
      },
      reconnectPolicy: { tries: 4, baseDelayMs: 2500, maxDelayMs: 5000, totalDelayMs: 30_000 },
    });
    await use(engine);
    await engine.close();
  },
});

reconnecting(
  'killed connections come back by themselves; the status bar says "reconnecting (attempt 2)" meanwhile',
  async ({ app, sshd, engine, localDir }) => {
    fs.writeFileSync(path.join(sshd.root, 'still-here.txt'), 'x');
    fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
    await app.open();
    await app.createSite({
      name: 'Flaky',
      host: sshd.host,
      port: sshd.port,
      user: sshd.user,
      keyPath: sshd.clientKeyPath,
      localDir,
      remoteDir: sshd.root,
    });
    await app.startConnect('Flaky');
    await app.waitForRemoteListing(sshd.root);
    const site = app.statusBar.getByLabel('Connected site');
    await expect(site).toHaveText('Flaky (connected)');

    expect(await sshd.killSessions()).toBeGreaterThan(0);
    await expect(site).toHaveText('Flaky (reconnecting (attempt 1))');
    await expect(site).toHaveText('Flaky (reconnecting (attempt 2))');
    await expect(app.remotePane).toContainText('Connection lost: reconnecting (attempt 2)');
    await app.screenshot('reconnecting');
    await expect(site).toHaveText('Flaky (connected)', { timeout: 30_000 });
    await app.waitForRemoteListing(sshd.root);
    await expect(app.remoteRow('still-here.txt')).toBeVisible();
  },
);
