import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  KnownHosts,
  defaultKnownHostsPaths,
  hostFieldMatches,
  keyTypeOf,
  knownHostsName,
  sha256Fingerprint,
} from './knownHosts';
import { keygenSuite } from '../test/keygenSuite';

const suite = keygenSuite('sluice-kh-');
const { keys, newFile } = suite;

function only(file: string): { readPaths: string[]; writePath: string } {
  return { readPaths: [file], writePath: file };
}

function lines(file: string): string[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
}

test('fingerprints and key types equal what ssh-keygen -lf prints', () => {
  for (const k of Object.values(keys)) {
    const out = execFileSync('ssh-keygen', ['-lf', k.pubFile], { encoding: 'utf8' });
    const expected = out.split(' ')[1];
    assert.match(expected, /^SHA256:[A-Za-z0-9+/]{43}$/);
    assert.equal(sha256Fingerprint(k.blob), expected);
    assert.equal(keyTypeOf(k.blob), k.type);
  }
  assert.throws(() => keyTypeOf(Buffer.from([0, 0, 0, 200, 1])));
});

test('default paths read user + system files and write the user file; SLUICE_KNOWN_HOSTS overrides both', () => {
  assert.deepEqual(defaultKnownHostsPaths({}, '/home/u'), {
    readPaths: ['/home/u/.ssh/known_hosts', '/etc/ssh/ssh_known_hosts'],
    writePath: '/home/u/.ssh/known_hosts',
  });
  assert.deepEqual(defaultKnownHostsPaths({ SLUICE_KNOWN_HOSTS: '/tmp/x/kh' }, '/home/u'), {
    readPaths: ['/tmp/x/kh'],
    writePath: '/tmp/x/kh',
  });
  assert.deepEqual(defaultKnownHostsPaths({ SLUICE_KNOWN_HOSTS: '~/kh' }, '/home/u'), {
    readPaths: ['/home/u/kh'],
    writePath: '/home/u/kh',
  });
});

test('SLUICE_KNOWN_HOSTS file is the only one read and written', async () => {
  const home = path.join(suite.dir, 'home-override');
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
  const userFile = path.join(home, '.ssh', 'known_hosts');
  fs.writeFileSync(userFile, `example.com ${keys.ed1.type} ${keys.ed1.b64}\n`);
  const override = newFile();
  const kh = await KnownHosts.load(defaultKnownHostsPaths({ SLUICE_KNOWN_HOSTS: override }, home));
  assert.equal(kh.lookup('example.com', 22, keys.ed1.blob).kind, 'unknown');
  assert.equal(await kh.add('example.com', 22, keys.ed1.blob), true);
  assert.equal(kh.lookup('example.com', 22, keys.ed1.blob).kind, 'trusted');
  assert.equal(lines(override).length, 1);
  assert.equal(lines(userFile).length, 1);
});

test('plain host, [host]:port and port 22 as bare host', async () => {
  const f = newFile(
    [
      `example.com ${keys.ed1.type} ${keys.ed1.b64}`,
      `[127.0.0.1]:2222 ${keys.ed2.type} ${keys.ed2.b64} a comment`,
    ].join('\n') + '\n',
  );
  const kh = await KnownHosts.load(only(f));
  assert.deepEqual(kh.lookup('example.com', 22, keys.ed1.blob), {
    kind: 'trusted',
    stored: { file: f, line: 1, keyType: 'ssh-ed25519', fingerprint: sha256Fingerprint(keys.ed1.blob) },
  });
  assert.equal(kh.lookup('EXAMPLE.com', 22, keys.ed1.blob).kind, 'trusted');
  assert.equal(kh.lookup('example.com', 2222, keys.ed1.blob).kind, 'unknown');
  const v = kh.lookup('127.0.0.1', 2222, keys.ed2.blob);
  assert.equal(v.kind, 'trusted');
  assert.equal(v.kind === 'trusted' && v.stored.line, 2);
  assert.equal(kh.lookup('127.0.0.1', 22, keys.ed2.blob).kind, 'unknown');
  assert.equal(knownHostsName('Host.Example', 22), 'host.example');
  assert.equal(knownHostsName('::1', 2222), '[::1]:2222');
});

test('wildcards and negation follow OpenSSH match_pattern_list', async () => {
  assert.equal(hostFieldMatches('*.example.org,!bad.example.org', 'a.example.org'), true);
  assert.equal(hostFieldMatches('*.example.org,!bad.example.org', 'bad.example.org'), false);
  assert.equal(hostFieldMatches('!bad.example.org', 'good.example.org'), false);
  const f = newFile(
    `*.example.org,!bad.example.org ${keys.ed1.type} ${keys.ed1.b64}\n` +
      `[10.0.0.?]:2222 ${keys.ed2.type} ${keys.ed2.b64}\n`,
  );
  const kh = await KnownHosts.load(only(f));
  assert.equal(kh.lookup('a.example.org', 22, keys.ed1.blob).kind, 'trusted');
  assert.equal(kh.lookup('bad.example.org', 22, keys.ed1.blob).kind, 'unknown');
  assert.equal(kh.lookup('10.0.0.5', 2222, keys.ed2.blob).kind, 'trusted');
  assert.equal(kh.lookup('10.0.0.55', 2222, keys.ed2.blob).kind, 'unknown');
});

