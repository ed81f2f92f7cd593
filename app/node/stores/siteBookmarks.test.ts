import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SitesStore } from './sites';
import { MAX_BOOKMARKS_PER_SIDE } from '../../common/ipc/bookmarks';
import type { SiteInput } from '../../common/model/site';

const input: SiteInput = { name: 'Web', folder: '', host: 'h', port: 22, user: 'u', authMethod: 'agent' };

function tempHome(t: { after: (fn: () => void) => void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bookmarks-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('bookmarks: added in order per side, kept across a reopen, removed one by one, a repeat ignored', (t) => {
  const home = tempHome(t);
  let now = 1;
  const store = new SitesStore(home, () => now++);
  const site = store.save(input);
  store.bookmarks.add(site.id, 'remote', '/var/www');
  store.bookmarks.add(site.id, 'local', '/home/me/site');
  store.bookmarks.add(site.id, 'remote', '/etc/nginx');
  store.bookmarks.add(site.id, 'remote', '/var/www');
  store.close();
  const again = new SitesStore(home);
  t.after(() => again.close());
  assert.deepEqual(again.bookmarks.list(site.id), [
    { side: 'remote', path: '/var/www' },
    { side: 'remote', path: '/etc/nginx' },
    { side: 'local', path: '/home/me/site' },
  ]);
  assert.equal(again.bookmarks.remove(site.id, 'remote', '/var/www'), true);
  assert.equal(again.bookmarks.remove(site.id, 'remote', '/var/www'), false);
  assert.deepEqual(
    again.bookmarks.list(site.id).map((b) => b.path),
    ['/etc/nginx', '/home/me/site'],
  );
});

test('bookmarks: copied with a duplicated site, gone with a deleted one; an unsaved site keeps none', (t) => {
  const store = new SitesStore(tempHome(t));
  t.after(() => store.close());
  const site = store.save(input);
  store.bookmarks.add(site.id, 'remote', '/srv');
  const copy = store.duplicate(site.id);
  assert.deepEqual(store.bookmarks.list(copy.id), [{ side: 'remote', path: '/srv' }]);
  store.delete(site.id);
  assert.deepEqual(store.bookmarks.list(site.id), []);
  assert.deepEqual(store.bookmarks.list(copy.id), [{ side: 'remote', path: '/srv' }]);
  store.addTransient({ ...input, id: 'quick-1', createdAt: 0, updatedAt: 0 });
  assert.throws(() => store.bookmarks.add('quick-1', 'remote', '/x'), /save this site first/);
});

test(`bookmarks: at most ${MAX_BOOKMARKS_PER_SIDE} per side, refused with a message`, (t) => {
  const store = new SitesStore(tempHome(t));
  t.after(() => store.close());
  const site = store.save(input);
  for (let i = 0; i < MAX_BOOKMARKS_PER_SIDE; i++) store.bookmarks.add(site.id, 'remote', `/d${i}`);
  assert.throws(() => store.bookmarks.add(site.id, 'remote', '/one-more'), /at most 200 remote bookmarks/);
  store.bookmarks.add(site.id, 'local', '/fine');
  assert.equal(store.bookmarks.list(site.id).length, MAX_BOOKMARKS_PER_SIDE + 1);
});
