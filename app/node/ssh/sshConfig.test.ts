/**
 * ssh_config(5) evaluation against files written here: first value wins, Host patterns, Include, Match, -F, the
 * system file after the user's, and the token expansions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SluiceError } from '../errors';
import { computeHostConfig, configFilesFor, matchPattern, matchPatternList, type HostQuery } from './sshConfig';
import { expandPath, expandTokens, type TokenValues } from './sshConfigTokens';

/** A home folder with `.ssh/config` holding `text`, and an empty system file unless given. */
function home(t: { after(fn: () => void): void }, text: string, system = ''): { home: string; system: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-sshcfg-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, '.ssh'));
  fs.writeFileSync(path.join(dir, '.ssh', 'config'), text);
  fs.writeFileSync(path.join(dir, 'system_config'), system);
  return { home: dir, system: path.join(dir, 'system_config') };
}

function query(h: { home: string; system: string }, host: string, more: Partial<HostQuery> = {}): HostQuery {
  return { host, localUser: 'me', home: h.home, files: configFilesFor(undefined, h.home, h.system), ...more };
}

const first = (q: HostQuery, keyword: string) => computeHostConfig(q).values.get(keyword)?.args;

test('patterns: * any run, ? exactly one character, ! refuses, host names without case', () => {
  assert.ok(matchPattern('web1.example.com', '*.example.com'));
  assert.ok(matchPattern('web1', 'web?'));
  assert.ok(!matchPattern('web', 'web?'), "? needs one character (ssh-config's own glob lets it match none)");
  assert.ok(!matchPattern('web12', 'web?'));
  assert.ok(matchPattern('WEB1', 'web1', true));
  assert.ok(matchPattern('a.b', 'a?b'), '? matches a dot');
  assert.ok(!matchPattern('axb', 'a.b'));
  assert.ok(matchPatternList('db1', ['db*', '!db2']));
  assert.ok(!matchPatternList('db2', ['db*', '!db2']));
  assert.ok(!matchPatternList('db2', ['!db2', 'db*']), 'a negated match refuses wherever it stands');
});

test('first value wins across Host blocks and files; Host * later does not override; IdentityFile accumulates', (t) => {
  const h = home(
    t,
    [
      'Port 2200', // before any Host: applies to every host, and wins over later blocks
      'Host myalias',
      '  HostName real.example.com',
      '  User alice',
      '  IdentityFile ~/.ssh/id_alias',
      'Host my*',
      '  HostName other.example.com',
      '  Port 2222',
      '  User bob',
      '  IdentityFile ~/.ssh/id_star',
      '  IdentityFile ~/.ssh/id_alias',
      'Host *',
      '  Ciphers aes128-ctr',
    ].join('\n'),
    'Host *\n  Ciphers aes256-ctr\n  ConnectTimeout 7\n',
  );
  const r = computeHostConfig(query(h, 'myalias'));
  assert.deepEqual(r.values.get('hostname')?.args, ['real.example.com']);
  assert.deepEqual(r.values.get('user')?.args, ['alice']);
  assert.deepEqual(r.values.get('port')?.args, ['2200']);
  assert.deepEqual(r.values.get('ciphers')?.args, ['aes128-ctr'], 'the user file comes before the system file');
  assert.deepEqual(r.values.get('connecttimeout')?.args, ['7'], 'the system file still fills what the user file left');
  assert.deepEqual(
    r.identityFiles.map((f) => f.args[0]),
    ['~/.ssh/id_alias', '~/.ssh/id_star'],
    'in order, duplicates dropped',
  );
  assert.deepEqual(r.files, [path.join(h.home, '.ssh', 'config'), h.system]);
  assert.equal(first(query(h, 'other'), 'hostname'), undefined, 'no block matched');
});

test('negated Host patterns and lower-case matching', (t) => {
  const h = home(t, 'Host *.corp !bastion.corp\n  ProxyJump bastion.corp\nHost BASTION.corp\n  User ops\n');
  assert.deepEqual(first(query(h, 'db.corp'), 'proxyjump'), ['bastion.corp']);
  assert.equal(first(query(h, 'bastion.corp'), 'proxyjump'), undefined);
  assert.deepEqual(first(query(h, 'bastion.corp'), 'user'), ['ops']);
});

test('Include: relative to ~/.ssh, globbed in order, inside a Host block only when it matches', (t) => {
  const h = home(
    t,
    ['Include conf.d/*.conf', 'Host inner', '  Include inner.conf', 'Host *', '  User fallback'].join('\n'),
  );
  fs.mkdirSync(path.join(h.home, '.ssh', 'conf.d'));
  fs.writeFileSync(path.join(h.home, '.ssh', 'conf.d', 'b.conf'), 'Host web\n  Port 2002\n');
  fs.writeFileSync(path.join(h.home, '.ssh', 'conf.d', 'a.conf'), 'Host web\n  Port 2001\n  HostName web.example\n');
  fs.writeFileSync(path.join(h.home, '.ssh', 'conf.d', '.hidden.conf'), 'Host web\n  Port 1\n');
  // A top-level line of the included file belongs to the including block; its own Host lines match by themselves.
  fs.writeFileSync(path.join(h.home, '.ssh', 'inner.conf'), 'User inside\nHost web\n  Compression yes\n');
  const web = computeHostConfig(query(h, 'web'));
  assert.deepEqual(web.values.get('port')?.args, ['2001'], 'a.conf before b.conf, .hidden.conf not globbed');
  assert.deepEqual(
    web.values.get('user')?.args,
    ['fallback'],
    'inner.conf is read only for a host matching "Host inner"',
  );
  assert.equal(web.values.get('compression'), undefined);
  const inner = computeHostConfig(query(h, 'inner'));
  assert.deepEqual(inner.values.get('user')?.args, ['inside']);
  assert.ok(inner.files.includes(path.join(h.home, '.ssh', 'inner.conf')));
});

