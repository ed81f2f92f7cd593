/**
 * The quick-connect bar's reading (quickConnect.ts): the CLI's URL grammar with or without `sftp://`, scp's host:path,
 * and a `~/.ssh/config` alias resolved to its user and port (the typed name kept as the host, for its identities).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { scratchDir } from '../../../e2e/fixtures/tmp';
import { parseQuickTarget, quickSite } from './quickConnect';

test('user@host:port, sftp:// URLs, host:path and bare names read as the CLI reads its operands', () => {
  assert.deepEqual(parseQuickTarget('deploy@files.example.org:2222'), {
    user: 'deploy',
    host: 'files.example.org',
    port: 2222,
    path: '',
  });
  assert.deepEqual(parseQuickTarget(' sftp://me@[::1]:2200/srv/data '), {
    user: 'me',
    host: '::1',
    port: 2200,
    path: '/srv/data',
  });
  assert.deepEqual(parseQuickTarget('me@host:/var/www'), { user: 'me', host: 'host', port: 22, path: '/var/www' });
  assert.deepEqual(parseQuickTarget('host:logs'), { host: 'host', port: 22, path: '~/logs' });
  assert.deepEqual(parseQuickTarget('myalias'), { host: 'myalias', port: 22, path: '' });
  assert.throws(() => parseQuickTarget('host:99999'), /not a port number/);
  assert.throws(() => parseQuickTarget('scp://host'), /Only sftp:\/\/ URLs are supported, not scp/);
  assert.throws(() => parseQuickTarget('  '), /Type user@host:port/);
  assert.throws(() => parseQuickTarget('me:secret@host'), /password in the URL is refused/);
});

test('an alias takes User, Port and HostName from ~/.ssh/config; what was typed wins', () => {
  const home = scratchDir('sluice-quick-');
  fs.mkdirSync(path.join(home, '.ssh'));
  const config = path.join(home, '.ssh', 'config');
  fs.writeFileSync(config, 'Host box\n  HostName 127.0.0.1\n  Port 2311\n  User deploy\n');
  const env = { HOME: home, USER: 'local' };
  const site = quickSite('box', { env }, 5);
  assert.equal(site.host, 'box', 'the alias stays the host: its identities and jump hosts apply at connect time');
  assert.equal(site.resolvedHost, '127.0.0.1');
  assert.equal(site.port, 2311);
  assert.equal(site.user, 'deploy');
  assert.equal(site.name, 'deploy@box:2311');
  assert.equal(site.authMethod, 'agent');
  assert.match(site.id, /^quick:/);
  const typed = quickSite('sftp://root@box:2400/~/in', { env }, 5);
  assert.deepEqual([typed.user, typed.port, typed.remoteDir], ['root', 2400, '~/in']);
  const plain = quickSite('example.org', { env, sshConfig: 'none' }, 5);
  assert.deepEqual(
    [plain.user, plain.port, plain.name, plain.resolvedHost],
    ['local', 22, 'local@example.org', undefined],
  );
});
