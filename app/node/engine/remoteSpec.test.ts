import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRemoteUrl, formatRemote, remoteOperandHint, scpStyleUrl, type RemoteSpec } from './remoteSpec';
import { SluiceError } from '../errors';

const good: Array<[string, RemoteSpec]> = [
  ['sftp://host', { host: 'host', port: 22, path: '' }],
  ['sftp://host/', { host: 'host', port: 22, path: '/' }],
  ['sftp://Host.Example.com/abs/file.txt', { host: 'host.example.com', port: 22, path: '/abs/file.txt' }],
  ['SFTP://h/x', { host: 'h', port: 22, path: '/x' }],
  ['sftp://user@host:2222/path', { user: 'user', host: 'host', port: 2222, path: '/path' }],
  ['sftp://h/~/x', { host: 'h', port: 22, path: '~/x' }],
  ['sftp://h/~', { host: 'h', port: 22, path: '~' }],
  ['sftp://h/~/', { host: 'h', port: 22, path: '~/' }],
  ['sftp://h/~bob/x', { host: 'h', port: 22, path: '~bob/x' }],
  ['sftp://h/%7E/x', { host: 'h', port: 22, path: '/~/x' }],
  ['sftp://[::1]:2222/x', { host: '::1', port: 2222, path: '/x' }],
  ['sftp://[::1]', { host: '::1', port: 22, path: '' }],
  ['sftp://u@[2001:DB8::1]/d/', { user: 'u', host: '2001:db8::1', port: 22, path: '/d/' }],
  ['sftp://[fe80::1%25eth0]:22/x', { host: 'fe80::1%eth0', port: 22, path: '/x' }],
  ['sftp://127.0.0.1:65535/x', { host: '127.0.0.1', port: 65535, path: '/x' }],
  ['sftp://h:/x', { host: 'h', port: 22, path: '/x' }],
  ['sftp://first.last%40corp@h/x', { user: 'first.last@corp', host: 'h', port: 22, path: '/x' }],
  ['sftp://j%C3%BCrgen@h/x', { user: 'jürgen', host: 'h', port: 22, path: '/x' }],
  ['sftp://h/dir%20with%20space/f%23%3F%25.txt', { host: 'h', port: 22, path: '/dir with space/f#?%.txt' }],
  ['sftp://h/dir with space/f', { host: 'h', port: 22, path: '/dir with space/f' }],
  ['sftp://h/%E6%97%A5%E6%9C%AC', { host: 'h', port: 22, path: '/日本' }],
  ['sftp://my_host-1/x', { host: 'my_host-1', port: 22, path: '/x' }],
];

test('parseRemoteUrl parses valid sftp:// URLs', () => {
  for (const [text, want] of good) assert.deepEqual(parseRemoteUrl(text), want, text);
});

test('parseRemoteUrl returns null for non-sftp operands', () => {
  for (const text of [
    '/local/path',
    'file.txt',
    'C:\\x',
    'user@host:path',
    'ssh://h/x',
    'http://h/x',
    'sftp:/h/x',
    '',
    'sftp:h',
  ]) {
    assert.equal(parseRemoteUrl(text), null, text);
  }
});

const bad: Array<[string, RegExp]> = [
  ['sftp://', /host is empty/],
  ['sftp:///x', /host is empty/],
  ['sftp://user:secret@h/x', /SLUICE_PASSWORD/],
  ['sftp://user:@h/x', /SLUICE_PASSWORD/],
  ['sftp://@h/x', /user name .* empty/],
  ['sftp://h:0/x', /port/],
  ['sftp://h:65536/x', /port/],
  ['sftp://h:22a/x', /port/],
  ['sftp://h:-1/x', /port/],
  ['sftp://[::1/x', /closing/],
  ['sftp://[nothex]/x', /not an IPv6/],
  ['sftp://[::1]x/x', /unexpected/],
  ['sftp://::1/x', /brackets/],
  ['sftp://fe80::1/x', /IPv6 address must be in brackets/],
  ['sftp://a:b:c/x', /more than one ":" after the host/],
  ['sftp://h/x%zz', /percent-encoding/],
  ['sftp://h/x%', /percent-encoding/],
  ['sftp://h/%C3%28', /UTF-8/],
  ['sftp://h/a%00b', /NUL/],
  ['sftp://h/x?y=1', /"\?" or "#"/],
  ['sftp://h/x#frag', /"\?" or "#"/],
  ['sftp://h/a\nb', /control/],
  ['sftp://u;fingerprint=ssh-rsa-xx@h/x', /parameters/],
  ['sftp://-oProxyCommand=x/y', /not a valid host/],
  ['sftp://bad host/x', /not a valid host/],
  ['sftp://a@b@h/x', /"@"/],
];

test('parseRemoteUrl throws USAGE for malformed sftp:// URLs', () => {
  for (const [text, why] of bad) {
    assert.throws(
      () => parseRemoteUrl(text),
      (e: unknown) => {
        assert.ok(e instanceof SluiceError, text);
        assert.equal(e.code, 'USAGE', text);
        assert.match(e.message, why, text);
        return true;
      },
      text,
    );
  }
});

