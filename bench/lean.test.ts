import { test } from 'node:test';
import assert from 'node:assert/strict';
import { filesTable, startupTable } from './lean';

test('the memory table gives the growth per file between counts, against the 1 KB target', () => {
  const table = filesTable(
    [
      { label: 'get -r 1,000 empty files', runs: 2, wallSeconds: 1.5, maxRssKb: 100 * 1024 },
      { label: 'get -r 10,000 empty files', runs: 2, wallSeconds: 4, maxRssKb: 104 * 1024 },
      { label: 'get -r 100,000 empty files', runs: 1, error: 'exit 1: lost' },
    ],
    [1000, 10_000, 100_000],
  );
  const lines = table.split('\n');
  assert.equal(lines.length, 5);
  // 4 MiB over 9,000 files: 466 B each.
  assert.match(lines[3], /\| 104\.0 MiB \| 466 B \(target < 1000 B: met\) \| 2 \|$/);
  assert.match(lines[4], /\| — \| — \| {2}\| 1 \(exit 1: lost\) \|$/);
});

test("the start-up table says how far --version is above node's own start and whether 70 ms is met", () => {
  const table = startupTable([
    { label: 'sluice --version', runs: 10, wallSeconds: 0.066, maxRssKb: 41 * 1024 },
    { label: 'node -e 0', runs: 10, wallSeconds: 0.06, maxRssKb: 39 * 1024 },
  ]);
  assert.match(table, /\| `sluice --version` \| 66 ms \| \+6 ms \| 41\.0 MiB \| 10 \| ≤ 70 ms: met \|/);
  assert.match(table, /\| `node -e 0` \| 60 ms \| {2}\| 39\.0 MiB \| 10 \| {2}\|/);
});
