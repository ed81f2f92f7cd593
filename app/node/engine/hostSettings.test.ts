/**
 * ssh_config keywords as Sluice uses them (engine/hostSettings.ts) and merged with explicit choices
 * (engine/hostOptions.ts): aliases, what the command line wins, jump chains, host-key checking, algorithms, timeouts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseJumpHosts } from '../../common/jumpHosts';
import { SluiceError } from '../errors';
import { connectionOptions } from './hostOptions';
import { resolveHostSettings, type HostContext, type HostRequest } from './hostSettings';

/** Writes `text` as an -F file in a fresh home; returns a resolver over it. */
function configured(t: { after(fn: () => void): void }, text: string) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-hostset-'));
  t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  const file = path.join(home, 'config');
  fs.writeFileSync(file, text);
  const notes: string[] = [];
  const ctx: HostContext = {
    home,
    env: { HOME: home },
    localUser: 'me',
    localHost: 'box',
    uid: 1000,
    onNote: (m) => notes.push(m),
  };
  return {
    home,
    notes,
    resolve: (req: Omit<HostRequest, 'configFile'>) => resolveHostSettings({ ...req, configFile: file }, ctx),
  };
}

const usage = (re: RegExp) => (e: unknown) => e instanceof SluiceError && e.code === 'USAGE' && re.test(e.message);

test('jump host lists: user@host:port, ssh:// URIs, IPv6 in brackets, none; bad ones say why', () => {
  assert.deepEqual(parseJumpHosts('alice@bastion:2222, inner ,ssh://bob@[::1]:22'), {
    ok: true,
    hops: [{ user: 'alice', host: 'bastion', port: 2222 }, { host: 'inner' }, { user: 'bob', host: '::1', port: 22 }],
  });
  assert.deepEqual(parseJumpHosts(' NONE '), { ok: true, hops: [] });
  for (const bad of ['a,,b', 'h:0', 'h:70000', '::1', '[::1', '@h', 'a b', '-oProxyCommand=x']) {
    const r = parseJumpHosts(bad);
    assert.equal(r.ok, false, bad);
  }
});

test("an alias: HostName, Port, User and IdentityFile tokens; the URL's port and user win", (t) => {
  const c = configured(
    t,
    [
      'Host myalias',
      '  HostName %h.example.com',
      '  Port 2222',
      '  User alice',
      '  IdentityFile ~/.ssh/id_%h_%r',
      '  IdentityFile %d/keys/%u-%p',
    ].join('\n'),
  );
  const s = c.resolve({ host: 'myalias' });
  assert.equal(s.host, 'myalias.example.com');
  assert.equal(s.port, 2222);
  assert.equal(s.user, 'alice');
  assert.equal(s.label, 'myalias (myalias.example.com:2222)');
  assert.deepEqual(s.identityFiles, [
    path.join(c.home, '.ssh', 'id_myalias.example.com_alice'),
    path.join(c.home, 'keys', 'me-2222'),
  ]);
  const given = c.resolve({ host: 'myalias', port: 2022, user: 'root' });
  assert.equal(given.port, 2022);
  assert.equal(given.user, 'root');
  assert.deepEqual(
    given.identityFiles[0],
    path.join(c.home, '.ssh', 'id_myalias.example.com_root'),
    '%r is the user that wins',
  );
  const plain = c.resolve({ host: 'other' });
  assert.deepEqual(
    [plain.host, plain.port, plain.user, plain.label, plain.jump],
    ['other', 22, undefined, 'other:22', []],
  );
});

