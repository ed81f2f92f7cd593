/** One byte and duration format for the CLI, main/ and the app (app/common/units.ts, #25 item 8). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatBytes, formatDuration } from './units';

test("formatBytes: the CLI's style by default, the app's three digits with wholeFrom, one carry rule for both", () => {
  assert.equal(formatBytes(0), '0 B');
  assert.equal(formatBytes(1536), '1.5 KiB');
  assert.equal(formatBytes(512 * 1024 ** 2), '512.0 MiB');
  assert.equal(formatBytes(512 * 1024 ** 2, { wholeFrom: 100 }), '512 MiB');
  assert.equal(formatBytes(99.5 * 1024, { wholeFrom: 100 }), '99.5 KiB');
  assert.equal(formatBytes(1024 ** 2 - 20), '1.0 MiB');
  assert.equal(formatBytes(1024 ** 2 - 20, { wholeFrom: 100 }), '1.0 MiB', 'never "1024 KiB"');
  assert.equal(formatBytes(NaN), '?');
  assert.equal(formatBytes(-1, { unknown: '—' }), '—');
});

test('formatDuration: m:ss, h:mm:ss; unknown is undefined', () => {
  assert.equal(formatDuration(61_400), '1:01');
  assert.equal(formatDuration(3_725_000), '1:02:05');
  assert.equal(formatDuration(-1), undefined);
});
