import test from 'node:test';
import assert from 'node:assert/strict';
import { followPath, localFor, remoteFor, type SyncPair } from './syncBrowsing';

const pair: SyncPair = { local: '/home/me/site', localSep: '/', remote: '/var/www' };

test('the remote pane into a sub-folder, deeper, up and back: the local pane by the same relative path', () => {
  assert.equal(localFor(pair, '/var/www'), '/home/me/site');
  assert.equal(localFor(pair, '/var/www/css'), '/home/me/site/css');
  assert.equal(localFor(pair, '/var/www/css/img'), '/home/me/site/css/img');
  assert.equal(localFor(pair, '/var'), '/home/me');
  assert.equal(localFor(pair, '/var/log'), '/home/me/log');
  assert.equal(localFor(pair, '/'), '/home');
});

test('the reverse: the local pane moves, the remote pane follows', () => {
  assert.equal(remoteFor(pair, '/home/me/site/js'), '/var/www/js');
  assert.equal(remoteFor(pair, '/home/me'), '/var');
  assert.equal(remoteFor(pair, '/home'), '/');
  assert.equal(remoteFor(pair, '/'), null, 'above the remote root: no counterpart');
});

test("a move above the other side's root has no counterpart", () => {
  const shallow: SyncPair = { local: '/data', localSep: '/', remote: '/srv/app/www' };
  assert.equal(localFor(shallow, '/srv/app'), '/');
  assert.equal(localFor(shallow, '/srv'), null);
});

test('Windows local paths: drives, backslashes, case; another drive has no counterpart', () => {
  const win: SyncPair = { local: 'C:\\Users\\me\\site', localSep: '\\', remote: '/var/www' };
  assert.equal(localFor(win, '/var/www/css'), 'C:\\Users\\me\\site\\css');
  assert.equal(localFor(win, '/var'), 'C:\\Users\\me');
  assert.equal(localFor(win, '/'), 'C:\\Users');
  assert.equal(remoteFor(win, 'c:\\users\\ME\\Site\\js'), '/var/www/js');
  assert.equal(remoteFor(win, 'D:\\site'), null);
  assert.equal(followPath('C:\\a', '\\', 'C:\\', '/x/y', '/'), '/x');
  assert.equal(localFor({ ...win, local: 'C:\\' }, '/var/www/a'), 'C:\\a');
});

test('names are compared exactly on the remote side (case matters there) and spaces survive', () => {
  assert.equal(localFor(pair, '/var/WWW/x'), '/home/me/WWW/x');
  assert.equal(localFor(pair, '/var/www/my folder'), '/home/me/site/my folder');
});
