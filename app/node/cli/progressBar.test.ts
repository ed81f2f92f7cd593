import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { ProgressBar, progressFields, type BarStream, type ProgressEvent } from './progressBar';

const MiB = 1024 * 1024;

function progress(over: Partial<ProgressEvent>): ProgressEvent {
  return {
    type: 'progress',
    jobId: 'j',
    t: 0,
    bytesDone: 0,
    bytesTotal: 0,
    filesDone: 0,
    filesTotal: 1,
    rate: 0,
    scanning: false,
    connections: [],
    files: [],
    ...over,
  };
}

/** A fake terminal that records what is drawn. */
function fakeTerminal(columns = 200): { stream: PassThrough & BarStream; text: () => string } {
  const stream = new PassThrough() as PassThrough & BarStream;
  stream.isTTY = true;
  stream.columns = columns;
  let text = '';
  stream.on('data', (d: Buffer) => {
    text += d.toString();
  });
  return { stream, text: () => text };
}

test('progressFields: sizes and rate in IEC units; the total is a size, not raw bytes; one file shows no file count', () => {
  const f = progressFields(progress({ bytesDone: 25 * MiB, bytesTotal: 50 * MiB, rate: MiB }), 'up  ');
  assert.deepEqual(f, {
    label: 'up  ',
    fraction: 0.5,
    sizeDone: '25.0 MiB',
    sizeTotal: '50.0 MiB',
    files: undefined,
    speed: '1.0 MiB/s',
    eta: '0:25',
  });
  assert.equal(progressFields(progress({ filesTotal: 3, filesDone: 1 }), 'up  ').files, '1/3 files');
});

test('progressFields: no ETA while unknown (no rate yet, or the folders are still being walked)', () => {
  assert.equal(progressFields(progress({ bytesTotal: MiB, rate: 0 }), 'down').eta, undefined);
  const scanning = progressFields(progress({ bytesDone: 1, bytesTotal: MiB, rate: 100, scanning: true }), 'down');
  assert.equal(scanning.eta, undefined);
  assert.equal(scanning.sizeTotal, '1.0 MiB+');
});

test('progressFields: files skipped by the conflict rule or done by an earlier run count as done (the bar reaches 100 %)', () => {
  const f = progressFields(
    progress({
      bytesDone: 6 * MiB,
      bytesTotal: 10 * MiB,
      filesDone: 687,
      filesTotal: 2000,
      filesSkipped: 1313,
      bytesSkipped: 4 * MiB,
    }),
    'down',
  );
  assert.equal(f.fraction, 1);
  assert.equal(f.files, '2000/2000 files');
  assert.equal(f.sizeDone, '10.0 MiB');
  assert.equal(progressFields(progress({ bytesTotal: 5, filesSkipped: 1, bytesSkipped: 5 }), 'down').fraction, 1);
});

test('the drawn bar shows "25.0 MiB/50.0 MiB" and MiB/s, never the raw total, NaN, Infinity or "NFs"', () => {
  const term = fakeTerminal();
  const bar = new ProgressBar('up  ', term.stream);
  bar.update(progress({ bytesTotal: 50 * MiB }));
  bar.update(progress({ bytesDone: 25 * MiB, bytesTotal: 50 * MiB, rate: MiB }));
  bar.stop();
  const drawn = term.text();
  assert.match(drawn, /up {3}\[[^\]]*\] 50% \| 25\.0 MiB\/50\.0 MiB \| 1\.0 MiB\/s \| ETA 0:25/);
  assert.match(drawn, /\| 0 B\/50\.0 MiB \| 0 B\/s(?! \| ETA)/, 'the first draw, before any rate: no ETA');
  assert.doesNotMatch(drawn, /52428800|NaN|Infinity|NF|\{\w+\}/);
  // Cursor save/restore (ESC 7, ESC 8) would put the cursor back on the bar's line.
  // eslint-disable-next-line no-control-regex
  assert.doesNotMatch(drawn, /\x1b[78]/);
});

test('an empty job (0 bytes) draws without NaN or an ETA', () => {
  const term = fakeTerminal();
  const bar = new ProgressBar('down', term.stream);
  bar.update(progress({}));
  bar.stop();
  bar.stop();
  // eslint-disable-next-line no-control-regex -- the line ends where the erase sequence (ESC [0K) starts
  assert.match(term.text(), /down \[[^\]]*\] 0% \| 0 B\/0 B \| 0 B\/s\x1b/);
  assert.doesNotMatch(term.text(), /NaN|Infinity|NF|ETA/);
});

test('the bar fits the terminal and is drawn again at the new width when it is resized', () => {
  const term = fakeTerminal(80);
  const bar = new ProgressBar('down', term.stream);
  bar.update(progress({ bytesDone: 25 * MiB, bytesTotal: 50 * MiB, rate: MiB }));
  term.stream.columns = 40;
  const before = term.text().length;
  term.stream.emit('resize');
  const redrawn = term.text().slice(before);
  bar.stop();
  // eslint-disable-next-line no-control-regex -- the drawn lines, between the cursor-to-column-1 and erase sequences
  const lines = [...term.text().matchAll(/\x1b\[1G([^\x1b]*)\x1b\[0K/g)].map((m) => m[1]);
  assert.ok(lines[0].length <= 79 && lines[0].includes('ETA 0:25'), lines[0]);
  assert.match(redrawn, /50%/, 'redrawn at once on resize');
  assert.ok(
    lines.slice(1).every((l) => l.length <= 39),
    lines.join('\n'),
  );
});

test('progressFields: the verifying phase shows the bytes hashed, the hashing rate since it began, and its ETA', () => {
  const one = progressFields(
    progress({
      bytesDone: 64 * MiB,
      bytesTotal: 64 * MiB,
      verifying: { files: 1, bytes: 64 * MiB, hashedBytes: 16 * MiB },
    }),
    'down',
    2000,
  );
  assert.deepEqual(one, {
    label: 'verify',
    fraction: 0.25,
    sizeDone: '16.0 MiB',
    sizeTotal: '64.0 MiB',
    files: undefined,
    speed: '8.0 MiB/s',
    eta: '0:06',
  });
  const tree = progressFields(
    progress({ filesDone: 3, filesTotal: 5, verifying: { files: 2, bytes: 2 * MiB, hashedBytes: 0 } }),
    'up  ',
    0,
  );
  assert.equal(tree.files, '3/5 files');
  assert.equal(tree.fraction, 0);
  assert.equal(tree.eta, undefined, 'no rate yet: no ETA');
});
