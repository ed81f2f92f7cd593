/**
 * sys/sparsePart.ts (#30 item 8), platform and addon injected: only on Windows is a segmented download's .part marked
 * sparse; a missing addon, a file system that cannot, or a failing call leaves it plain, never failing the download.
 * What it does on NTFS is not measured here (no Windows runner).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nativeAddon } from './native';
import { prepareSegmentedPart } from './sparsePart';

test('sparse only on Windows, with an addon that says so; otherwise plain', () => {
  const calls: number[] = [];
  const yes = {
    setSparse: (fd: number) => {
      calls.push(fd);
      return true;
    },
  };
  assert.equal(prepareSegmentedPart(7, 'win32', yes), 'sparse');
  assert.deepEqual(calls, [7]);
  assert.equal(prepareSegmentedPart(7, 'linux', yes), 'plain');
  assert.equal(prepareSegmentedPart(7, 'darwin', yes), 'plain');
  assert.deepEqual(calls, [7], 'not asked off Windows');
  assert.equal(prepareSegmentedPart(7, 'win32', { setSparse: () => false }), 'plain', 'FAT, exFAT');
  assert.equal(prepareSegmentedPart(7, 'win32', undefined), 'plain', 'no addon');
  assert.equal(prepareSegmentedPart(7, 'win32', {}), 'plain', 'an addon built before setSparse');
  const failing = {
    setSparse: () => {
      throw Object.assign(new Error('EBADF'), { code: 'EBADF' });
    },
  };
  assert.equal(prepareSegmentedPart(7, 'win32', failing), 'plain');
});

const noAddon = nativeAddon() ? undefined : 'the native addon is not built';
test('the addon built here has setSparse, and off Windows it answers false', { skip: noAddon }, () => {
  assert.equal(typeof nativeAddon()!.setSparse, 'function');
  assert.equal(nativeAddon()!.setSparse!(0), false);
});
