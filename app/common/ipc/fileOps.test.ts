/** The duplicate's names and the names the panes refuse (app/common/ipc/fileOps.ts). */
import test from 'node:test';
import assert from 'node:assert/strict';
import { copyName, fileOpSchemas, freeCopyName, nameProblem } from './fileOps';

test('a copy is "name (copy).ext", then "(copy 2)"; folders and dot-files keep their whole name', () => {
  assert.equal(copyName('notes.txt', 1), 'notes (copy).txt');
  assert.equal(copyName('notes.txt', 2), 'notes (copy 2).txt');
  assert.equal(copyName('archive.tar.gz', 1), 'archive.tar (copy).gz');
  assert.equal(copyName('.bashrc', 1), '.bashrc (copy)');
  assert.equal(copyName('Makefile', 3), 'Makefile (copy 3)');
  assert.equal(copyName('site.v2', 1, true), 'site.v2 (copy)');
  const taken = new Set(['a (copy).txt', 'a (copy 2).txt']);
  assert.equal(
    freeCopyName('a.txt', (n) => taken.has(n)),
    'a (copy 3).txt',
  );
});

test('names with / or NUL are refused everywhere, \\ only where it separates (Windows)', () => {
  assert.equal(nameProblem('ok.txt'), null);
  assert.equal(nameProblem('back\\slash.txt'), null, 'a POSIX name may hold a backslash');
  assert.equal(nameProblem('back\\slash.txt', '\\'), 'Name cannot contain \\');
  assert.equal(nameProblem('a/b'), 'Name cannot contain /');
  assert.equal(nameProblem('a\0b'), 'Name cannot contain a NUL character');
  assert.equal(nameProblem(' '), 'Name is required');
  assert.equal(nameProblem('..'), 'Name cannot be . or ..');
  assert.ok(nameProblem('x'.repeat(256)));
});

test('the channels refuse what they cannot take', () => {
  assert.ok(fileOpSchemas['remote.symlink'].safeParse({ siteId: 's', target: 'a', path: '/x/l' }).success);
  assert.ok(!fileOpSchemas['drag.out'].safeParse({ siteId: 's', paths: [] }).success, 'nothing to drag');
  assert.ok(!fileOpSchemas['local.open'].safeParse({ path: '' }).success);
});
