import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { installElectronMock } from '../test/mockElectron';

const electron = installElectronMock();
const { SafeStorageSecretStore } = require('./secretStore') as typeof import('./secretStore');

function setup(t: { after: (fn: () => void) => void }, allow = false): { store: InstanceType<typeof SafeStorageSecretStore>; file: string; warnings: string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-secrets-'));
  t.after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    electron.safeStorage.backend = 'gnome_libsecret';
    electron.safeStorage.available = true;
  });
  const file = path.join(dir, 'secrets.json');
  const warnings: string[] = [];
  return { store: new SafeStorageSecretStore({ file, allowInsecure: () => allow, warn: (m) => warnings.push(m) }), file, warnings };
}

test('secrets are stored encrypted, 0600, and round-trip', { skip: process.platform !== 'linux' ? 'backend selection is Linux-only' : false }, async (t) => {
  const { store, file } = setup(t);
  assert.deepEqual(store.status(), { backend: 'gnome_libsecret', secure: true });
  await store.set('site-1', 'hunter2');
  assert.equal(await store.get('site-1'), 'hunter2');
  assert.ok(!fs.readFileSync(file, 'utf8').includes('hunter2'));
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  await store.delete('site-1');
  assert.equal(await store.get('site-1'), undefined);
});

test('basic_text: warn and refuse unless the user agreed', { skip: process.platform !== 'linux' ? 'basic_text is Linux-only' : false }, async (t) => {
  electron.safeStorage.backend = 'basic_text';
  const refused = setup(t, false);
  assert.deepEqual(refused.store.status(), { backend: 'basic_text', secure: false });
  await assert.rejects(refused.store.set('s', 'pw'), (e: { code?: string }) => e.code === 'INSECURE_SECRET_STORAGE');
  assert.equal(fs.existsSync(refused.file), false);
  assert.equal(refused.warnings.length, 1);

  const agreed = setup(t, true);
  electron.safeStorage.backend = 'basic_text';
  await agreed.store.set('s', 'pw');
  assert.equal(await agreed.store.get('s'), 'pw');
  assert.match(agreed.warnings[0], /basic_text/);
});

test('no encryption available: refuse whatever the user said', async (t) => {
  electron.safeStorage.available = false;
  const { store } = setup(t, true);
  assert.equal(store.status().secure, false);
  await assert.rejects(store.set('s', 'pw'), (e: { code?: string }) => e.code === 'INSECURE_SECRET_STORAGE');
});
