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

const input: SiteInput = {
  name: 'Prod',
  folder: ' Work//Prod/ ',
  host: 'h.example',
  port: 2222,
  user: 'deploy',
  authMethod: 'key',
  keyPath: '/k',
  ciphers: ['aes128-gcm@openssh.com'],
  connections: 4,
};

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
  assert.equal(again.schemaVersion, 5);
  assert.equal(again.get(site.id)?.name, 'Prod 2');
  const raw = new Database(path.join(home, 'sluice.db'), { readonly: true });
  assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal');
  raw.close();
});

test('update of an unknown id is NOT_FOUND', (t) => {
  const store = new SitesStore(tempHome(t));
  t.after(() => store.close());
  assert.throws(
    () => store.save({ ...input, id: 'nope' }),
    (e: unknown) => e instanceof SluiceError && e.code === 'NOT_FOUND',
  );
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
  assert.throws(
    () => store.deleteFolder('Work'),
    (e: unknown) => e instanceof SluiceError && e.code === 'FOLDER_NOT_EMPTY',
  );
  assert.throws(
    () => store.deleteFolder('Home'),
    (e: unknown) => e instanceof SluiceError && e.code === 'FOLDER_NOT_EMPTY',
  );
  store.deleteFolder('Home/Lab');
  assert.deepEqual(store.list().folders, ['Work', 'Work/Prod']);
  store.delete(s.id);
  assert.deepEqual(store.list().folders, []);
  assert.throws(
    () => store.deleteFolder('Nope'),
    (e: unknown) => e instanceof SluiceError && e.code === 'NOT_FOUND',
  );
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
  assert.equal(resolveHome({ APPDATA: 'C:\\A' }, 'win32'), path.win32.join('C:\\A', 'Sluice'));
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
  for (const column of ['kex', 'macs', 'host_key_algorithms']) raw.exec(`ALTER TABLE sites DROP COLUMN ${column}`);
  raw.exec('DROP TABLE site_bookmarks');
  raw.pragma('user_version = 2');
  raw.close();
  const again = new SitesStore(home);
  t.after(() => again.close());
  assert.equal(again.schemaVersion, 5);
  assert.equal(again.get(site.id)?.name, input.name.trim());
  assert.equal(again.save({ ...input, id: site.id, jumpHost: 'none' }).jumpHost, 'none');
});

/** A sluice.db as schema 3 (before the site form's algorithm lists) wrote it, with the given cipher columns. */
function schema3Db(home: string, rows: Array<[string, string | null]>): void {
  const db = new Database(path.join(home, 'sluice.db'));
  db.exec(`CREATE TABLE folders (path TEXT PRIMARY KEY);
    CREATE TABLE sites (id TEXT PRIMARY KEY, name TEXT NOT NULL, folder TEXT NOT NULL DEFAULT '', host TEXT NOT NULL,
      port INTEGER NOT NULL DEFAULT 22, user TEXT NOT NULL,
      auth_method TEXT NOT NULL CHECK (auth_method IN ('agent', 'key', 'password')),
      key_path TEXT, local_dir TEXT, remote_dir TEXT, connections INTEGER, channels INTEGER, ciphers TEXT,
      created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
    CREATE INDEX sites_folder ON sites(folder);
    CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    ALTER TABLE sites ADD COLUMN speed_limit INTEGER;
    ALTER TABLE sites ADD COLUMN jump_host TEXT;`);
  const insert = db.prepare(`INSERT INTO sites (id, name, host, user, auth_method, ciphers, created_at, updated_at)
    VALUES (?, ?, 'h', 'u', 'agent', ?, 1, 1)`);
  for (const [id, ciphers] of rows) insert.run(id, id, ciphers);
  db.pragma('user_version = 3');
  db.close();
}

test('schema 4 migrates schema 3 rows: algorithm lists added empty, old free-text cipher lists tidied', (t) => {
  const home = tempHome(t);
  schema3Db(home, [
    ['plain', '["aes256-ctr","aes128-ctr"]'],
    ['empty', '[]'],
    ['joined', '["aes128-ctr, aes256-ctr", " aes128-ctr "]'],
    ['broken', 'aes128-ctr'],
    ['none', null],
  ]);
  const store = new SitesStore(home);
  t.after(() => store.close());
  assert.equal(store.schemaVersion, 5);
  assert.deepEqual(store.get('plain')?.ciphers, ['aes256-ctr', 'aes128-ctr']);
  assert.equal(store.get('empty')?.ciphers, undefined, 'an empty list means the defaults');
  assert.deepEqual(store.get('joined')?.ciphers, ['aes128-ctr', 'aes256-ctr'], 'split, trimmed, no duplicates');
  assert.equal(store.get('broken')?.ciphers, undefined, 'not JSON: the defaults');
  assert.equal(store.get('none')?.ciphers, undefined);
  for (const id of ['plain', 'none']) {
    const site = store.get(id)!;
    assert.equal(site.kex, undefined);
    assert.equal(site.macs, undefined);
    assert.equal(site.hostKeyAlgorithms, undefined);
  }
  const raw = new Database(path.join(home, 'sluice.db'), { readonly: true });
  t.after(() => raw.close());
  assert.deepEqual(
    raw.prepare("SELECT id, ciphers FROM sites WHERE id IN ('empty', 'broken') ORDER BY id").all(),
    [
      { id: 'broken', ciphers: null },
      { id: 'empty', ciphers: null },
    ],
    'the rows themselves were rewritten',
  );
});

test('algorithm lists per family are stored in order; an empty one means the defaults', (t) => {
  const store = new SitesStore(tempHome(t));
  t.after(() => store.close());
  const site = store.save({
    ...input,
    kex: ['curve25519-sha256', 'ecdh-sha2-nistp256'],
    macs: [],
    hostKeyAlgorithms: ['ssh-ed25519'],
  });
  assert.deepEqual(store.get(site.id)?.kex, ['curve25519-sha256', 'ecdh-sha2-nistp256']);
  assert.equal(store.get(site.id)?.macs, undefined);
  assert.deepEqual(store.get(site.id)?.hostKeyAlgorithms, ['ssh-ed25519']);
  const cleared = store.save({ ...input, id: site.id, kex: undefined });
  assert.equal(cleared.kex, undefined);
  assert.equal(cleared.hostKeyAlgorithms, undefined, 'a field left out is cleared');
});

test("a corrupt sluice.db fails LOCAL_IO naming the file and SQLite's reason, and is left as it was", (t) => {
  const home = tempHome(t);
  const file = path.join(home, 'sluice.db');
  const garbage = Buffer.from('this is not an SQLite database, '.repeat(200));
  fs.writeFileSync(file, garbage);
  assert.throws(
    () => new SitesStore(home),
    (e: unknown) =>
      e instanceof SluiceError && e.code === 'LOCAL_IO' && e.message.includes(file) && /not a database/.test(e.message),
  );
  assert.deepEqual(fs.readFileSync(file), garbage);
});