test("ProxyJump: hops resolved through the config; the first hop's own ProxyJump applies; -J wins; -J none", (t) => {
  const c = configured(
    t,
    [
      'Host target',
      '  HostName 10.0.0.9',
      '  ProxyJump inner,edge',
      'Host inner',
      '  HostName 10.0.0.2',
      '  User ops',
      '  ProxyJump outer',
      '  IdentityFile ~/.ssh/inner_key',
      'Host outer',
      '  HostName outer.example.com',
      '  Port 2200',
      'Host edge',
      '  ProxyJump ignored',
      'Host loop',
      '  ProxyJump loop',
    ].join('\n'),
  );
  const s = c.resolve({ host: 'target' });
  assert.deepEqual(
    s.jump.map((h) => [h.host, h.port, h.user]),
    [
      ['outer.example.com', 2200, undefined],
      ['10.0.0.2', 22, 'ops'],
      ['edge', 22, undefined],
    ],
  );
  assert.deepEqual(s.jump[1].identityFiles, [path.join(c.home, '.ssh', 'inner_key')]);
  assert.equal(s.jump[1].label, 'inner (10.0.0.2:22)');
  const cli = c.resolve({ host: 'target', jump: 'alice@outer:2022' });
  assert.deepEqual(
    cli.jump.map((h) => [h.host, h.port, h.user]),
    [['outer.example.com', 2022, 'alice']],
  );
  assert.deepEqual(c.resolve({ host: 'target', jump: 'none' }).jump, []);
  assert.throws(() => c.resolve({ host: 'loop' }), usage(/loop/));
  assert.throws(() => c.resolve({ host: 'x', jump: 'a,,b' }), usage(/jump hosts: an empty entry/));
});

test('ProxyCommand is refused unless -J says where to go', (t) => {
  const c = configured(t, 'Host *.internal\n  ProxyCommand ssh -W %h:%p gw\n');
  assert.throws(() => c.resolve({ host: 'db.internal' }), usage(/ProxyCommand .* not supported/));
  assert.deepEqual(c.resolve({ host: 'db.internal', jump: 'none' }).jump, []);
  assert.equal(c.resolve({ host: 'db.internal', jump: 'gw' }).jump[0].host, 'gw');
});

test('StrictHostKeyChecking: yes strict, accept-new, no read as accept-new (with a note), ask; bad values refused', (t) => {
  const c = configured(
    t,
    [
      'Host y',
      '  StrictHostKeyChecking yes',
      'Host n',
      '  StrictHostKeyChecking no',
      'Host a',
      '  StrictHostKeyChecking accept-new',
      'Host q',
      '  StrictHostKeyChecking ask',
      'Host bad',
      '  StrictHostKeyChecking maybe',
    ].join('\n'),
  );
  assert.equal(c.resolve({ host: 'y' }).hostKeyMode, 'strict');
  assert.equal(c.resolve({ host: 'a' }).hostKeyMode, 'accept-new');
  assert.equal(c.resolve({ host: 'q' }).hostKeyMode, 'ask');
  assert.equal(c.notes.length, 0);
  assert.equal(c.resolve({ host: 'n' }).hostKeyMode, 'accept-new');
  assert.match(c.notes.join('\n'), /read as accept-new/);
  assert.equal(c.resolve({ host: 'x' }).hostKeyMode, undefined);
  assert.throws(() => c.resolve({ host: 'bad' }), usage(/StrictHostKeyChecking/));
});

test('algorithms: names ssh2 lacks are left out with a note, wildcards expand, a list with nothing left is refused', (t) => {
  const c = configured(
    t,
    [
      'Host h1',
      '  Ciphers aes256-gcm@openssh.com,no-such-cipher',
      '  KexAlgorithms sntrup761x25519-sha512@openssh.com,curve25519-sha256',
      '  MACs -*-sha1*',
      '  HostKeyAlgorithms +ssh-rsa',
      'Host h2',
      '  Ciphers only-unknown-cipher',
    ].join('\n'),
  );
  const s = c.resolve({ host: 'h1' });
  assert.deepEqual(s.algorithms.cipher, ['aes256-gcm@openssh.com']);
  assert.deepEqual(s.algorithms.kex, ['curve25519-sha256']);
  assert.ok(
    s.algorithms.hmac?.[0].startsWith('-') && s.algorithms.hmac[0].includes('hmac-sha1'),
    `wildcard expanded: ${s.algorithms.hmac}`,
  );
  assert.ok(!s.algorithms.hmac?.[0].includes('sha2-256'));
  assert.deepEqual(s.algorithms.serverHostKey, ['+ssh-rsa']);
  assert.match(c.notes.join('\n'), /no-such-cipher/);
  assert.match(c.notes.join('\n'), /sntrup761/);
  assert.throws(() => c.resolve({ host: 'h2' }), usage(/Ciphers .* names no algorithm/));
});

