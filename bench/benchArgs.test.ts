import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseArgs } from './bench';

test('--with names the longer comparisons run after the table; an unknown one is refused with the usage', () => {
  assert.deepEqual(parseArgs(['--with', 'file-ops,sync']).with, ['file-ops', 'sync']);
  assert.deepEqual(parseArgs(['--with', 'adaptive']).with, ['adaptive']);
  assert.equal(parseArgs([]).with, undefined);
  assert.throws(() => parseArgs(['--with', 'rsync']), /--with takes file-ops, sync, adaptive/);
});
