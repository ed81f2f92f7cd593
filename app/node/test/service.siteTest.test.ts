/**
 * The site form's algorithm lists and "Test connection" through the service over the real engine and a private
 * OpenSSH sshd (e2e/fixtures/sshd.ts): `sites.test` with unsaved settings (host key asked, negotiated set, server
 * version, RTT, home folder), a wrong password reported as an authentication failure, a site restricted to one cipher
 * negotiating exactly it (and the status bar's set with the server's version), a site offering only ciphers the
 * server refuses failing NEGOTIATION_FAILED at the key exchange, a saved password site tested with its stored (or a
 * typed) password under a prompt id of its own (a scripted ssh2 server), and `algorithms.catalog`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startSshd, type SshdServer } from '../../../e2e/fixtures/sshd';
import { startScriptedServer } from '../../../e2e/fixtures/scriptedServer';
import type { AuthPrompt, EventName, EventPayloads } from '../../common/ipc/contract';
import type { SiteInput } from '../../common/model/site';
import { SluiceService } from '../service';
import { MemorySecretStore } from '../stores/sites';

const WAIT_MS = 30_000;
let server: SshdServer;

before(async () => {
  // Password logins on, so a wrong one can be refused (root has no usable password: every one is wrong).
  server = await startSshd({ extraConfig: ['PasswordAuthentication yes'] });
});
after(async () => {
  await server.stop();
});

interface Ctx {
  service: SluiceService;
  home: string;
  knownHosts: string;
  events: Array<{ name: EventName; payload: unknown }>;
  next<E extends EventName>(name: E, pred?: (p: EventPayloads[E]) => boolean): Promise<EventPayloads[E]>;
}

/** A service over the real engine in a fresh data folder; `trusted`: known_hosts holds the server's key already. */
function setup(t: { after(fn: () => Promise<void>): void }, trusted: boolean): Ctx {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-svc-sitetest-'));
  const knownHosts = path.join(home, 'known_hosts');
  if (trusted) fs.writeFileSync(knownHosts, `${server.knownHostsLine()}\n`);
  const service = new SluiceService({
    home,
    secrets: new MemorySecretStore(),
    knownHostsPath: knownHosts,
    env: { HOME: home, PATH: process.env.PATH },
    readyTimeoutMs: WAIT_MS,
  });
  t.after(async () => {
    await service.close();
    fs.rmSync(home, { recursive: true, force: true });
  });
  const events: Ctx['events'] = [];
  const waiters = new Set<{ name: EventName; pred: (p: never) => boolean; resolve: (p: unknown) => void }>();
  service.subscribe((name, payload) => {
    events.push({ name, payload });
    for (const w of [...waiters])
      if (w.name === name && w.pred(payload as never)) {
        waiters.delete(w);
        w.resolve(payload);
      }
  });
  return {
    service,
    home,
    knownHosts,
    events,
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

/** The form's settings for the private sshd, logging in with its client key. */
function form(extra: Partial<SiteInput> = {}): SiteInput {
  return {
    name: 'Lab',
    folder: '',
    host: server.host,
    port: server.port,
    user: server.user,
    authMethod: 'key',
    keyPath: server.clientKeyPath,
    ...extra,
  };
}

test('sites.test with unsaved settings: host key asked, then the negotiated set, server version, RTT and home; nothing saved', async (t) => {
  const c = setup(t, false);
  const prompt = c.next('hostKey.prompt');
  const testing = c.service.invoke('sites.test', { site: form() });
  const p = await prompt;
  assert.equal(p.kind, 'unknown', 'the same host-key dialog as a connect');
  assert.equal(p.port, server.port);
  assert.ok((await c.service.invoke('hostKey.answer', { promptId: p.promptId, answer: 'accept-once' })).ok);
  const res = await testing;
  assert.ok(res.ok, JSON.stringify(res));
  const r = res.value;
  assert.ok(r.ok, JSON.stringify(r));
  assert.match(
    r.cipher,
    /^(aes(128|256)-gcm@openssh\.com|chacha20-poly1305@openssh\.com)$/,
    'the default order: an AEAD cipher',
  );
  assert.match(r.kex, /^curve25519-sha256/);
  assert.equal(r.serverHostKey, 'ssh-ed25519');
  assert.match(r.serverVersion, /^SSH-2\.0-OpenSSH_\d/);
  assert.equal(r.authMethod, 'publickey');
  assert.ok(r.rttMs !== undefined && r.rttMs >= 0 && r.rttMs < 5000, `rtt ${r.rttMs}`);
  assert.equal(r.home, fs.realpathSync(server.root));
  assert.ok(r.elapsedMs > 0);
  const sites = await c.service.invoke('sites.list', undefined);
  assert.ok(sites.ok);
  assert.equal(sites.value.sites.length, 0, 'a test saves nothing');
  assert.ok(!c.events.some((e) => e.name === 'session.status'), 'a test is no session');
  assert.ok(
    !fs.existsSync(c.knownHosts) || !fs.readFileSync(c.knownHosts, 'utf8').includes('ssh-ed25519'),
    'accept-once writes no known_hosts line',
  );
});

test('sites.test with a wrong password: asked again, cancelled, reported as an authentication failure', async (t) => {
  const c = setup(t, true);
  const prompts: AuthPrompt[] = [];
  c.service.subscribe((name, payload) => {
    if (name === 'auth.prompt') prompts.push(payload as AuthPrompt);
  });
  const retry = c.next('auth.prompt');
  const testing = c.service.invoke('sites.test', {
    site: form({ authMethod: 'password', keyPath: undefined }),
    password: 'Wrong-pw-62',
  });
  const p = await retry;
  assert.equal(p.kind, 'password');
  assert.equal(p.retry, true, "the form's password was refused: the login dialog asks again");
  assert.ok((await c.service.invoke('auth.answer', { promptId: p.promptId })).ok, 'cancel');
  const res = await testing;
  assert.ok(res.ok, JSON.stringify(res));
  const r = res.value;
  assert.ok(!r.ok, JSON.stringify(r));
  assert.equal(r.step, 'authentication');
  assert.equal(r.code, 'AUTH_FAILED');
  assert.match(r.message, new RegExp(`${server.user}@${server.host}`));
  assert.equal(prompts.length, 1);
  assert.ok(!c.events.some((e) => JSON.stringify(e.payload).includes('Wrong-pw-62')), 'the password is in no event');
});

test('a site restricted to aes256-ctr negotiates exactly it: the test and the session status (with the server version)', async (t) => {
  const c = setup(t, true);
  const tested = await c.service.invoke('sites.test', {
    site: form({ ciphers: ['aes256-ctr'], macs: ['hmac-sha2-512-etm@openssh.com'] }),
  });
  assert.ok(tested.ok && tested.value.ok, JSON.stringify(tested));
  assert.equal(tested.value.cipher, 'aes256-ctr');
  assert.equal(tested.value.mac, 'hmac-sha2-512-etm@openssh.com');

  const saved = await c.service.invoke('sites.save', {
    site: form({ ciphers: ['aes256-ctr'], kex: ['ecdh-sha2-nistp256'] }),
  });
  assert.ok(saved.ok, JSON.stringify(saved));
  assert.deepEqual(saved.value.ciphers, ['aes256-ctr']);
  const status = await c.service.invoke('session.connect', { siteId: saved.value.id });
  assert.ok(status.ok, JSON.stringify(status));
  assert.equal(status.value.cipher, 'aes256-ctr');
  assert.equal(status.value.kex, 'ecdh-sha2-nistp256');
  assert.equal(status.value.serverHostKey, 'ssh-ed25519');
  assert.match(status.value.serverVersion ?? '', /^SSH-2\.0-OpenSSH_/);
});

test('a site offering only ciphers the server refuses fails NEGOTIATION_FAILED at the key exchange, naming them', async (t) => {
  const c = setup(t, true);
  // OpenSSH 7.4 and later offer no CBC cipher by default.
  const tested = await c.service.invoke('sites.test', { site: form({ ciphers: ['aes128-cbc', '3des-cbc'] }) });
  assert.ok(tested.ok, JSON.stringify(tested));
  const r = tested.value;
  assert.ok(!r.ok, JSON.stringify(r));
  assert.equal(r.step, 'key exchange');
  assert.equal(r.code, 'NEGOTIATION_FAILED');
  assert.match(r.message, /no cipher/);
  assert.match(r.message, /aes128-cbc, 3des-cbc/);
  assert.match(r.message, new RegExp(`${server.host}:${server.port}`));

  const saved = await c.service.invoke('sites.save', { site: form({ ciphers: ['aes128-cbc'] }) });
  assert.ok(saved.ok);
  const failed = await c.service.invoke('session.connect', { siteId: saved.value.id });
  assert.equal(
    failed.ok ? '' : failed.error.code,
    'NEGOTIATION_FAILED',
    'a session fails the same way (and is not retried)',
  );
});

test('no common key exchange or host-key algorithm: NEGOTIATION_FAILED naming the family and the offer', async (t) => {
  const c = setup(t, true);
  // The fixture's sshd has an ed25519 host key only; OpenSSH 9 no longer accepts diffie-hellman-group1-sha1.
  const hostKey = await c.service.invoke('sites.test', { site: form({ hostKeyAlgorithms: ['ecdsa-sha2-nistp256'] }) });
  assert.ok(hostKey.ok && !hostKey.value.ok, JSON.stringify(hostKey));
  assert.deepEqual([hostKey.value.step, hostKey.value.code], ['key exchange', 'NEGOTIATION_FAILED']);
  assert.match(hostKey.value.message, /accepts no host-key algorithm Sluice offered \(offered: ecdsa-sha2-nistp256\)/);
  const kex = await c.service.invoke('sites.test', { site: form({ kex: ['diffie-hellman-group1-sha1'] }) });
  assert.ok(kex.ok && !kex.value.ok, JSON.stringify(kex));
  assert.equal(kex.value.code, 'NEGOTIATION_FAILED');
  assert.match(
    kex.value.message,
    /accepts no key exchange method Sluice offered \(offered: diffie-hellman-group1-sha1\)/,
  );
});

test('sites.test with an unknown algorithm name fails at the settings step, naming it', async (t) => {
  const c = setup(t, true);
  const tested = await c.service.invoke('sites.test', { site: form({ kex: ['curve99-sha1'] }) });
  assert.ok(tested.ok && !tested.value.ok, JSON.stringify(tested));
  assert.equal(tested.value.step, 'settings');
  assert.match(tested.value.message, /curve99-sha1/);
});

test('algorithms.catalog: each family with its defaults and weak names', async (t) => {
  const c = setup(t, true);
  const res = await c.service.invoke('algorithms.catalog', undefined);
  assert.ok(res.ok);
  assert.ok(res.value.cipher.supported.includes('aes256-ctr'));
  assert.ok(res.value.cipher.defaults.length > 0);
  assert.match(res.value.cipher.weak['3des-cbc'], /Sweet32/);
  assert.ok(!res.value.serverHostKey.defaults.includes('ssh-rsa'));
  assert.ok(res.value.serverHostKey.supported.includes('ssh-rsa'));
  assert.ok(res.value.hmac.defaults.includes('hmac-sha2-256-etm@openssh.com'));
  assert.ok(res.value.kex.defaults.includes('curve25519-sha256'));
});

test('sites.test of a saved password site logs in with the stored password; a typed one wins; prompts never name the saved site', async (t) => {
  const scripted = await startScriptedServer({ password: 'Stored-pw-35', maxAuthTries: 6 });
  t.after(() => scripted.stop());
  const c = setup(t, true);
  fs.appendFileSync(c.knownHosts, `${scripted.knownHostsLine()}\n`);
  const site: SiteInput = {
    name: 'Pw',
    folder: '',
    host: scripted.host,
    port: scripted.port,
    user: 'alice',
    authMethod: 'password',
  };
  const saved = await c.service.invoke('sites.save', { site, password: 'Stored-pw-35' });
  assert.ok(saved.ok, JSON.stringify(saved));
  const stored = await c.service.invoke('sites.test', { site: { ...site, id: saved.value.id } });
  assert.ok(stored.ok && stored.value.ok, JSON.stringify(stored));
  assert.equal(stored.value.authMethod, 'password');
  assert.deepEqual(scripted.passwordAttempts, ['Stored-pw-35']);

  const prompt = c.next('auth.prompt');
  const typed = c.service.invoke('sites.test', { site: { ...site, id: saved.value.id }, password: 'Typed-pw-71' });
  const p = await prompt;
  assert.ok(
    p.siteId.startsWith('test-') && p.siteId !== saved.value.id,
    `a test's prompt goes by its own id (${p.siteId})`,
  );
  assert.equal(p.retry, true, 'the typed password was tried first and refused');
  assert.ok((await c.service.invoke('auth.answer', { promptId: p.promptId })).ok);
  const res = await typed;
  assert.ok(res.ok && !res.value.ok && res.value.step === 'authentication', JSON.stringify(res));
  assert.deepEqual(scripted.passwordAttempts, ['Stored-pw-35', 'Typed-pw-71']);
});

test('sites.testCancel during the host-key dialog: ABORTED at once, the dialog closed, nothing trusted; an unknown id is false', async (t) => {
  const c = setup(t, false);
  const prompt = c.next('hostKey.prompt');
  const testing = c.service.invoke('sites.test', { site: form(), testId: 'form-1' });
  const p = await prompt;
  const closed = c.next('prompt.closed', (x) => x.promptId === p.promptId);
  const cancel = await c.service.invoke('sites.testCancel', { testId: 'form-1' });
  assert.ok(cancel.ok && cancel.value === true, JSON.stringify(cancel));
  const res = await testing;
  assert.ok(res.ok && !res.value.ok, JSON.stringify(res));
  assert.equal(res.value.code, 'ABORTED');
  await closed;
  assert.ok(
    !fs.existsSync(c.knownHosts) || !fs.readFileSync(c.knownHosts, 'utf8').includes('ssh-ed25519'),
    'nothing saved to known_hosts',
  );
  const again = await c.service.invoke('sites.testCancel', { testId: 'form-1' });
  assert.ok(again.ok && again.value === false, 'the test is over: nothing left to cancel');
});

test('sites.testCancel of a test waiting on a server that never answers: ABORTED without waiting for the connect timeout', async (t) => {
  const c = setup(t, true);
  // Accepts TCP and says nothing: the SSH identification line never comes (the test would wait readyTimeoutMs).
  const net = await import('node:net');
  const sockets = new Set<import('node:net').Socket>();
  const silent = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const s of sockets) s.destroy();
    silent.close();
  });
  const connected = new Promise<void>((resolve) => silent.once('connection', () => resolve()));
  const port = (silent.address() as import('node:net').AddressInfo).port;
  const testing = c.service.invoke('sites.test', { site: form({ port }), testId: 'form-2' });
  await connected;
  const cancel = await c.service.invoke('sites.testCancel', { testId: 'form-2' });
  assert.ok(cancel.ok && cancel.value === true);
  const res = await testing;
  assert.ok(res.ok && !res.value.ok, JSON.stringify(res));
  assert.equal(res.value.code, 'ABORTED');
  assert.equal(res.value.step, 'connect');
});