test('timeouts, keepalives, IdentitiesOnly, IdentityAgent, UserKnownHostsFile, NumberOfPasswordPrompts', (t) => {
  const c = configured(
    t,
    [
      'Host h',
      '  ConnectTimeout 7',
      '  NumberOfPasswordPrompts 1',
      '  ServerAliveInterval 30',
      '  ServerAliveCountMax 0',
      '  IdentitiesOnly yes',
      '  IdentityAgent ~/agent.%u.sock',
      '  UserKnownHostsFile ~/kh1 %d/kh2',
      'Host off',
      '  ServerAliveInterval 0',
      '  IdentityAgent none',
      '  ConnectTimeout 0',
      'Host bad',
      '  Port 99999',
    ].join('\n'),
  );
  const s = c.resolve({ host: 'h' });
  assert.equal(s.connectTimeoutMs, 7000);
  assert.equal(s.passwordPrompts, 1);
  assert.equal(s.keepaliveIntervalMs, 30_000);
  assert.equal(s.keepaliveCountMax, 1, 'at least one miss');
  assert.equal(s.identitiesOnly, true);
  assert.equal(s.agent, path.join(c.home, 'agent.me.sock'));
  assert.deepEqual(s.knownHostsFiles, [path.join(c.home, 'kh1'), path.join(c.home, 'kh2')]);
  const off = c.resolve({ host: 'off' });
  assert.equal(off.keepaliveIntervalMs, 0);
  assert.equal(off.agent, false);
  assert.equal(off.connectTimeoutMs, undefined);
  assert.equal(off.passwordPrompts, undefined, "the default (3) is the CLI's");
  assert.throws(() => c.resolve({ host: 'bad' }), usage(/Port 99999/));
});

test('connection options: explicit choices win, the config fills the rest, jump hosts get their own settings', (t) => {
  const c = configured(
    t,
    [
      'Host t',
      '  HostName 10.1.1.1',
      '  Ciphers aes128-ctr',
      '  KexAlgorithms curve25519-sha256',
      '  StrictHostKeyChecking accept-new',
      '  ServerAliveInterval 5',
      '  UserKnownHostsFile ~/my_known_hosts',
      '  IdentityAgent none',
      '  ProxyJump j',
      'Host j',
      '  User jumper',
      '  IdentityFile ~/j_key',
      '  Ciphers aes256-ctr',
    ].join('\n'),
  );
  const s = c.resolve({ host: 't' });
  const env = { HOME: c.home, SSH_AUTH_SOCK: '/tmp/agent.sock' };
  const o = connectionOptions(s, {
    algorithms: { cipher: ['aes256-gcm@openssh.com'] },
    defaultHostKeyMode: 'strict',
    keepaliveIntervalMs: 1000,
    env,
    home: c.home,
    identityFiles: ['/k'],
  });
  assert.equal(o.host, '10.1.1.1');
  assert.deepEqual(o.algorithms, { cipher: ['aes256-gcm@openssh.com'], kex: ['curve25519-sha256'] }, 'per family');
  assert.equal(o.hostKeyMode, 'accept-new');
  assert.equal(o.keepaliveIntervalMs, 1000);
  assert.deepEqual(o.knownHostsPaths, {
    readPaths: [path.join(c.home, 'my_known_hosts'), '/etc/ssh/ssh_known_hosts'],
    writePath: path.join(c.home, 'my_known_hosts'),
  });
  assert.equal(o.auth.useAgent, false, 'IdentityAgent none');
  assert.deepEqual(o.auth.identityFiles, ['/k']);
  assert.equal(o.jump?.length, 1);
  const j = o.jump![0];
  assert.deepEqual(
    [j.host, j.username, j.auth.configIdentityFiles, j.algorithms],
    ['j', 'jumper', [path.join(c.home, 'j_key')], { cipher: ['aes256-ctr'] }],
  );
  assert.equal(j.auth.useAgent, undefined, 'the jump host has its own IdentityAgent (none set): SSH_AUTH_SOCK');
  assert.equal(j.auth.identityFiles, undefined, "-i is the target's, as in ssh");
  const accepted = connectionOptions(s, {
    hostKeyMode: 'accept-new',
    defaultHostKeyMode: 'strict',
    noAgent: true,
    env: { ...env, SLUICE_KNOWN_HOSTS: '/kh' },
    home: c.home,
  });
  assert.deepEqual(
    accepted.knownHostsPaths,
    { readPaths: ['/kh'], writePath: '/kh' },
    'SLUICE_KNOWN_HOSTS wins over UserKnownHostsFile',
  );
  assert.equal(accepted.jump![0].auth.useAgent, false, '--no-agent reaches the jump hosts');
});
