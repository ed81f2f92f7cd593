import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HOSTKEYS_DB, HostKeySeen } from './hostKeySeen';
import { scratchDir } from '../../../e2e/fixtures/tmp';

function tmpHome(): string {
  return scratchDir('sluice-seen-');
}

const key = { name: '[h]:2222', keyType: 'ssh-ed25519', fingerprint: 'SHA256:abc' };

test('a saved key has first and last seen; verifying moves last seen only', () => {
  const home = tmpHome();
  let now = 1000;
  const seen = HostKeySeen.open(home, () => now);
  seen.saved(key);
  assert.deepEqual(seen.get(key), { firstSeen: 1000, lastSeen: 1000 });
  now = 5000;
  seen.verified(key);
  assert.deepEqual(seen.get(key), { firstSeen: 1000, lastSeen: 5000 });
  seen.close();
  // Kept across opens, in its own file.
  const again = HostKeySeen.open(home, () => now);
  assert.deepEqual(again.get(key), { firstSeen: 1000, lastSeen: 5000 });
  again.close();
  assert.ok(fs.existsSync(path.join(home, HOSTKEYS_DB)));
});

test('a key first met when verified (written by ssh) has first seen unknown; rows are per host name', () => {
  let now = 7;
  const seen = HostKeySeen.open(tmpHome(), () => now);
  assert.deepEqual(seen.get(key), { firstSeen: null, lastSeen: null });
  seen.verified(key);
  assert.deepEqual(seen.get(key), { firstSeen: null, lastSeen: 7 });
  now = 9;
  seen.saved({ ...key, name: 'other' });
  assert.deepEqual(
    seen
      .byFingerprint(key.keyType, key.fingerprint)
      .map((r) => r.name)
      .sort(),
    ['[h]:2222', 'other'],
  );
  assert.deepEqual(seen.get(key), { firstSeen: null, lastSeen: 7 }, 'another host name is another row');
  seen.forget(key);
  assert.deepEqual(seen.get(key), { firstSeen: null, lastSeen: null });
  seen.close();
});
