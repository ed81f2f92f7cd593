import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { installElectronMock } from '../test/mockElectron';

const electron = installElectronMock();
const { SafeStorageSecretStore } = require('./secretStore') as typeof import('./secretStore');

function setup(
  t: { after: (fn: () => void) => void },
  allow = false,
): { store: InstanceType<typeof SafeStorageSecretStore>; file: string; warnings: string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-secrets-'));
  t.after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    electron.safeStorage.backend = 'gnome_libsecret';
    electron.safeStorage.available = true;
  });
  const file = path.join(dir, 'secrets.json');
  const warnings: string[] = [];
  return {
    store: new SafeStorageSecretStore({ file, allowInsecure: () => allow, warn: (m) => warnings.push(m) }),
    file,
    warnings,
  };
}

test(
  'secrets are stored encrypted, 0600, and round-trip',
  { skip: process.platform !== 'linux' ? 'backend selection is Linux-only' : false },
  async (t) => {
    const { store, file } = setup(t);
    assert.deepEqual(store.status(), { backend: 'gnome_libsecret', secure: true });
    await store.set('site-1', 'hunter2');
    assert.equal(await store.get('site-1'), 'hunter2');
    assert.ok(!fs.readFileSync(file, 'utf8').includes('hunter2'));
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    await store.delete('site-1');
    assert.equal(await store.get('site-1'), undefined);
  },
);

test(
  'basic_text: warn and refuse unless the user agreed',
  { skip: process.platform !== 'linux' ? 'basic_text is Linux-only' : false },
  async (t) => {
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
  },
);

test('no encryption available: refuse whatever the user said', async (t) => {
  electron.safeStorage.available = false;
  const { store } = setup(t, true);
  assert.equal(store.status().secure, false);
  await assert.rejects(store.set('s', 'pw'), (e: { code?: string }) => e.code === 'INSECURE_SECRET_STORAGE');
});

test('a damaged secrets.json is reported, never read as empty: saving refuses to overwrite it, reading asks again', async (t) => {
  const { store, file, warnings } = setup(t);
  await store.set('site-1', 'hunter2');
  await store.set('site-2', 'swordfish');
  const damaged = fs.readFileSync(file, 'utf8').slice(0, -7); // cut off mid-entry, as a crash mid-write would
  fs.writeFileSync(file, damaged);
  await assert.rejects(
    store.set('site-3', 'pw'),
    (e: { code?: string; message: string }) =>
      e.code === 'LOCAL_IO' && e.message.includes(file) && /damaged: not JSON/.test(e.message),
  );
  await assert.rejects(store.delete('site-1'), /damaged/);
  assert.equal(fs.readFileSync(file, 'utf8'), damaged, 'the file is left as it was');
  assert.equal(await store.get('site-1'), undefined);
  assert.match(warnings.at(-1) ?? '', /saved passwords file .* is damaged/);
  fs.writeFileSync(file, JSON.stringify({ 'site-1': 42 }));
  await assert.rejects(store.set('site-3', 'pw'), /the entry of site-1 is not a string/);
});

test('secrets.json is written through a temporary file that is fsynced before the rename, then the folder is fsynced', async (t) => {
  const { store, file } = setup(t);
  const events: string[] = [];
  const fsm = require('node:fs') as typeof fs & Record<string, unknown>;
  const fds = new Map<number, string>();
  const orig = { openSync: fsm.openSync, fsyncSync: fsm.fsyncSync, renameSync: fsm.renameSync };
  fsm.openSync = ((p: fs.PathLike, ...rest: unknown[]) => {
    const fd = (orig.openSync as (...a: unknown[]) => number)(p, ...rest);
    fds.set(fd, String(p));
    return fd;
  }) as typeof fs.openSync;
  fsm.fsyncSync = ((fd: number) => {
    events.push(`fsync ${path.basename(fds.get(fd) ?? '?')}`);
    orig.fsyncSync(fd);
  }) as typeof fs.fsyncSync;
  fsm.renameSync = ((a: fs.PathLike, b: fs.PathLike) => {
    events.push(`rename ${path.basename(String(b))}`);
    orig.renameSync(a, b);
  }) as typeof fs.renameSync;
  try {
    await store.set('site-1', 'hunter2');
  } finally {
    Object.assign(fsm, orig);
  }
  // Windows cannot fsync a folder
  const folderSync = process.platform === 'win32' ? [] : [`fsync ${path.basename(path.dirname(file))}`];
  assert.deepEqual(events, [`fsync secrets.json.${process.pid}.tmp`, 'rename secrets.json', ...folderSync]);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
});

test('a secrets.json another program holds (EBUSY on the rename, injected) is written once it lets go', async (t) => {
  const { store } = setup(t);
  const realFs = require('node:fs') as typeof fs;
  const realRename = realFs.renameSync;
  let calls = 0;
  realFs.renameSync = (a, b) => {
    calls++;
    if (calls <= 2) throw Object.assign(new Error('EBUSY: (injected), rename'), { code: 'EBUSY' });
    realRename(a, b);
  };
  t.after(() => {
    realFs.renameSync = realRename;
  });
  await store.set('site-1', 'hunter2');
  assert.equal(calls, 3);
  assert.equal(await store.get('site-1'), 'hunter2');
});
