/** A pane's name filter (renderer/format/paneFilter.ts): substring, glob, and the selection kept to what is shown. */
import test from 'node:test';
import assert from 'node:assert/strict';
import { isGlob, keepVisible, nameMatcher, paneCountText } from './paneFilter';

test('a plain text matches anywhere, case-insensitively; blank matches all', () => {
  const m = nameMatcher('Port');
  assert.deepEqual(['report.csv', 'PORTS.txt', 'pot.txt'].filter(m), ['report.csv', 'PORTS.txt']);
  assert.equal(nameMatcher('  ')('anything'), true);
  assert.equal(nameMatcher('a.c')('abc'), false, 'a dot is a dot, not a pattern');
});

test('* and ? make a glob over the whole name; other regex characters are literal', () => {
  assert.equal(isGlob('*.log'), true);
  assert.equal(isGlob('log'), false);
  const logs = nameMatcher('*.LOG');
  assert.deepEqual(['a.log', 'b.log.gz', 'log', 'C.Log'].filter(logs), ['a.log', 'C.Log']);
  const two = nameMatcher('report-??.csv');
  assert.deepEqual(['report-01.csv', 'report-1.csv', 'report-001.csv'].filter(two), ['report-01.csv']);
  assert.equal(nameMatcher('(a)+*')('(a)+b'), true);
  assert.equal(nameMatcher('(a)+*')('aa'), false);
});

test('the selection keeps only the rows shown', () => {
  const sel = { selected: new Set(['a', 'b', 'c']), anchor: 'a', focus: 'c' };
  assert.equal(keepVisible(sel, ['a', 'b', 'c', 'd']), sel);
  const kept = keepVisible(sel, ['b', 'c']);
  assert.deepEqual([...kept.selected], ['b', 'c']);
  assert.equal(kept.anchor, null);
  assert.equal(kept.focus, 'c');
});

test('the count: items, or "12 of 340 shown" with a filter, and the selection', () => {
  assert.equal(paneCountText(340, 340, 0, false), '340 items');
  assert.equal(paneCountText(1, 1, 1, false), '1 item, 1 selected');
  assert.equal(paneCountText(12, 340, 0, true), '12 of 340 shown');
  assert.equal(paneCountText(0, 340, 0, true), '0 of 340 shown');
  assert.equal(paneCountText(12, 340, 2, true), '12 of 340 shown, 2 selected');
});
