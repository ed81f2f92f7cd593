/**
 * The app's login questions through the service (service/authPrompts.ts) over the real engine and scripted ssh2
 * servers: a password asked in a dialog and asked again when wrong, a keyboard-interactive code asked with its
 * prompt's text and echo flag while the saved password answers the password prompt, an encrypted key's passphrase
 * asked (again when wrong) and remembered in the secret store on request. No answer reaches an event or a log line.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startScriptedServer, type ScriptedServer } from '../../../e2e/fixtures/scriptedServer';
import type { AuthPrompt, EventName, EventPayloads } from '../../common/ipc/contract';
import type { SiteInput } from '../../common/model/site';
import { SluiceService } from '../service';
import { passphraseSecretId } from '../service/authPrompts';
import { MemorySecretStore } from '../stores/sites';

const WAIT_MS = 30_000;

interface Ctx {
  service: SluiceService;
  secrets: MemorySecretStore;
  siteId: string;
  /** Every event, as JSON, to look for secrets in. */
  seen: string[];
  prompts: AuthPrompt[];
  /** Login questions answered so far. */
  answered: number;
  next<E extends EventName>(name: E, pred?: (p: EventPayloads[E]) => boolean): Promise<EventPayloads[E]>;
}

/** A service over the real engine trusting `server`, with one saved site (`password`: saved with it). */
async function setup(
  t: { after(fn: () => Promise<void>): void },
  server: ScriptedServer,
  site: Partial<SiteInput>,
  password?: string,
): Promise<Ctx> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-svc-login-'));
  const knownHostsPath = path.join(home, 'known_hosts');
  fs.writeFileSync(knownHostsPath, `${server.knownHostsLine()}\n`);
  const secrets = new MemorySecretStore();
  const service = new SluiceService({ home, secrets, knownHostsPath, env: { HOME: home }, readyTimeoutMs: WAIT_MS });
  t.after(async () => {
    await service.close();
    await server.stop();
    fs.rmSync(home, { recursive: true, force: true });
  });
  const seen: string[] = [];
  const prompts: AuthPrompt[] = [];
  const waiters = new Set<{ name: EventName; pred: (p: never) => boolean; resolve: (p: unknown) => void }>();
  service.subscribe((name, payload) => {
    seen.push(`${name} ${JSON.stringify(payload)}`);
    if (name === 'auth.prompt') prompts.push(payload as AuthPrompt);
    for (const w of [...waiters])
      if (w.name === name && w.pred(payload as never)) {
        waiters.delete(w);
        w.resolve(payload);
      }
  });
  const saved = await service.invoke('sites.save', {
    site: {
      name: 'Login',
      folder: '',
      host: server.host,
      port: server.port,
      user: 'alice',
      authMethod: 'password',
      ...site,
    },
    ...(password !== undefined ? { password } : {}),
  });
  assert.ok(saved.ok, JSON.stringify(saved));
  return {
    service,
    secrets,
    siteId: saved.value.id,
    seen,
    prompts,
    answered: 0,
    next: (name, pred = () => true) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${name}`)), WAIT_MS);
        waiters.add({
          name,
          pred: pred as (p: never) => boolean,
          resolve: (p) => {
            clearTimeout(timer);
            resolve(p as never);
          },
        });
      }),
  };
}

/**
 * Answers the next login question not yet answered with `answers` (none: cancel) and returns it. Questions are taken
 * from the recorded ones: the next may be asked before the answer to the last one has returned.
 */
async function answerNext(c: Ctx, answers: string[] | undefined, remember = false): Promise<AuthPrompt> {
  const n = ++c.answered;
  const p = c.prompts[n - 1] ?? (await c.next('auth.prompt', () => c.prompts.length >= n).then(() => c.prompts[n - 1]));
  const r = await c.service.invoke(
    'auth.answer',
    answers ? { promptId: p.promptId, answers, remember } : { promptId: p.promptId },
  );
  assert.ok(r.ok, JSON.stringify(r));
  return p;
}

/** Asserts none of `secrets` appears in any event the service sent. */
function neverSent(c: Ctx, secrets: string[]): void {
  for (const s of secrets)
    assert.deepEqual(
      c.seen.filter((e) => e.includes(s)),
      [],
      `events carrying ${s}`,
    );
}

test('a password site without a saved password: asked in a dialog, asked again when wrong ("retry"), cancelled fails AUTH_FAILED', async (t) => {
  const server = await startScriptedServer({ password: 'Right-pw-41', maxAuthTries: 6 });
  const c = await setup(t, server, {});
  const connecting = c.service.invoke('session.connect', { siteId: c.siteId });
  const first = await answerNext(c, ['Wrong-pw-17']);
  assert.deepEqual(
    { kind: first.kind, retry: first.retry, prompts: first.prompts, user: first.user, port: first.port },
    {
      kind: 'password',
      retry: false,
      prompts: [{ prompt: 'Password', echo: false }],
      user: 'alice',
      port: server.port,
    },
  );
  const again = await answerNext(c, ['Right-pw-41']);
  assert.equal(again.kind, 'password');
  assert.equal(again.retry, true, 'the dialog says the password was wrong');
  const connected = await connecting;
  assert.ok(connected.ok, JSON.stringify(connected));
  assert.deepEqual(server.passwordAttempts, ['Wrong-pw-17', 'Right-pw-41']);

  const bad = await c.service.invoke('auth.answer', { promptId: again.promptId, answers: ['late'] });
  assert.equal(bad.ok ? '' : bad.error.code, 'NOT_FOUND', 'an answered question is closed');
  assert.ok((await c.service.invoke('session.disconnect', { siteId: c.siteId })).ok);
  const cancelled = c.service.invoke('session.connect', { siteId: c.siteId });
  await answerNext(c, undefined);
  const res = await cancelled;
  assert.equal(res.ok ? '' : res.error.code, 'AUTH_FAILED');
  neverSent(c, ['Right-pw-41', 'Wrong-pw-17']);
});

test('keyboard-interactive with a saved password: only the one-time code is asked, with its text and echo flag', async (t) => {
  const server = await startScriptedServer({
    keyboardInteractive: [
      { prompts: [{ prompt: 'Password: ', echo: false }], answers: ['Saved-pw-93'] },
      {
        name: 'Second factor',
        instructions: 'Open your authenticator.',
        prompts: [{ prompt: 'Verification code: ', echo: true }],
        answers: ['654321'],
      },
    ],
  });
  const c = await setup(t, server, {}, 'Saved-pw-93');
  const connecting = c.service.invoke('session.connect', { siteId: c.siteId });
  const p = await answerNext(c, ['654321']);
  assert.deepEqual(
    { kind: p.kind, name: p.name, instructions: p.instructions, prompts: p.prompts, retry: p.retry },
    {
      kind: 'keyboard-interactive',
      name: 'Second factor',
      instructions: 'Open your authenticator.',
      prompts: [{ prompt: 'Verification code: ', echo: true }],
      retry: false,
    },
  );
  const connected = await connecting;
  assert.ok(connected.ok, JSON.stringify(connected));
  assert.deepEqual(
    server.keyboardAnswers,
    [['Saved-pw-93'], ['654321']],
    'the saved password answered the password prompt only',
  );
  assert.equal(c.prompts.length, 1, 'the password prompt was not put to the user');
  neverSent(c, ['Saved-pw-93']);
});

test('an encrypted key: the passphrase is asked, asked again when wrong, remembered on request; the next connect asks nothing', async (t) => {
  const server = await startScriptedServer();
  const keyPath = path.join(path.dirname(server.clientKeyPath), 'encrypted_key');
  fs.copyFileSync(server.clientKeyPath, keyPath);
  fs.chmodSync(keyPath, 0o600);
  execFileSync('ssh-keygen', ['-q', '-p', '-P', '', '-N', 'Key-phrase-28', '-f', keyPath]);
  const c = await setup(t, server, { authMethod: 'key', keyPath });

  const connecting = c.service.invoke('session.connect', { siteId: c.siteId });
  const first = await answerNext(c, ['not-it-55']);
  assert.deepEqual(
    { kind: first.kind, keyPath: first.keyPath, canRemember: first.canRemember, retry: first.retry },
    { kind: 'passphrase', keyPath, canRemember: true, retry: false },
  );
  const again = await answerNext(c, ['Key-phrase-28'], true);
  assert.equal(again.retry, true);
  const connected = await connecting;
  assert.ok(connected.ok, JSON.stringify(connected));
  assert.equal(
    await c.secrets.get(passphraseSecretId(c.siteId, keyPath)),
    'Key-phrase-28',
    'remembered in the secret store',
  );

  assert.ok((await c.service.invoke('session.disconnect', { siteId: c.siteId })).ok);
  const reconnected = await c.service.invoke('session.connect', { siteId: c.siteId });
  assert.ok(reconnected.ok, JSON.stringify(reconnected));
  assert.equal(c.prompts.length, 2, 'no question the second time');
  neverSent(c, ['Key-phrase-28', 'not-it-55']);

  assert.ok((await c.service.invoke('sites.delete', { siteId: c.siteId })).ok);
  assert.equal(
    await c.secrets.get(passphraseSecretId(c.siteId, keyPath)),
    undefined,
    'deleting the site forgets its passphrase',
  );
});
