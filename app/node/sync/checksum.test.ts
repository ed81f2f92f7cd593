/** checksumPlan with stand-in hashers: same size decided by SHA-256, others kept, a re-read refused unless asked. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isSluiceError } from '../errors';
import { checksumPlan, type SideHasher } from './checksum';
import type { ListedEntry, Listing } from './listing';
import { planSync } from './plan';

const T = 1_700_000_000_000;
const file = (size: number, mtimeMs = T): ListedEntry => ({ kind: 'file', size, mtimeMs });
function listing(entries: Record<string, ListedEntry>): Listing {
  const l = { entries: new Map(Object.entries(entries)), errors: [], skipped: [], complete: true };
  return { ...l, rootExists: true, timePrecisionMs: 1 };
}
const hashes = (m: Record<string, string>, reread = false): SideHasher => {
  const asked: string[] = [];
  const h: SideHasher = (rel) => {
    asked.push(rel);
    return Promise.resolve({ sha256: m[rel] ?? '', reread, why: 'it offers no check-file-name extension' });
  };
  return Object.assign(h, { asked });
};

const src = listing({ twin: file(4), moved: file(4, T + 5000), bigger: file(9), only: file(1) });
const dest = listing({ twin: file(4), moved: file(4), bigger: file(8) });

test('same size: equal hashes same, others update; different sizes and missing files are not hashed', async () => {
  const s = hashes({ twin: 'a', moved: 'm' });
  const d = hashes({ twin: 'b', moved: 'm' });
  const plan = await checksumPlan(planSync(src, dest), s, d, false);
  assert.deepEqual(
    plan.items.map((i) => `${i.action} ${i.path} ${i.reason}`),
    ['update bigger size-differs', 'same moved same-checksum', 'create only missing', 'update twin checksum-differs'],
  );
  assert.equal(plan.totals.update.files, 2);
  assert.equal(plan.totals.update.bytes, 13);
  assert.deepEqual((s as unknown as { asked: string[] }).asked.sort(), ['moved', 'twin']);
});

test('a side that had to read a file back: refused naming why, unless the re-read was asked for', async () => {
  await assert.rejects(
    checksumPlan(planSync(src, dest), hashes({}, true), hashes({}), false),
    (e: unknown) => isSluiceError(e, 'USAGE') && /no check-file-name extension/.test((e as Error).message),
  );
  const plan = await checksumPlan(planSync(src, dest), hashes({ twin: 'x', moved: 'x' }, true), hashes({}), true);
  assert.equal(plan.totals.update.files, 3);
});
