/** A saved site's name as the host of a URL (cli/bookmarks.ts): precedence, ambiguity, the options it fills. */
import test from 'node:test';
import assert from 'node:assert/strict';
import type { Site } from '../../common/model/site';
import { applyBookmark, sitePath, withBookmark } from './bookmarks';
import { resolveOperands } from './jobSetup';
import { parseRemoteUrl } from '../engine/remoteSpec';
import type { CliOptions } from './program';

const site: Site = {
  id: 'id-1',
  name: 'Web',
  folder: 'Work',
  host: 'web.example.com',
  port: 2222,
  user: 'deploy',
  authMethod: 'key',
  keyPath: '/k/web',
  connections: 3,
  ciphers: ['aes256-gcm@openssh.com'],
  speedLimit: 1048576,
  createdAt: 1,
  updatedAt: 1,
};
const lookup = (name: string): Site[] => (name === 'web' ? [site] : []);
const resolve = (text: string) => applyBookmark(parseRemoteUrl(text)!, text, lookup);

test('a site name as URL host: its host, port and user, unless the URL gives a user or port; others untouched', () => {
  assert.deepEqual(resolve('sftp://WEB/var/www'), {
    host: 'web.example.com',
    port: 2222,
    user: 'deploy',
    path: '/var/www',
    bookmark: site,
  });
  assert.deepEqual(resolve('sftp://bob@web:22/x'), {
    host: 'web.example.com',
    port: 22,
    user: 'bob',
    path: '/x',
    bookmark: site,
  });
  assert.deepEqual(resolve('sftp://other.example.com/x'), { host: 'other.example.com', port: 22, path: '/x' });
  let asked = false;
  const spy = (): Site[] => {
    asked = true;
    return [site];
  };
  assert.equal(applyBookmark(parseRemoteUrl('sftp://10.0.0.1/x')!, 'sftp://10.0.0.1/x', spy).host, '10.0.0.1');
  assert.equal(asked, false, 'an IP address is never looked up');
  assert.throws(
    () =>
      applyBookmark(parseRemoteUrl('sftp://web/x')!, 'sftp://web/x', () => [site, { ...site, id: 'id-2', folder: '' }]),
    /2 saved sites are named web \("Work\/Web", "Web"\)/,
  );
});

test("resolveOperands: every source of a get on the site; a put's destination", () => {
  const r = resolveOperands('get', ['sftp://web/a', 'sftp://deploy@web.example.com:2222/b'], '/tmp/x', lookup);
  assert.deepEqual(r.sources, ['/a', '/b']);
  assert.equal(r.spec.bookmark, site);
  assert.equal(resolveOperands('put', ['/tmp/a'], 'sftp://web/in/', lookup).spec.host, 'web.example.com');
});

test("a site's remote folder is the root of its URLs' paths: //abs is absolute, /~/x the login folder", () => {
  assert.equal(sitePath('', '/srv/data'), '/srv/data', "sftp://site: the site's folder");
  assert.equal(sitePath('/', '/srv/data'), '/srv/data/');
  assert.equal(sitePath('/hello.txt', '/srv/data'), '/srv/data/hello.txt');
  assert.equal(sitePath('/in/', '/srv/data/'), '/srv/data/in/', 'a trailing slash is kept (a put into a folder)');
  assert.equal(sitePath('//etc/hosts', '/srv/data'), '/etc/hosts');
  assert.equal(sitePath('///etc', '/srv/data'), '/etc');
  assert.equal(sitePath('~/x', '/srv/data'), '~/x');
  assert.equal(sitePath('~', '/srv/data'), '~');
  assert.equal(sitePath('/x', '~/work'), '~/work/x', 'a folder relative to the login folder');
  assert.equal(sitePath('/x', '/'), '/x');
  assert.equal(sitePath('/x', undefined), '/x', "no folder: the URL's own reading");
  assert.equal(sitePath('', undefined), '', 'no folder: the login folder');
  const inFolder = (name: string): Site[] => (name === 'web' ? [{ ...site, remoteDir: '/var/www' }] : []);
  const r = resolveOperands('get', ['sftp://web/logs/a.log', 'sftp://web//etc/motd', 'sftp://web'], '/tmp/x', inFolder);
  assert.deepEqual(r.sources, ['/var/www/logs/a.log', '/etc/motd', '/var/www']);
  assert.equal(resolveOperands('put', ['/tmp/a'], 'sftp://web/in/', inFolder).dest, '/var/www/in/');
});

test('withBookmark: the site fills what the command leaves unset', () => {
  const base = { agent: true } as CliOptions;
  assert.deepEqual(withBookmark(base, site), {
    agent: true,
    identity: ['/k/web'],
    cipher: ['aes256-gcm@openssh.com'],
    kex: undefined,
    mac: undefined,
    hostKeyAlgorithms: undefined,
    connections: 3,
    channels: undefined,
    limit: 1048576,
  });
  const lists = withBookmark({ ...base, mac: ['hmac-sha1'] } as CliOptions, {
    ...site,
    kex: ['curve25519-sha256'],
    macs: ['hmac-sha2-256'],
    hostKeyAlgorithms: ['ssh-ed25519'],
  });
  assert.deepEqual(
    [lists.kex, lists.mac, lists.hostKeyAlgorithms],
    [['curve25519-sha256'], ['hmac-sha1'], ['ssh-ed25519']],
    "the site's lists, the command's first",
  );
  const given = { agent: true, identity: ['/mine'], connections: 1, limit: 0 } as CliOptions;
  const o = withBookmark(given, site);
  assert.deepEqual([o.identity, o.connections, o.limit], [['/mine'], 1, 0]);
  assert.equal(
    withBookmark(base, { ...site, authMethod: 'agent' }).identity,
    undefined,
    'an agent site gives no key file',
  );
  assert.equal(withBookmark(base, undefined), base);
});