test('a password in the URL never appears in the error message', () => {
  assert.throws(
    () => parseRemoteUrl('sftp://alice:hunter2@h/x'),
    (e: unknown) => {
      assert.ok(e instanceof SluiceError);
      assert.doesNotMatch(e.message, /hunter2/);
      assert.match(e.message, /alice/);
      return true;
    },
  );
});

test('formatRemote gives printable URLs that parse back to the same spec', () => {
  assert.equal(formatRemote({ host: 'h', port: 22, path: '' }), 'sftp://h');
  assert.equal(formatRemote({ user: 'u', host: 'h', port: 2222, path: '/a b' }), 'sftp://u@h:2222/a%20b');
  assert.equal(formatRemote({ host: '::1', port: 2222, path: '/x' }), 'sftp://[::1]:2222/x');
  assert.equal(formatRemote({ host: 'h', port: 22, path: '~/x' }), 'sftp://h/~/x');
  assert.equal(formatRemote({ host: 'h', port: 22, path: 'rel/x' }), 'sftp://h/~/rel/x');
  assert.equal(
    formatRemote({ host: 'h', port: 22, path: '/evil\u001b[2J' }),
    'sftp://h/evil%1B[2J'.replace('[', '%5B'),
  );
  for (const [, spec] of good) assert.deepEqual(parseRemoteUrl(formatRemote(spec)), spec, formatRemote(spec));
  const odd: RemoteSpec = { user: 'a:b@c;d', host: 'h', port: 1, path: '/%/?/#/\t/日本' };
  assert.deepEqual(parseRemoteUrl(formatRemote(odd)), odd);
});

test('a port followed by ":" (scp habit) names the URL and suggests the one probably meant, not an IPv6 problem', () => {
  const cases: Array<[string, string]> = [
    ['sftp://host:2222:/path', 'sftp://host:2222/path'],
    ['sftp://alice@host:2222:/srv/x/', 'sftp://alice@host:2222/srv/x/'],
    ['sftp://host:2222:dir/f', 'sftp://host:2222/~/dir/f'],
    ['sftp://host:2222:~/f', 'sftp://host:2222/~/f'],
    ['sftp://host::/p', 'sftp://host/p'],
  ];
  for (const [text, meant] of cases) {
    assert.throws(
      () => parseRemoteUrl(text),
      (e: unknown) => {
        assert.ok(e instanceof SluiceError && e.code === 'USAGE', text);
        assert.ok(e.message.startsWith(`Invalid sftp:// URL "${text}": `), e.message);
        assert.ok(e.message.endsWith(`port followed by ':' — did you mean ${meant}?`), e.message);
        assert.doesNotMatch(e.message, /IPv6/, text);
        return true;
      },
      text,
    );
  }
});

test('scpStyleUrl: the sftp:// URL an scp-style operand means', () => {
  const cases: Array<[string, string | undefined]> = [
    ['user@host:/path', 'sftp://user@host/path'],
    ['host:/abs/f.txt', 'sftp://host/abs/f.txt'],
    ['host:rel/f', 'sftp://host/~/rel/f'],
    ['host:~/f', 'sftp://host/~/f'],
    ['alice@Files.Example.com:', 'sftp://alice@files.example.com'],
    ['[::1]:/x', 'sftp://[::1]/x'],
    ['host:/a b', 'sftp://host/a%20b'],
    ['./dir:x', undefined],
    ['/abs/a:b', undefined],
    ['C:\\x', undefined],
    ['C:/x', undefined],
    ['plain.txt', undefined],
    ['-oProxy=x:y', undefined],
    ['http://h/x', undefined],
    ['[nothex]:/x', undefined],
  ];
  for (const [text, want] of cases) assert.equal(scpStyleUrl(text), want, text);
});

test('remoteOperandHint: scp style (only when no such local path), other schemes, sftp: without //', () => {
  assert.equal(remoteOperandHint('user@host:/path'), 'scp-style "host:path" is not a URL: use sftp://user@host/path');
  assert.equal(
    remoteOperandHint('user@host:/path', (p) => p === 'user@host:/path'),
    undefined,
    'an existing local path gets no hint',
  );
  assert.match(remoteOperandHint('scp://host/x') ?? '', /only sftp:\/\/ URLs are supported, not scp:\/\//);
  assert.match(remoteOperandHint('sftp:/host/x') ?? '', /two slashes/);
  assert.equal(remoteOperandHint('just-a-file.txt'), undefined);
});

test('the login folder: sftp://h/~/x keeps "~/x" for the engine to resolve (realpath), sftp://h is the login folder', () => {
  assert.deepEqual(parseRemoteUrl('sftp://h/~/x'), { host: 'h', port: 22, path: '~/x' });
  assert.deepEqual(parseRemoteUrl('sftp://h'), { host: 'h', port: 22, path: '' });
});
