/** The throughput graph's rate axis reads in round values (#29.8): 100 MiB/s steps, not 95.4. */
import test from 'node:test';
import assert from 'node:assert/strict';
import { rateTicks, rateTop } from './rateTicks';
import { formatRate } from '../format/format';

const KiB = 1024;
const MiB = 1024 * KiB;
const axis = (max: number) => rateTicks(rateTop(max)).map(formatRate);

test('rate ticks are round in their unit', () => {
  assert.deepEqual(axis(260 * MiB), ['0 B/s', '100 MiB/s', '200 MiB/s', '300 MiB/s']);
  assert.deepEqual(axis(900 * KiB), ['0 B/s', '250 KiB/s', '500 KiB/s', '750 KiB/s', '1000 KiB/s']);
  assert.deepEqual(axis(1024), ['0 B/s', '500 B/s', '1000 B/s', '1.5 KiB/s']);
  assert.deepEqual(axis(3.2 * MiB), ['0 B/s', '1.0 MiB/s', '2.0 MiB/s', '3.0 MiB/s', '4.0 MiB/s']);
  for (const max of [1, 700, 5000, 1.7 * MiB, 48 * MiB, 2.5 * 1024 * MiB]) {
    const ticks = rateTicks(rateTop(max));
    assert.ok(ticks[ticks.length - 1] >= max, `${max}: the top tick covers the data`);
    assert.ok(ticks.length >= 2 && ticks.length <= 11, `${max}: ${ticks.length} ticks`);
  }
});