test('several keys per host: any equal one is trusted, none equal is changed with every stored ref', async () => {
  const f = newFile(
    [
      '# load balancer',
      `lb.example.com ${keys.ed1.type} ${keys.ed1.b64}`,
      `lb.example.com ${keys.rsa.type} ${keys.rsa.b64}`,
      `lb.example.com,10.1.1.1 ${keys.ecdsa.type} ${keys.ecdsa.b64}`,
    ].join('\n') + '\n',
  );
  const kh = await KnownHosts.load(only(f));
  for (const [k, line] of [
    [keys.ed1, 2],
    [keys.rsa, 3],
    [keys.ecdsa, 4],
  ] as const) {
    const v = kh.lookup('lb.example.com', 22, k.blob);
    assert.equal(v.kind, 'trusted');
    assert.equal(v.kind === 'trusted' && v.stored.line, line);
  }
  assert.deepEqual(kh.storedKeyTypes('lb.example.com', 22), ['ssh-ed25519', 'ssh-rsa', 'ecdsa-sha2-nistp256']);
  const changed = kh.lookup('lb.example.com', 22, keys.ed2.blob);
  assert.equal(changed.kind, 'changed');
  if (changed.kind !== 'changed') return;
  assert.deepEqual(
    changed.stored.map((r) => [r.file, r.line, r.keyType]),
    [
      [f, 2, 'ssh-ed25519'],
      [f, 3, 'ssh-rsa'],
      [f, 4, 'ecdsa-sha2-nistp256'],
    ],
  );
  assert.equal(changed.identity.fingerprint, sha256Fingerprint(keys.ed2.blob));
});

test('@revoked wins over a trusted line, for any host', async () => {
  const f = newFile(`host.example ${keys.ed1.type} ${keys.ed1.b64}\n@revoked * ${keys.ed1.type} ${keys.ed1.b64}\n`);
  const kh = await KnownHosts.load(only(f));
  const v = kh.lookup('host.example', 22, keys.ed1.blob);
  assert.equal(v.kind, 'revoked');
  assert.equal(v.kind === 'revoked' && v.stored.line, 2);
  assert.equal(kh.lookup('elsewhere.example', 2200, keys.ed1.blob).kind, 'revoked');
  assert.equal(kh.lookup('host.example', 22, keys.ed2.blob).kind, 'changed');
});

test('@cert-authority, comments and garbage are ignored for lookup and kept byte for byte by add', async () => {
  const original = [
    '# Sluice test file',
    '',
    '   # indented comment\t',
    `@cert-authority *.example.com ${keys.ed1.type} ${keys.ed1.b64}`,
    'this is not a key line',
    `@bogus host.example.com ${keys.ed1.type} ${keys.ed1.b64}`,
    `mismatch.example.com ssh-rsa ${keys.ed1.b64}`,
    `truncated.example.com ${keys.ed1.type}`,
    '1024 35 1234567 old-rsa1@example',
    `other.example.com ${keys.ecdsa.type} ${keys.ecdsa.b64}\r`,
  ].join('\n');
  for (const trailingNewline of [true, false]) {
    const content = original + (trailingNewline ? '\n' : '');
    const f = newFile(content);
    const kh = await KnownHosts.load(only(f));
    assert.equal(kh.lookup('a.example.com', 22, keys.ed1.blob).kind, 'unknown', 'CA line must not trust a plain key');
    for (const h of ['host.example.com', 'mismatch.example.com', 'truncated.example.com']) {
      assert.equal(kh.lookup(h, 22, keys.ed1.blob).kind, 'unknown', h);
    }
    const other = kh.lookup('other.example.com', 22, keys.ecdsa.blob);
    assert.equal(other.kind === 'trusted' && other.stored.line, 10);
    assert.equal(await kh.add('a.example.com', 22, keys.ed2.blob), true);
    const after = fs.readFileSync(f, 'utf8');
    const expectedPrefix = trailingNewline ? content : content + '\n';
    assert.ok(after.startsWith(expectedPrefix), 'existing bytes unchanged');
    assert.equal(after.slice(expectedPrefix.length), `a.example.com ${keys.ed2.type} ${keys.ed2.b64}\n`);
    assert.equal(kh.lookup('a.example.com', 22, keys.ed2.blob).kind, 'trusted');
  }
});

