/**
 * A get's destination as its journal knows it (cli/resume.ts): one spelling per place, and the other way of naming a
 * single source's target that an earlier run may have used.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { canonicalLocalPath, getDestCandidates } from './resume';

test('canonicalLocalPath: relative, absolute and through a symlinked folder are one path; a missing tail is kept', (t) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-canon-')));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'real'));
  fs.symlinkSync(path.join(dir, 'real'), path.join(dir, 'link'));
  const want = path.join(dir, 'real', 'big.bin');
  assert.equal(canonicalLocalPath(path.join(dir, 'link', 'big.bin')), want);
  assert.equal(canonicalLocalPath(path.join(dir, 'link', '.', 'sub', '..', 'big.bin')), want);
  assert.equal(canonicalLocalPath(`${path.join(dir, 'link')}/`), path.join(dir, 'real'));
  assert.equal(
    path.relative(process.cwd(), canonicalLocalPath('x')),
    path.relative(process.cwd(), path.join(fs.realpathSync(process.cwd()), 'x')),
  );
});

test("getDestCandidates: a folder is also read as the file inside it, a file of the source's name as its folder", () => {
  const dirs = new Set(['/data']);
  const isDir = (p: string) => dirs.has(p);
  assert.deepEqual(getDestCandidates(['/srv/big.bin'], '/data', isDir), ['/data', '/data/big.bin']);
  assert.deepEqual(getDestCandidates(['/srv/big.bin'], '/data/big.bin', isDir), ['/data/big.bin', '/data']);
  assert.deepEqual(getDestCandidates(['/srv/tree/'], '/data', isDir), ['/data', '/data/tree'], 'a folder source too');
  assert.deepEqual(
    getDestCandidates(['/srv/big.bin'], '/data/other.bin', isDir),
    ['/data/other.bin'],
    'another name is another target',
  );
  assert.deepEqual(getDestCandidates(['/srv/a', '/srv/b'], '/data', isDir), ['/data'], 'several sources: one reading');
  assert.deepEqual(getDestCandidates(['~'], '/data', isDir), ['/data'], 'the login folder has no name here');
});
