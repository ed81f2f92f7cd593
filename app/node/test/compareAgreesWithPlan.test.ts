/**
 * The app's Compare (app/common/folderCompare.ts) and `sluice sync`'s plan (sync/plan.ts) agree on one folder: what
 * Compare marks the same the plan leaves alone, what it marks only here the plan creates, a difference is an update,
 * a file against a folder is skipped; in both directions, with and without the modify window and --size-only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareFolders, type CompareEntry, type CompareStatus } from '../../common/folderCompare';
import type { Listing } from '../sync/listing';
import { planSync, type SyncAction } from '../sync/plan';

/** A small deterministic generator (mulberry32), so a failure names its seed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function listingOf(entries: CompareEntry[], timePrecisionMs: number): Listing {
  return {
    entries: new Map(
      entries.map((e) => [e.name, { kind: e.type as 'file' | 'dir', size: e.size, mtimeMs: e.mtimeMs }]),
    ),
    errors: [],
    skipped: [],
    complete: true,
    rootExists: true,
    timePrecisionMs,
  };
}

const EXPECTED: Record<CompareStatus, SyncAction> = {
  'only-here': 'create',
  'newer-here': 'update',
  'newer-there': 'update',
  'same-size-different-time': 'update',
  'size-differs': 'update',
  'kind-differs': 'skip',
  same: 'same',
};

test('Compare marks agree with planSync for 40 random folders (both directions, window, size-only)', () => {
  const T = 1_700_000_000_000;
  for (let seed = 1; seed <= 40; seed++) {
    const r = random(seed);
    const pick = <X>(xs: X[]): X => xs[Math.floor(r() * xs.length)];
    const local: CompareEntry[] = [];
    const remote: CompareEntry[] = [];
    for (let i = 0; i < 60; i++) {
      const name = `f${i}`;
      const kinds = [pick(['file', 'dir'] as const), pick(['file', 'file', 'dir'] as const)];
      const size = pick([0, 10, 11]);
      const t = T + pick([0, 400, 999, 1000, 1500, 2000, 60_000]);
      const has = pick(['both', 'both', 'local', 'remote']);
      const e = (type: 'file' | 'dir', s: number, m: number): CompareEntry => ({ name, type, size: s, mtimeMs: m });
      if (has !== 'remote') local.push(e(kinds[0], kinds[0] === 'dir' ? 0 : size, t));
      const remoteTime = Math.floor((T + pick([0, 400, 1000, 3000, -60_000])) / 1000) * 1000;
      if (has !== 'local') remote.push(e(kinds[1], kinds[1] === 'dir' ? 0 : pick([size, size, 12]), remoteTime));
    }
    const options = pick([{}, { modifyWindowMs: 2000 }, { sizeOnly: true }]);
    const c = compareFolders(
      { entries: local, timePrecisionMs: 1 },
      { entries: remote, timePrecisionMs: 1000 },
      options,
    );
    const up = planSync(listingOf(local, 1), listingOf(remote, 1000), options);
    const down = planSync(listingOf(remote, 1000), listingOf(local, 1), options);
    for (const it of up.items) assert.equal(it.action, EXPECTED[c.left.get(it.path)!], `seed ${seed} up ${it.path}`);
    for (const it of down.items) {
      assert.equal(it.action, EXPECTED[c.right.get(it.path)!], `seed ${seed} down ${it.path}`);
    }
    assert.equal(up.items.length, c.left.size, `seed ${seed}: every local entry planned and marked`);
    assert.equal(down.items.length, c.right.size, `seed ${seed}: every remote entry planned and marked`);
  }
});
