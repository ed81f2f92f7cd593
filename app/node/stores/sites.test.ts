import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { MemorySecretStore, SitesStore, resolveHome } from './sites';
import { SluiceError } from '../errors';
import type { SiteInput } from '../../common/model/site';

function tempHome(t: { after: (fn: () => void) => void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-sites-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const input: SiteInput = { name: 'Prod', folder: ' Work//Prod/ ', host: 'h.example', port: 2222, user: 'deploy', authMethod: 'key', keyPath: '/k', ciphers: ['aes128-gcm@openssh.com'], connections: 4 };

test('create, read back across reopen, WAL and migrations applied', (t) => {
  const home = tempHome(t);
  let now = 1000;
  const store = new SitesStore(home, () => now);
  const site = store.save(input);
  assert.equal(site.folder, 'Work/Prod');
  assert.equal(site.createdAt, 1000);
  assert.deepEqual(site.ciphers, ['aes128-gcm@openssh.com']);
  assert.equal(site.channels, undefined);
  now = 2000;
  const updated = store.save({ ...input, id: site.id, name: 'Prod 2', keyPath: undefined });
  assert.equal(updated.updatedAt, 2000);
  assert.equal(updated.keyPath, undefined);
  store.close();

  const again = new SitesStore(home);
  t.after(() => again.close());
  assert.equal(again.schemaVersion, 3);
  assert.equal(again.get(site.id)?.name, 'Prod 2');
  const raw = new Database(path.join(home, 'sluice.db'), { readonly: true });
  assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal');
  raw.close();
});

test('update of an unknown id is NOT_FOUND', (t) => {
  const store = new SitesStore(tempHome(t));
  t.after(() => store.close());
  assert.throws(() => store.save({ ...input, id: 'nope' }), (e: unknown) => e instanceof SluiceError && e.code === 'NOT_FOUND');
});

test('duplicate picks a free name; delete removes', (t) => {
  const store = new SitesStore(tempHome(t));
  t.after(() => store.close());
  const a = store.save(input);
  const b = store.duplicate(a.id);
  const c = store.duplicate(a.id);
  assert.notEqual(b.id, a.id);
  assert.equal(b.name, 'Prod (copy)');
  assert.equal(c.name, 'Prod (copy 2)');
  assert.equal(b.host, a.host);
  assert.equal(store.list().sites.length, 3);
  assert.equal(store.delete(b.id), true);
  assert.equal(store.delete(b.id), false);
  assert.equal(store.list().sites.length, 2);
});

test('folders: implied ancestors, explicit empty folders, delete only when empty', (t) => {
  const store = new SitesStore(tempHome(t));
  t.after(() => store.close());
  const s = store.save(input);
  store.createFolder('Home/Lab');
  assert.deepEqual(store.list().folders, ['Home', 'Home/Lab', 'Work', 'Work/Prod']);
  assert.throws(() => store.deleteFolder('Work'), (e: unknown) => e instanceof SluiceError && e.code === 'FOLDER_NOT_EMPTY');
  assert.throws(() => store.deleteFolder('Home'), (e: unknown) => e instanceof SluiceError && e.code === 'FOLDER_NOT_EMPTY');
  store.deleteFolder('Home/Lab');
  assert.deepEqual(store.list().folders, ['Work', 'Work/Prod']);
  store.delete(s.id);
  assert.deepEqual(store.list().folders, []);
  assert.throws(() => store.deleteFolder('Nope'), (e: unknown) => e instanceof SluiceError && e.code === 'NOT_FOUND');
});

test('no password column exists and settings round-trip', (t) => {
  const home = tempHome(t);
  const store = new SitesStore(home);
  t.after(() => store.close());
  store.setSetting('theme', 'dark');
  assert.equal(store.getSetting('theme'), 'dark');
  const raw = new Database(path.join(home, 'sluice.db'), { readonly: true });
  const cols = (raw.prepare('PRAGMA table_info(sites)').all() as Array<{ name: string }>).map((c) => c.name);
  raw.close();
  assert.ok(!cols.some((c) => /pass|secret/i.test(c)), `no secret column in ${cols.join(',')}`);
});

test('memory secret store and home resolution', async () => {
  const s = new MemorySecretStore();
  await s.set('a', 'pw');
  assert.equal(await s.get('a'), 'pw');
  await s.delete('a');
  assert.equal(await s.get('a'), undefined);
  assert.equal(resolveHome({ SLUICE_HOME: '/tmp/x' }, 'linux'), '/tmp/x');
  assert.equal(resolveHome({ XDG_CONFIG_HOME: '/cfg' }, 'linux'), '/cfg/sluice');
  assert.equal(resolveHome({ APPDATA: 'C:\\A' }, 'win32'), path.join('C:\\A', 'Sluice'));
  assert.match(resolveHome({}, 'darwin'), /Library\/Application Support\/Sluice$/);
});

test('jumpHost is kept, trimmed and cleared; migration 3 adds its column to a version 2 database', (t) => {
  const home = tempHome(t);
  const store = new SitesStore(home);
  const site = store.save({ ...input, jumpHost: ' alice@bastion:2222,inner ' });
  assert.equal(site.jumpHost, 'alice@bastion:2222,inner');
  assert.equal(store.save({ ...input, id: site.id }).jumpHost, undefined);
  store.close();
  // A database written before migration 3: the column is gone and user_version is 2.
  const raw = new Database(path.join(home, 'sluice.db'));
  raw.exec('ALTER TABLE sites DROP COLUMN jump_host');
  raw.pragma('user_version = 2');
  raw.close();
  const again = new SitesStore(home);
  t.after(() => again.close());
  assert.equal(again.schemaVersion, 3);
  assert.equal(again.get(site.id)?.name, input.name.trim());
  assert.equal(again.save({ ...input, id: site.id, jumpHost: 'none' }).jumpHost, 'none');
});