test('a file hashed by ssh-keygen -H is read, and new entries are written hashed', async () => {
  const f = newFile(
    `example.net ${keys.ed1.type} ${keys.ed1.b64}\n[127.0.0.1]:2200 ${keys.rsa.type} ${keys.rsa.b64}\n`,
  );
  execFileSync('ssh-keygen', ['-H', '-f', f], { stdio: 'ignore' });
  fs.rmSync(`${f}.old`, { force: true });
  assert.ok(
    lines(f).every((l) => l.startsWith('|1|')),
    'ssh-keygen hashed the file',
  );
  const kh = await KnownHosts.load(only(f));
  assert.equal(kh.lookup('example.net', 22, keys.ed1.blob).kind, 'trusted');
  assert.equal(kh.lookup('127.0.0.1', 2200, keys.rsa.blob).kind, 'trusted');
  assert.equal(kh.lookup('127.0.0.1', 2200, keys.ed2.blob).kind, 'changed');
  assert.equal(kh.lookup('example.org', 22, keys.ed1.blob).kind, 'unknown');

  assert.equal(await kh.add('127.0.0.1', 2222, keys.ecdsa.blob), true);
  const all = lines(f);
  assert.equal(all.length, 3);
  assert.match(all[2], /^\|1\|[A-Za-z0-9+/=]+\|[A-Za-z0-9+/=]+ ecdsa-sha2-nistp256 /);
  const found = spawnSync('ssh-keygen', ['-F', '[127.0.0.1]:2222', '-f', f], { encoding: 'utf8' });
  assert.equal(found.status, 0, found.stderr);
  assert.ok(found.stdout.includes(keys.ecdsa.b64), 'ssh-keygen -F finds the hashed entry we wrote');
  const reloaded = await KnownHosts.load(only(f));
  assert.equal(reloaded.lookup('127.0.0.1', 2222, keys.ecdsa.blob).kind, 'trusted');
});

test('plain entries we write are found by ssh-keygen -F (bare host for 22, [host]:port otherwise)', async () => {
  const f = newFile();
  const kh = await KnownHosts.load(only(f));
  await kh.add('Mixed.Example.COM', 22, keys.ed1.blob);
  await kh.add('127.0.0.1', 2222, keys.ed2.blob);
  assert.deepEqual(lines(f), [
    `mixed.example.com ${keys.ed1.type} ${keys.ed1.b64}`,
    `[127.0.0.1]:2222 ${keys.ed2.type} ${keys.ed2.b64}`,
  ]);
  for (const [name, k] of [
    ['mixed.example.com', keys.ed1],
    ['[127.0.0.1]:2222', keys.ed2],
  ] as const) {
    const found = spawnSync('ssh-keygen', ['-F', name, '-f', f], { encoding: 'utf8' });
    assert.equal(found.status, 0, found.stderr);
    assert.ok(found.stdout.includes(k.b64));
  }
});

test('add creates ~/.ssh 0700 and known_hosts 0600', async () => {
  const home = path.join(suite.dir, 'home-fresh');
  fs.mkdirSync(home);
  const paths = defaultKnownHostsPaths({}, home);
  const kh = await KnownHosts.load({ readPaths: [paths.writePath], writePath: paths.writePath });
  await kh.add('example.com', 22, keys.ed1.blob);
  assert.equal(fs.statSync(path.join(home, '.ssh')).mode & 0o777, 0o700);
  assert.equal(fs.statSync(paths.writePath).mode & 0o777, 0o600);
  assert.equal(lines(paths.writePath).length, 1);
});

test('concurrent adds of one host+key write one line, across instances too; a stored key is not re-added', async () => {
  const f = newFile(`example.com ${keys.ed1.type} ${keys.ed1.b64}\n`);
  const a = await KnownHosts.load(only(f));
  const b = await KnownHosts.load(only(f));
  const results = await Promise.all([
    ...Array.from({ length: 8 }, () => a.add('127.0.0.1', 2222, keys.ed2.blob)),
    ...Array.from({ length: 4 }, () => b.add('127.0.0.1', 2222, keys.ed2.blob)),
  ]);
  assert.ok(
    results.every((r) => r === true),
    'every caller shares the one write',
  );
  assert.equal(lines(f).length, 2);
  assert.equal(b.lookup('127.0.0.1', 2222, keys.ed2.blob).kind, 'trusted');
  assert.equal(await a.add('EXAMPLE.com', 22, keys.ed1.blob), false);
  // Another process appended the key behind our back: the file is re-checked before writing.
  fs.appendFileSync(f, `[127.0.0.1]:2222 ${keys.rsa.type} ${keys.rsa.b64}\n`);
  assert.equal(await a.add('127.0.0.1', 2222, keys.rsa.blob), false);
  assert.equal(lines(f).length, 3);
});

test('missing read paths are skipped, keys from several read paths are merged', async () => {
  const user = newFile(`example.com ${keys.ed1.type} ${keys.ed1.b64}\n`);
  const system = newFile(`example.com ${keys.rsa.type} ${keys.rsa.b64}\n`);
  const kh = await KnownHosts.load({
    readPaths: [user, system, path.join(suite.dir, 'missing', 'file')],
    writePath: user,
  });
  const v = kh.lookup('example.com', 22, keys.rsa.blob);
  assert.equal(v.kind === 'trusted' && v.stored.file, system);
  assert.deepEqual(
    kh.keysFor('example.com', 22).map((r) => r.file),
    [user, system],
  );
});
