import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import type { EngineEvent } from '../transfer/types';
import { humanText, makeOutput, retryLine } from './output';

function sink(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d: Buffer) => {
    text += d.toString();
  });
  return { stream, text: () => text };
}

const failed = (code: string, message: string): EngineEvent => ({
  type: 'file',
  jobId: 'j',
  path: '/home/u/a.bin',
  target: '/srv/a.bin',
  size: 3,
  state: 'failed',
  error: { code, message },
});

test('a failed file is said once, as it fails: its source and target paths and its message', () => {
  assert.equal(
    humanText(failed('PERMISSION_DENIED', 'Remote /srv/.a.bin.sluice-0123abcd.part: permission denied'), false),
    'sluice: FAILED /home/u/a.bin → /srv/a.bin: Remote /srv/.a.bin.sluice-0123abcd.part: permission denied',
  );
});

test('a file cancelled by an interrupt shows nothing: "transfer interrupted" is said once for the job', () => {
  assert.equal(humanText(failed('ABORTED', 'transfer interrupted'), false), undefined);
});

test('-v shows each file done with its size in IEC units and the level reached', () => {
  const done: EngineEvent = {
    type: 'file',
    jobId: 'j',
    path: '/l/x',
    target: '/r/x',
    size: 3 * 1024 * 1024,
    state: 'done',
    verify: 'sha256-reread',
  };
  assert.equal(humanText(done, true), 'sluice: done /l/x → /r/x (3.0 MiB, verified: sha256-reread)');
  assert.equal(humanText(done, false), undefined);
});

test('human output goes to stderr and notes the failed targets, and the failures said, for the summary', () => {
  const out = sink();
  const err = sink();
  const o = makeOutput({ progress: false }, 'up  ', { stdout: out.stream, stderr: err.stream });
  o.event(failed('NO_SUCH_FILE', 'gone'));
  o.event({ type: 'log', level: 'info', message: 'quiet without -v' });
  o.event({ type: 'log', level: 'warn', message: 'careful' });
  o.done();
  assert.equal(err.text(), 'sluice: FAILED /home/u/a.bin → /srv/a.bin: gone\nsluice: careful\n');
  assert.equal(out.text(), '');
  assert.equal(o.notes.targetOf('/home/u/a.bin'), '/srv/a.bin');
  assert.equal(o.notes.wasSaid('/home/u/a.bin'), true);
});

test('--json: every event as one JSON line on stdout, nothing on stderr', () => {
  const out = sink();
  const err = sink();
  const o = makeOutput({ json: true, progress: true }, 'up  ', { stdout: out.stream, stderr: err.stream });
  o.event(failed('ABORTED', 'transfer interrupted'));
  o.info('hello');
  const lines = out
    .text()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(lines[0].type, 'file');
  assert.deepEqual(lines[1], { type: 'log', level: 'info', message: 'hello' });
  assert.equal(err.text(), '');
});

test('a retry: one stderr line with the reason, the wait and the try; under --json a "retry" line on stdout', () => {
  const notice = {
    type: 'retry' as const,
    attempt: 2,
    of: 5,
    delayMs: 3240,
    code: 'CONNECTION_LOST',
    message: 'connection to h:22 failed: read ECONNRESET',
    movedBytes: 1234,
  };
  assert.equal(
    retryLine(notice),
    'sluice: connection to h:22 failed: read ECONNRESET; retrying in 3.2 s (attempt 2 of 5)',
  );
  const human = { out: sink(), err: sink() };
  makeOutput({ progress: false }, 'up  ', { stdout: human.out.stream, stderr: human.err.stream }).retry(notice);
  assert.equal(human.err.text(), `${retryLine(notice)}\n`);
  assert.equal(human.out.text(), '');
  const json = { out: sink(), err: sink() };
  makeOutput({ json: true, progress: false }, 'up  ', { stdout: json.out.stream, stderr: json.err.stream }).retry(
    notice,
  );
  assert.deepEqual(JSON.parse(json.out.text()), notice);
  assert.equal(json.err.text(), '');
});

test('a run that may retry does not name files failed by a transient code as they fail (the summary names those left)', () => {
  assert.equal(humanText(failed('CONNECTION_LOST', 'connection lost'), false, true), undefined);
  assert.equal(humanText(failed('TIMEOUT', 'timed out'), false, true), undefined);
  assert.equal(
    humanText(failed('CONNECTION_LOST', 'connection lost'), false, false),
    'sluice: FAILED /home/u/a.bin → /srv/a.bin: connection lost',
  );
  assert.equal(
    humanText(failed('PERMISSION_DENIED', 'denied'), false, true),
    'sluice: FAILED /home/u/a.bin → /srv/a.bin: denied',
  );
});

test('the bar: not drawn again once every file ended (no empty bar after a failure); drawn again after a retry', () => {
  const err = sink() as ReturnType<typeof sink> & { stream: PassThrough & { isTTY?: boolean; columns?: number } };
  err.stream.isTTY = true;
  err.stream.columns = 80;
  const o = makeOutput({ progress: true, mayRetry: true }, 'down', { stdout: sink().stream, stderr: err.stream });
  const progress = (filesDone: number): EngineEvent => ({
    type: 'progress',
    jobId: 'j',
    t: 0,
    bytesDone: 0,
    bytesTotal: 10,
    filesDone,
    filesTotal: 1,
    rate: 0,
    scanning: false,
    connections: [],
    files: [],
  });
  o.event(failed('PERMISSION_DENIED', 'denied'));
  o.event(progress(0));
  o.done();
  assert.doesNotMatch(err.text(), /0%/, 'the failed file ended the job: no bar');
  o.event(failed('CONNECTION_LOST', 'lost'));
  o.retry({ type: 'retry', attempt: 2, of: 5, delayMs: 1, code: 'CONNECTION_LOST', message: 'lost', movedBytes: 0 });
  o.event(progress(0));
  o.done();
  assert.match(err.text(), /down \[[░]+\] 0%/, 'the next try draws its bar');
});
