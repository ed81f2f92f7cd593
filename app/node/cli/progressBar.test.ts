import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { ProgressBar, progressTokens, type BarStream, type ProgressEvent } from './progressBar';

const MiB = 1024 * 1024;

function progress(over: Partial<ProgressEvent>): ProgressEvent {
  return {
    type: 'progress', jobId: 'j', t: 0, bytesDone: 0, bytesTotal: 0, filesDone: 0, filesTotal: 1, rate: 0, scanning: false,
    connections: [], files: [], ...over,
  };
}

/** A fake terminal that records what is drawn. */
function fakeTerminal(): { stream: BarStream; text: () => string } {
  const stream = new PassThrough() as PassThrough & BarStream;
  stream.isTTY = true;
  stream.columns = 200;
  let text = '';
  stream.on('data', (d: Buffer) => { text += d.toString(); });
  return { stream, text: () => text };
}

test('progressTokens: sizes and rate in IEC units; the total is a size, not raw bytes', () => {
  const t = progressTokens(progress({ bytesDone: 25 * MiB, bytesTotal: 50 * MiB, filesDone: 0, filesTotal: 1, rate: MiB }));
  assert.deepEqual(t, { sizeDone: '25.0 MiB', sizeTotal: '50.0 MiB', fileCount: '0/1', speed: '1.0 MiB/s', etaText: ' | ETA 0:25' });
});

test('progressTokens: no ETA while unknown (no rate yet, or the folders are still being walked)', () => {
  assert.equal(progressTokens(progress({ bytesTotal: MiB, rate: 0 })).etaText, '');
  const scanning = progressTokens(progress({ bytesDone: 1, bytesTotal: MiB, rate: 100, scanning: true }));
  assert.equal(scanning.etaText, '');
  assert.equal(scanning.sizeTotal, '1.0 MiB+');
});

test('the drawn bar shows "25.0 MiB/50.0 MiB" and MiB/s, never the raw total, NaN, Infinity or "NFs"', () => {
  const term = fakeTerminal();
  const bar = new ProgressBar('up  ', term.stream);
  bar.update(progress({ bytesTotal: 50 * MiB }));
  bar.update(progress({ bytesDone: 25 * MiB, bytesTotal: 50 * MiB, rate: MiB }));
  bar.stop();
  const drawn = term.text();
  assert.match(drawn, /up {3}\[[^\]]*\] 50% \| 25\.0 MiB\/50\.0 MiB \| 0\/1 files \| 1\.0 MiB\/s \| ETA 0:25/);
  assert.match(drawn, /\| 0 B\/50\.0 MiB \| 0\/1 files \| 0 B\/s(?! \| ETA)/, 'the first draw, before any rate: no ETA');
  assert.doesNotMatch(drawn, /52428800|NaN|Infinity|NF|\{\w+\}/);
});

test('an empty job (0 bytes) draws without NaN or an ETA', () => {
  const term = fakeTerminal();
  const bar = new ProgressBar('down', term.stream);
  bar.update(progress({}));
  bar.stop();
  bar.stop();
  // eslint-disable-next-line no-control-regex -- the line ends where cli-progress's erase sequence (ESC [0K) starts
  assert.match(term.text(), /down \[[^\]]*\] 0% \| 0 B\/0 B \| 0\/1 files \| 0 B\/s\x1b/);
  assert.doesNotMatch(term.text(), /NaN|Infinity|NF|ETA/);
});
