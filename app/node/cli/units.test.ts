import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  averageRate,
  formatBytes,
  formatDuration,
  formatElapsed,
  formatEta,
  formatRate,
  parseByteAmount,
  plural,
} from './units';
import { formatBytes as commonBytes } from '../../common/units';

test('formatBytes: IEC units, one decimal from KiB up, never NaN or Infinity', () => {
  const cases: Array<[number, string]> = [
    [0, '0 B'],
    [1, '1 B'],
    [1023, '1023 B'],
    [1024, '1.0 KiB'],
    [1536, '1.5 KiB'],
    [52428800, '50.0 MiB'],
    [1024 ** 3, '1.0 GiB'],
    [1024 ** 4 * 3.5, '3.5 TiB'],
    [1024 * 1024 - 1, '1.0 MiB'], // 1023.999 KiB carries into MiB instead of "1024.0 KiB"
    [NaN, '?'],
    [Infinity, '?'],
    [-1, '?'],
  ];
  for (const [n, want] of cases) assert.equal(formatBytes(n), want, String(n));
  assert.equal(formatBytes, commonBytes, 'the CLI re-exports the one function (app/common/units.ts)');
});

test('formatRate: the same units per second; unknown rates say so', () => {
  assert.equal(formatRate(0), '0 B/s');
  assert.equal(formatRate(12.3 * 1024 * 1024), '12.3 MiB/s');
  assert.equal(formatRate(Infinity), '? B/s');
  assert.equal(formatRate(NaN), '? B/s');
});

test('averageRate: bytes per second, undefined when no time elapsed', () => {
  assert.equal(averageRate(1024 * 1024, 500), 2 * 1024 * 1024);
  assert.equal(averageRate(10, 0), undefined);
  assert.equal(averageRate(NaN, 10), undefined);
});

test('formatDuration and formatEta: m:ss or h:mm:ss; unknown ETA is undefined, never "NFs"', () => {
  assert.equal(formatDuration(0), '0:00');
  assert.equal(formatDuration(61_400), '1:01');
  assert.equal(formatDuration(3_725_000), '1:02:05');
  assert.equal(formatDuration(-5), undefined);
  assert.equal(formatEta(10 * 1024 * 1024, 1024 * 1024), '0:10');
  assert.equal(formatEta(100, 0), undefined, 'no rate yet');
  assert.equal(formatEta(Infinity, 10), undefined);
  assert.equal(formatEta(100, NaN), undefined);
});

test('formatElapsed and plural', () => {
  assert.equal(formatElapsed(420), '0.42 s');
  assert.equal(formatElapsed(12_345), '12.3 s');
  assert.equal(formatElapsed(125_000), '2:05');
  assert.equal(formatElapsed(NaN), '? s');
  assert.equal(plural(1, 'file'), '1 file');
  assert.equal(plural(0, 'file'), '0 files');
  assert.equal(plural(3, 'file'), '3 files');
});

test('parseByteAmount: K/M/G and KiB/MiB/GiB are 1024-based, KB/MB/GB 1000-based (rsync), /s for rates', () => {
  const cases: Array<[string, number | undefined]> = [
    ['10M', 10 * 1024 ** 2],
    ['10m', 10 * 1024 ** 2],
    ['10MiB', 10 * 1024 ** 2],
    ['10mib', 10 * 1024 ** 2],
    ['10MB', 10_000_000],
    ['10mb', 10_000_000],
    ['10 MB', 10_000_000],
    ['512K', 512 * 1024],
    ['512KB', 512_000],
    ['1.5M', 1.5 * 1024 ** 2],
    ['1G', 1024 ** 3],
    ['1GB', 1e9],
    ['2T', 2 * 1024 ** 4],
    ['2048', 2048],
    ['2048B', 2048],
    ['0', 0],
    ['10Mi', undefined],
    ['fast', undefined],
    ['-1M', undefined],
    ['', undefined],
    ['10MB/s', undefined],
  ];
  for (const [text, want] of cases) assert.equal(parseByteAmount(text), want, text);
  assert.equal(parseByteAmount('10MB/s', { perSecond: true }), 10_000_000);
  assert.equal(parseByteAmount('10 MiB/s', { perSecond: true }), 10 * 1024 ** 2);
});
