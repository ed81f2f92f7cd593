/**
 * The service's site import and export (issue #15): preview with duplicates and notes (never a password), import of
 * the picked candidates with their passwords into the secret store, a changed source refused, the Sluice JSON export
 * with and without passwords, and a round trip.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemorySecretStore } from '../stores/sites';
import { harness } from '../test/serviceHarness';
import { TESTDATA } from '../test/siteFixtures';

const FILEZILLA = path.join(TESTDATA, 'sitemanager.xml');

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-svc-sites-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('import preview: FileZilla candidates with notes and duplicates of saved sites; no password crosses', async (t) => {
  const h = await harness(t, { site: { host: 'files.example.com', port: 2222, user: 'alice' } });
  const r = await h.service.invoke('sites.importPreview', { format: 'filezilla', path: FILEZILLA });
  assert.ok(r.ok, JSON.stringify(r));
  const p = r.value;
  assert.equal(p.source, FILEZILLA);
  assert.match(p.digest, /^[0-9a-f]{64}$/);
  assert.ok(!JSON.stringify(p).includes('s3cr3t'), 'the preview carries no password');
  const prod = p.candidates.find((c) => c.site.name === 'Production files')!;
  assert.equal(prod.hasPassword, true);
  assert.equal(prod.duplicateOf?.id, h.siteId);
  assert.match(prod.duplicateOf!.reason, /alice@files\.example\.com:2222 is already the saved site "Lab"/);
  assert.equal(
    p.candidates.find((c) => c.site.name === 'Production again')!.duplicateOf?.id,
    h.siteId,
    'host names compare case-insensitively',
  );
  assert.equal(p.candidates.find((c) => c.site.name === 'Backup')!.duplicateOf, undefined);
  assert.ok(p.notes.some((n) => n.includes('FTP entry')));

  const both = await h.service.invoke('sites.importPreview', { format: 'filezilla', path: FILEZILLA, text: '<x/>' });
  assert.equal(both.ok ? '' : both.error.code, 'INVALID_REQUEST');
  const missing = await h.service.invoke('sites.importPreview', {
    format: 'filezilla',
    path: path.join(TESTDATA, 'nope.xml'),
  });
  assert.equal(missing.ok ? '' : missing.error.code, 'LOCAL_IO');
});

test('import: picked candidates saved under a folder, passwords into the secret store, events without them', async (t) => {
  const secrets = new MemorySecretStore();
  const h = await harness(t, { secrets });
  const p = await h.service.invoke('sites.importPreview', { format: 'filezilla', path: FILEZILLA });
  assert.ok(p.ok);
  const pick = p.value.candidates.filter((c) => !c.duplicateOf).map((c) => c.index);
  assert.equal(pick.length, 3, 'Production again repeats Production files earlier in the file');
  const r = await h.service.invoke('sites.import', {
    format: 'filezilla',
    path: FILEZILLA,
    digest: p.value.digest,
    pick,
    intoFolder: 'Imported',
  });
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(r.value.passwordsStored, 1, r.value.notes.join('\n'));
  const list = await h.service.invoke('sites.list', undefined);
  assert.ok(list.ok);
  const prod = list.value.sites.find((s) => s.name === 'Production files')!;
  assert.equal(prod.folder, 'Imported/Work');
  assert.equal(prod.remoteDir, '/srv/www dir');
  assert.equal(prod.hasPassword, true);
  assert.equal(await secrets.get(prod.id), 's3cr3t w0rd');
  assert.equal(list.value.sites.find((s) => s.name === 'Deploy key')?.folder, 'Imported/Work/Legacy');
  assert.ok(list.value.folders.includes('Imported/Work/Legacy'));
  assert.ok(!h.events.some((e) => JSON.stringify(e.payload).includes('s3cr3t')));

  // Declining passwords: the site is saved, its password is not, and the result says so.
  const prodIndex = p.value.candidates.find((c) => c.site.name === 'Production files')!.index;
  const again = await h.service.invoke('sites.import', {
    format: 'filezilla',
    path: FILEZILLA,
    digest: p.value.digest,
    pick: [prodIndex],
    passwords: false,
  });
  assert.ok(again.ok);
  assert.equal(again.value.passwordsStored, 0);
  assert.match(again.value.notes.join('\n'), /password not imported: not asked for/);
});

test('import: a source changed since its preview, or an index it lacks, saves nothing', async (t) => {
  const h = await harness(t);
  const file = path.join(tempDir(t), 'config');
  fs.writeFileSync(file, 'Host a\n  HostName a.example\n  User u\n');
  const p = await h.service.invoke('sites.importPreview', { format: 'openssh', path: file });
  assert.ok(p.ok);
  fs.appendFileSync(file, 'Host b\n  HostName b.example\n');
  const changed = await h.service.invoke('sites.import', {
    format: 'openssh',
    path: file,
    digest: p.value.digest,
    pick: [0],
  });
  assert.equal(changed.ok ? '' : changed.error.code, 'INVALID_STATE');
  const p2 = await h.service.invoke('sites.importPreview', { format: 'openssh', path: file });
  assert.ok(p2.ok);
  const bad = await h.service.invoke('sites.import', {
    format: 'openssh',
    path: file,
    digest: p2.value.digest,
    pick: [0, 5],
  });
  assert.equal(bad.ok ? '' : bad.error.code, 'INVALID_REQUEST');
  const list = await h.service.invoke('sites.list', undefined);
  assert.deepEqual(list.ok && list.value.sites.map((s) => s.name), ['Lab']);
});

test('import: an insecure secret store keeps the sites and reports the passwords not stored', async (t) => {
  const secrets = new MemorySecretStore();
  secrets.status = () => ({ backend: 'basic_text', secure: false });
  const h = await harness(t, { secrets });
  const p = await h.service.invoke('sites.importPreview', {
    format: 'sluice',
    path: path.join(TESTDATA, 'sluice-export.json'),
  });
  assert.ok(p.ok);
  const nas = p.value.candidates.find((c) => c.site.name === 'nas')!;
  const r = await h.service.invoke('sites.import', {
    format: 'sluice',
    path: path.join(TESTDATA, 'sluice-export.json'),
    digest: p.value.digest,
    pick: [nas.index],
  });
  assert.ok(r.ok);
  assert.equal(r.value.imported.length, 1);
  assert.equal(r.value.passwordsStored, 0);
  assert.match(
    r.value.notes.join('\n'),
    /"Home\/nas": password not stored: Passwords would be stored without encryption/,
  );
  assert.equal(await secrets.get(r.value.imported[0].id), undefined);
  const list = await h.service.invoke('sites.list', undefined);
  assert.ok(list.ok && list.value.folders.includes('Work/Empty'), "the export's empty folders are created");
});

test('export: Sluice JSON (0600), passwords only when asked, an existing file kept; a round trip finds every duplicate', async (t) => {
  const secrets = new MemorySecretStore();
  const h = await harness(t, { secrets, site: { authMethod: 'password', folder: 'Lab/Hosts' } });
  await secrets.set(h.siteId, 'hunter2');
  const dir = tempDir(t);
  const file = path.join(dir, 'sites.json');
  const plain = await h.service.invoke('sites.export', { path: file, withPasswords: false });
  assert.ok(plain.ok, JSON.stringify(plain));
  assert.deepEqual(plain.value, { path: file, sites: 1, passwords: 0 });
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    format: string;
    version: number;
    folders: string[];
    sites: Array<Record<string, unknown>>;
  };
  assert.equal(doc.format, 'sluice-sites');
  assert.deepEqual(doc.folders, ['Lab', 'Lab/Hosts']);
  assert.deepEqual(doc.sites, [
    { name: 'Lab', folder: 'Lab/Hosts', host: '127.0.0.1', port: 2222, user: 'u', authMethod: 'password' },
  ]);

  const exists = await h.service.invoke('sites.export', { path: file, withPasswords: true });
  assert.equal(exists.ok ? '' : exists.error.code, 'EXISTS');
  const withPw = await h.service.invoke('sites.export', { path: file, withPasswords: true, overwrite: true });
  assert.ok(withPw.ok);
  assert.equal(withPw.value.passwords, 1);
  assert.equal(
    (JSON.parse(fs.readFileSync(file, 'utf8')) as { sites: Array<{ password?: string }> }).sites[0].password,
    'hunter2',
  );

  const p = await h.service.invoke('sites.importPreview', { format: 'sluice', path: file });
  assert.ok(p.ok);
  assert.equal(p.value.candidates[0].duplicateOf?.id, h.siteId);
  assert.ok((await h.service.invoke('sites.delete', { siteId: h.siteId })).ok);
  const r = await h.service.invoke('sites.import', { format: 'sluice', path: file, digest: p.value.digest, pick: [0] });
  assert.ok(r.ok);
  const list = await h.service.invoke('sites.list', undefined);
  assert.ok(list.ok);
  const { id, createdAt: _c, updatedAt: _u, hasPassword, ...back } = list.value.sites[0];
  assert.deepEqual(back, doc.sites[0]);
  assert.equal(hasPassword, true);
  assert.equal(await secrets.get(id), 'hunter2');
});
