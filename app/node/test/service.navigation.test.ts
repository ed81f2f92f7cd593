/**
 * The panes' navigation channels (service/navigation.ts) against a private OpenSSH sshd: directory bookmarks kept with
 * their site across a restart and through an export and import; the remote find walking many folders with its
 * matches streamed, a symlink loop visited once and reported, its bounds, and a cancel that ends it at once.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SSHD_PATH } from '../../../e2e/fixtures/sshd';
import type { FindHit, FindHits } from '../../common/ipc/find';
import { connectAccepting, reopenSshd, setupSshd, type SshdCtx } from './sshdService';

const skip = fs.existsSync(SSHD_PATH) ? false : `${SSHD_PATH} not installed`;

/** `root` with `wide` folders each holding `deep` sub-folders; each folder has `app.log` and `notes.txt`. */
function tree(root: string, wide: number, deep: number): number {
  let folders = 1;
  for (let i = 0; i < wide; i++) {
    const d = path.join(root, `d${String(i).padStart(3, '0')}`);
    fs.mkdirSync(d, { recursive: true });
    folders++;
    for (const f of ['app.log', 'notes.txt']) fs.writeFileSync(path.join(d, f), f);
    for (let j = 0; j < deep; j++) {
      fs.mkdirSync(path.join(d, `s${j}`));
      fs.writeFileSync(path.join(d, `s${j}`, 'APP.LOG'), 'x'.repeat(j));
      folders++;
    }
  }
  return folders;
}

/** The `find.hits` events of one find, gathered until the test ends. */
function collect(c: SshdCtx, findId: string): { hits: FindHit[]; batches: FindHits[] } {
  const out = { hits: [] as FindHit[], batches: [] as FindHits[] };
  c.service.subscribe((name, payload) => {
    if (name !== 'find.hits' || (payload as FindHits).findId !== findId) return;
    out.batches.push(payload as FindHits);
    out.hits.push(...(payload as FindHits).hits);
  });
  return out;
}

test(
  'bookmarks: kept with the site across a restart, removed, and carried by an export into an import',
  { skip },
  async (t) => {
    let c = await setupSshd(t);
    const add = (side: 'remote' | 'local', p: string) =>
      c.service.invoke('bookmarks.add', { siteId: c.siteId, side, path: p });
    assert.ok((await add('remote', '/var/www')).ok);
    assert.ok((await add('local', '/home/me/www')).ok);
    const added = await add('remote', '/etc/\u202Eevil');
    assert.ok(added.ok && added.value.length === 3, JSON.stringify(added));
    c = await reopenSshd(c);
    const listed = await c.service.invoke('bookmarks.list', { siteId: c.siteId });
    assert.ok(listed.ok);
    assert.deepEqual(listed.value, [
      { side: 'remote', path: '/var/www' },
      { side: 'remote', path: '/etc/\u202Eevil' },
      { side: 'local', path: '/home/me/www' },
    ]);
    const removed = await c.service.invoke('bookmarks.remove', { siteId: c.siteId, side: 'remote', path: '/var/www' });
    assert.ok(removed.ok && removed.value.length === 2);

    const file = path.join(c.home, 'export.json');
    assert.ok((await c.service.invoke('sites.export', { path: file, withPasswords: false })).ok);
    const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as { sites: Array<{ bookmarks?: unknown }> };
    assert.deepEqual(doc.sites[0].bookmarks, removed.value);
    const preview = await c.service.invoke('sites.importPreview', { format: 'sluice', path: file });
    assert.ok(preview.ok);
    assert.deepEqual(preview.value.candidates[0].notes, [], 'bookmarks are known, not "not imported"');
    const imported = await c.service.invoke('sites.import', {
      format: 'sluice',
      path: file,
      digest: preview.value.digest,
      pick: [0],
    });
    assert.ok(imported.ok);
    const copy = await c.service.invoke('bookmarks.list', { siteId: imported.value.imported[0].id });
    assert.ok(copy.ok);
    assert.deepEqual(copy.value, removed.value);
    const quick = await c.service.invoke('bookmarks.add', { siteId: 'no-such-site', side: 'remote', path: '/x' });
    assert.ok(!quick.ok && /save this site first/.test(quick.error.message));
  },
);

