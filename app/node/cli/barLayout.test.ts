import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fitBar, MAX_GRAPHIC, type BarFields } from './barLayout';

const tree: BarFields = {
  label: 'down',
  fraction: 0.2,
  sizeDone: '210.6 MiB',
  sizeTotal: '1.0 GiB',
  files: '1313/2000 files',
  speed: '123.4 MiB/s',
  eta: '1:05',
};
const single: BarFields = { ...tree, files: undefined };

test('at 200 columns every field shows, with the widest graphic', () => {
  const line = fitBar(tree, 200);
  assert.equal(
    line,
    `down [${'█'.repeat(8)}${'░'.repeat(32)}] 20% | 210.6 MiB/1.0 GiB | 1313/2000 files | 123.4 MiB/s | ETA 1:05`,
  );
  assert.ok(line.includes(`[${'█'.repeat(MAX_GRAPHIC / 5)}`));
});

test('at 80 columns the rate and the ETA stay: the label goes first, then the total; the graphic shrinks', () => {
  const line = fitBar(tree, 80);
  assert.ok(line.length <= 79, `${line.length}: ${line}`);
  assert.equal(line, '[██░░░░░░░░] 20% | 210.6 MiB/1.0 GiB | 1313/2000 files | 123.4 MiB/s | ETA 1:05');
  assert.equal(fitBar(tree, 75), '[███░░░░░░░░░░] 20% | 210.6 MiB | 1313/2000 files | 123.4 MiB/s | ETA 1:05');
  const one = fitBar(single, 80);
  assert.match(one, /^down \[[█░]+\] 20% \| 210\.6 MiB\/1\.0 GiB \| 123\.4 MiB\/s \| ETA 1:05$/);
  assert.ok(one.length <= 79);
});

test('narrower terminals drop the total, the file count, the ETA, the size, the graphic, in that order; never wider than the screen', () => {
  const seen: string[] = [];
  for (let cols = 200; cols >= 8; cols--) {
    const line = fitBar(tree, cols);
    assert.ok(line.length <= cols - 1, `${cols} columns: ${line}`);
    assert.match(line, /20%/, `${cols} columns keep the percentage: ${line}`);
    seen.push(line);
  }
  const at = (cols: number): string => fitBar(tree, cols);
  assert.doesNotMatch(at(60), /files/);
  assert.match(at(60), /MiB\/s \| ETA 1:05$/);
  assert.match(at(40), /^\[[█░]+\] 20% \| 123\.4 MiB\/s$|^20% \| 210\.6 MiB \| 123\.4 MiB\/s \| ETA 1:05$/);
  assert.equal(at(12), '20%');
  // Each field, once dropped at some width, never comes back at a narrower one.
  for (const field of ['down', '/1.0 GiB', 'files', 'ETA', '210.6', '123.4 MiB/s']) {
    const last = seen.map((l) => l.includes(field)).lastIndexOf(true);
    assert.ok(
      seen.slice(0, last + 1).every((l) => l.includes(field)),
      `${field} comes and goes`,
    );
  }
});

test('0 %, 100 % and the unknown ETA while folders are walked', () => {
  assert.match(
    fitBar({ ...single, fraction: 0, eta: undefined }, 80),
    /^down \[░+\] 0% \| 210\.6 MiB\/1\.0 GiB \| 123\.4 MiB\/s$/,
  );
  assert.match(fitBar({ ...single, fraction: 1 }, 80), /^down \[█+\] 100% /);
});
