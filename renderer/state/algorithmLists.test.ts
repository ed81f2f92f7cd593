/**
 * The site form's algorithm lists (renderer/state/algorithmLists.ts): rows from the engine's catalog, toggling and
 * moving, a list equal to the defaults stored as none, weak and unsupported names marked.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import type { AlgorithmFamilyCatalog } from '../../app/common/algorithms';
import { choiceSummary, emptyFamilies, move, rowsOf, toggle } from './algorithmLists';

const ciphers: AlgorithmFamilyCatalog = {
  supported: ['aes128-gcm@openssh.com', 'aes256-ctr', 'chacha20-poly1305@openssh.com', 'aes128-cbc'],
  defaults: ['aes128-gcm@openssh.com', 'chacha20-poly1305@openssh.com', 'aes256-ctr'],
  weak: { 'aes128-cbc': 'CBC mode' },
};

test('rows: the defaults on in their order, the rest off; a weak one marked and off by default', () => {
  const rows = rowsOf(ciphers, null);
  assert.deepEqual(
    rows.map((r) => [r.name, r.enabled]),
    [
      ['aes128-gcm@openssh.com', true],
      ['chacha20-poly1305@openssh.com', true],
      ['aes256-ctr', true],
      ['aes128-cbc', false],
    ],
  );
  assert.equal(rows[3].weak, 'CBC mode');
  assert.equal(choiceSummary(ciphers, null), 'default order (3 on)');
});

test('toggle and move: an enabled name goes last; moves stop at the ends; the default order again is none', () => {
  const withCbc = toggle(ciphers, null, 'aes128-cbc', true);
  assert.deepEqual(withCbc, [...ciphers.defaults, 'aes128-cbc']);
  assert.equal(choiceSummary(ciphers, withCbc), 'custom: 4 on, 1 weak');
  const up = move(ciphers, withCbc, 'aes128-cbc', -1);
  assert.deepEqual(up, ['aes128-gcm@openssh.com', 'chacha20-poly1305@openssh.com', 'aes128-cbc', 'aes256-ctr']);
  assert.equal(move(ciphers, up, 'aes128-gcm@openssh.com', -1), up, 'the first cannot go up');
  assert.equal(move(ciphers, up, 'aes256-ctr', 1), up, 'the last enabled cannot go down');
  assert.equal(move(ciphers, up, 'nope', 1), up);
  assert.equal(toggle(ciphers, up, 'aes128-cbc', false), null, 'back to the default order: stored as none');
  const swapped = move(ciphers, null, 'aes256-ctr', -1);
  assert.deepEqual(swapped, ['aes128-gcm@openssh.com', 'aes256-ctr', 'chacha20-poly1305@openssh.com']);
  assert.equal(move(ciphers, swapped, 'aes256-ctr', 1), null);
});

test('a saved name this engine lacks stays visible, marked; a family with nothing on is reported', () => {
  const rows = rowsOf(ciphers, ['twofish-cbc', 'aes256-ctr']);
  assert.deepEqual(
    rows.slice(0, 2).map((r) => [r.name, r.enabled, r.unsupported ?? false]),
    [
      ['twofish-cbc', true, true],
      ['aes256-ctr', true, false],
    ],
  );
  let only: string[] | null = ['aes256-ctr'];
  only = toggle(ciphers, only, 'aes256-ctr', false);
  assert.deepEqual(only, []);
  assert.deepEqual(emptyFamilies({ cipher: only, kex: null, hmac: ['hmac-sha1'], serverHostKey: null }), ['cipher']);
});

test('a saved RFC 5647 spelling (aes128-gcm) is not "unsupported": it says which name it stands for', () => {
  const withAliases: AlgorithmFamilyCatalog = { ...ciphers, aliases: { 'aes128-gcm': 'aes128-gcm@openssh.com' } };
  const rows = rowsOf(withAliases, ['aes128-gcm', 'aes256-ctr']);
  assert.deepEqual(rows[0], { name: 'aes128-gcm', enabled: true, aliasOf: 'aes128-gcm@openssh.com' });
  assert.equal(
    rows.filter((r) => r.name.startsWith('aes128-gcm')).length,
    2,
    'the saved spelling and the supported name',
  );
  assert.equal(
    rowsOf(withAliases, null).some((r) => r.name === 'aes128-gcm'),
    false,
    'an alias is never a row of its own',
  );
});