test('find: many folders walked, matches streamed; a symlink loop visited once and reported', { skip }, async (t) => {
  const c = await setupSshd(t);
  await connectAccepting(c);
  const root = path.join(c.server.root, 'find');
  const folders = tree(root, 20, 10);
  fs.symlinkSync('..', path.join(root, 'd000', 'up'));
  fs.symlinkSync('../d001', path.join(root, 'd002', 'side'));
  const seen = collect(c, 'f1');
  const r = await c.service.invoke('remote.find', {
    siteId: c.siteId,
    findId: 'f1',
    root,
    pattern: '*.log',
    match: 'glob',
  });
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(r.value.ended, 'done');
  assert.equal(r.value.folders, folders);
  // 20 app.log and 200 APP.LOG (case ignored), each once although d000/up leads back to the root.
  assert.equal(r.value.matched, 220);
  assert.equal(seen.hits.length, 220);
  assert.equal(new Set(seen.hits.map((h) => `${h.dir}/${h.name}`)).size, 220);
  const s3 = seen.hits.find((h) => h.dir === path.join(root, 'd004', 's3'));
  assert.deepEqual(s3 && { name: s3.name, type: s3.type, size: s3.size }, { name: 'APP.LOG', type: 'file', size: 3 });
  const notes = seen.batches.flatMap((b) => b.notes);
  assert.deepEqual(
    notes.map((n) => [n.kind, n.path, n.detail]).sort(),
    [
      ['loop', path.join(root, 'd000', 'up'), root],
      ['seen', path.join(root, 'd002', 'side'), path.join(root, 'd001')],
    ].sort(),
  );
  const cased = await c.service.invoke('remote.find', {
    siteId: c.siteId,
    findId: 'f2',
    root,
    pattern: 'app',
    match: 'substring',
    caseSensitive: true,
  });
  assert.ok(cased.ok && cased.value.matched === 20, JSON.stringify(cased));
});

test('find: bounded in matches sent and folders listed; a cancel ends it at once', { skip }, async (t) => {
  const c = await setupSshd(t);
  await connectAccepting(c);
  const root = path.join(c.server.root, 'big');
  const folders = tree(root, 100, 30);
  const capped = collect(c, 'cap');
  const r = await c.service.invoke('remote.find', {
    siteId: c.siteId,
    findId: 'cap',
    root,
    pattern: 'log',
    match: 'substring',
    maxResults: 25,
    maxFolders: 40,
  });
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(r.value.ended, 'folderLimit');
  assert.equal(r.value.folders, 40);
  assert.equal(r.value.shown, 25);
  assert.ok(r.value.matched > 25, `${r.value.matched} matched`);
  assert.equal(capped.hits.length, 25);

  const first = c.next('find.hits', (b) => b.findId === 'stop');
  const running = c.service.invoke('remote.find', {
    siteId: c.siteId,
    findId: 'stop',
    root,
    pattern: 'x',
    match: 'substring',
  });
  await first;
  const cancel = await c.service.invoke('remote.findCancel', { findId: 'stop' });
  assert.ok(cancel.ok && cancel.value === true);
  const report = await running;
  assert.ok(report.ok, JSON.stringify(report));
  assert.equal(report.value.ended, 'cancelled');
  assert.ok(report.value.folders < folders, `${report.value.folders} of ${folders} folders listed before the cancel`);
  const again = await c.service.invoke('remote.findCancel', { findId: 'stop' });
  assert.ok(again.ok && again.value === false, 'the find is over');
  const listed = await c.service.invoke('remote.list', { siteId: c.siteId, path: root });
  assert.ok(listed.ok && listed.value.entries.length === 100, 'the session goes on after the cancel');
});