test('Include that includes itself stops at the depth limit with a USAGE error', (t) => {
  const h = home(t, 'Include config\n');
  assert.throws(
    () => computeHostConfig(query(h, 'x')),
    (e: unknown) => e instanceof SluiceError && e.code === 'USAGE' && /nested/.test(e.message),
  );
});

test('Match host tests HostName, originalhost the typed name, user the given user; unsupported criteria skip the block', (t) => {
  const h = home(
    t,
    [
      'Host short',
      '  HostName long.example.com',
      'Match host long.example.com',
      '  Port 2201',
      'Match originalhost short user deploy',
      '  IdentityFile ~/.ssh/deploy',
      'Match !user root localuser me',
      '  ServerAliveInterval 30',
      'Match exec "true" host *',
      '  Ciphers aes128-ctr',
      'Match all',
      '  ConnectTimeout 9',
    ].join('\n'),
  );
  const notes: string[] = [];
  const r = computeHostConfig(query(h, 'short', { user: 'deploy', onNote: (m) => notes.push(m) }));
  assert.deepEqual(r.values.get('port')?.args, ['2201']);
  assert.deepEqual(
    r.identityFiles.map((f) => f.args[0]),
    ['~/.ssh/deploy'],
  );
  assert.deepEqual(r.values.get('serveraliveinterval')?.args, ['30']);
  assert.equal(r.values.get('ciphers'), undefined, 'Match exec is never run: the block is skipped');
  assert.deepEqual(r.values.get('connecttimeout')?.args, ['9']);
  assert.equal(notes.length, 1);
  assert.match(notes[0], /Match exec/);
  const root = computeHostConfig(query(h, 'short', { user: 'root' }));
  assert.equal(root.values.get('serveraliveinterval'), undefined, '!user root');
  assert.equal(root.identityFiles.length, 0);
});

test('Match user sees User set earlier; Match final runs a second pass where Host tests the HostName', (t) => {
  const h = home(
    t,
    [
      'Host a',
      '  User ci',
      '  HostName b.example',
      'Match user ci',
      '  Port 2300',
      'Host b.example',
      '  IdentitiesOnly yes',
      'Match final host b.example',
      '  Compression yes',
    ].join('\n'),
  );
  const r = computeHostConfig(query(h, 'a'));
  assert.deepEqual(r.values.get('port')?.args, ['2300']);
  assert.deepEqual(r.values.get('compression')?.args, ['yes']);
  assert.deepEqual(r.values.get('identitiesonly')?.args, ['yes'], 'in the final pass Host matches the HostName');
});

test('-F FILE replaces both files; -F none reads nothing; a missing -F file is a USAGE error', (t) => {
  const h = home(t, 'Host x\n  Port 1111\n', 'Host x\n  User sys\n');
  const own = path.join(h.home, 'own_config');
  fs.writeFileSync(own, 'Host x\n  Port 3333\n');
  const r = computeHostConfig({ ...query(h, 'x'), files: configFilesFor(own, h.home, h.system) });
  assert.deepEqual(r.values.get('port')?.args, ['3333']);
  assert.equal(r.values.get('user'), undefined, 'the system file is not read with -F');
  assert.deepEqual(r.files, [own]);
  assert.equal(computeHostConfig({ ...query(h, 'x'), files: configFilesFor('none', h.home) }).values.size, 0);
  assert.throws(
    () => computeHostConfig({ ...query(h, 'x'), files: configFilesFor(path.join(h.home, 'nope'), h.home) }),
    (e: unknown) => e instanceof SluiceError && e.code === 'USAGE' && /no such file/.test(e.message),
  );
  assert.equal(
    computeHostConfig({
      ...query(h, 'x'),
      files: configFilesFor(undefined, path.join(h.home, 'nohome'), path.join(h.home, 'nosys')),
    }).values.size,
    0,
    'missing default files are no error',
  );
});

test('tokens: %h %p %r %u %d %n %l %L %i %j %% expand, others are refused; ~ and ${VAR} in paths', () => {
  const v: TokenValues = {
    home: '/home/me',
    localUser: 'me',
    localHost: 'box.lan',
    uid: 1000,
    host: 'real.example',
    originalHost: 'alias',
    port: 2222,
    remoteUser: 'alice',
    jump: 'b',
  };
  assert.equal(
    expandTokens('%d/.ssh/%r@%h:%p-%u-%n-%l-%L-%i-%j-100%%', v, 'IdentityFile'),
    '/home/me/.ssh/alice@real.example:2222-me-alias-box.lan-box-1000-b-100%',
  );
  assert.throws(
    () => expandTokens('~/.ssh/%C', v, 'IdentityFile (cfg)'),
    (e: unknown) => e instanceof SluiceError && /%C/.test(e.message) && /IdentityFile \(cfg\)/.test(e.message),
  );
  assert.throws(() => expandTokens('trailing%', v, 'x'), /at the end/);
  assert.equal(expandPath('~/.ssh/id_%h', v, {}, 'IdentityFile'), '/home/me/.ssh/id_real.example');
  assert.equal(expandPath('${KEYS}/%r', v, { KEYS: '/keys' }, 'IdentityFile'), '/keys/alice');
  assert.throws(() => expandPath('${NOPE}/x', v, {}, 'IdentityFile'), /NOPE is not set/);
});
