import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SyncPreviewItem } from '../../app/common/ipc/contract';
import { sectionTotals, setSection, setTicked } from './syncSelection';

const item = (action: SyncPreviewItem['action'], path: string, kind: 'file' | 'dir' = 'file', bytes = 10) => ({
  action,
  path,
  kind,
  bytes: kind === 'dir' ? 0 : bytes,
  reason: '',
});
const ITEMS: SyncPreviewItem[] = [
  item('create', 'img', 'dir'),
  item('create', 'img/icons', 'dir'),
  item('create', 'img/icons/a.png'),
  item('create', 'img/logo.png', 'file', 100),
  item('create', 'img.txt'),
  item('update', 'index.html', 'file', 5),
  item('delete', 'old', 'dir'),
  item('delete', 'old/a.txt'),
  item('delete', 'old/sub', 'dir'),
  item('delete', 'old/sub/b.txt'),
  item('delete', 'old.html'),
];
const sorted = (s: Set<string>) => [...s].sort();

test('unticking a folder to create unticks what it holds; ticking an item inside ticks its folders back', () => {
  const off = setTicked(ITEMS, new Set(), ['img'], false);
  assert.deepEqual(sorted(off), ['img', 'img/icons', 'img/icons/a.png', 'img/logo.png'], 'img.txt is not inside');
  const back = setTicked(ITEMS, off, ['img/icons/a.png'], true);
  assert.deepEqual(sorted(back), ['img/logo.png'], 'img and img/icons ticked again, logo.png stays unticked');
});

test("unticking something inside a folder to delete unticks the folder's deletion; ticking it ticks the inside", () => {
  const keep = setTicked(ITEMS, new Set(), ['old/sub/b.txt'], false);
  assert.deepEqual(sorted(keep), ['old', 'old/sub', 'old/sub/b.txt']);
  const all = setTicked(ITEMS, keep, ['old'], true);
  assert.deepEqual(sorted(all), [], 'old/sub and old/sub/b.txt come back with old');
});

test('sections: untick and tick all; totals count the ticked files, folders and bytes', () => {
  const noDeletes = setSection(ITEMS, new Set(), 'delete', false);
  assert.deepEqual(sorted(noDeletes), ['old', 'old.html', 'old/a.txt', 'old/sub', 'old/sub/b.txt']);
  const t = sectionTotals(ITEMS, setTicked(ITEMS, noDeletes, ['img/logo.png'], false));
  assert.deepEqual(t.create, { files: 2, folders: 2, bytes: 20, items: 5, ticked: 4 });
  assert.deepEqual(t.update, { files: 1, folders: 0, bytes: 5, items: 1, ticked: 1 });
  assert.deepEqual(t.delete, { files: 0, folders: 0, bytes: 0, items: 5, ticked: 0 });
  assert.deepEqual(sorted(setSection(ITEMS, noDeletes, 'delete', true)), []);
  assert.deepEqual(sorted(setTicked(ITEMS, new Set(), ['nothing'], false)), [], 'an unknown path changes nothing');
});
