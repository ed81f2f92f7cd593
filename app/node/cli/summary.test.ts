import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TransferReport } from '../transfer/types';
import { JobNotes, describeFailure, formatSummary, totalsLine } from './summary';

const MiB = 1024 * 1024;

function report(over: Partial<TransferReport>): TransferReport {
  return { files: 0, skipped: 0, bytes: 0, movedBytes: 0, failed: [], elapsedMs: 50, ...over };
}

test('a failed run not yet said names each failed file by its source and target, even when the message names only a temp file', () => {
  const targets = new JobNotes();
  targets.note({
    type: 'file',
    jobId: 'j',
    path: '/home/u/a.bin',
    target: '/srv/in/a.bin',
    size: 10,
    state: 'failed',
    error: { code: 'PERMISSION_DENIED', message: 'Remote /srv/in/.a.bin.sluice-1234abcd.part: permission denied' },
  });
  const r = report({
    failed: [
      {
        path: '/home/u/a.bin',
        code: 'PERMISSION_DENIED',
        message: 'Remote /srv/in/.a.bin.sluice-1234abcd.part: permission denied',
      },
      {
        path: '/home/u/missing',
        code: 'LOCAL_IO',
        message: 'Local file /home/u/missing: no such file or directory (ENOENT)',
      },
    ],
  });
  const lines = formatSummary(r, targets);
  assert.deepEqual(
    lines,
    [
      '2 FAILED:',
      '  /home/u/a.bin → /srv/in/a.bin: Remote /srv/in/.a.bin.sluice-1234abcd.part: permission denied',
      '  /home/u/missing: Local file /home/u/missing: no such file or directory (ENOENT)',
    ],
    'the failures are all there is to say: no totals line repeating them',
  );
});

test('a failure said as it happened is not said again; the totals count it beside what was copied', () => {
  const notes = new JobNotes();
  notes.note(
    {
      type: 'file',
      jobId: 'j',
      path: '/a',
      target: '/b',
      size: 1,
      state: 'failed',
      error: { code: 'USAGE', message: '/a is a folder (use -r)' },
    },
    true,
  );
  const failed = [{ path: '/a', code: 'USAGE', message: '/a is a folder (use -r)' }];
  assert.deepEqual(formatSummary(report({ failed }), notes), []);
  assert.deepEqual(formatSummary(report({ failed, files: 2, bytes: 10, elapsedMs: 1000 }), notes), [
    '2 files copied, 10 B in 1.00 s (10 B/s), 1 FAILED',
  ]);
});

test('after a resume: what this run moved and its rate, and what was already there', () => {
  const line = totalsLine(
    report({ files: 1, bytes: 1024 * MiB, resumedBytes: 448 * MiB, elapsedMs: 5760, verify: 'size' }),
  );
  assert.equal(line, '1 file copied, 576.0 MiB in 5.76 s (100.0 MiB/s), 448.0 MiB already there, verified: size');
});

test('a resumed tree: files an earlier run committed are done earlier, not skipped', () => {
  const r = report({
    files: 687,
    bytes: 687 * 1000,
    skipped: 1313,
    earlierFiles: 1313,
    earlierBytes: 1313 * 1000,
    elapsedMs: 2000,
    verify: 'size',
  });
  assert.equal(
    totalsLine(r),
    '687 files copied, 670.9 KiB in 2.00 s (335.4 KiB/s), 1.3 MiB already there (1313 files done earlier), verified: size',
  );
  assert.equal(
    totalsLine(report({ skipped: 3, earlierFiles: 3, earlierBytes: 0 })),
    'no file copied, 3 files done earlier',
  );
});

test("files skipped say why (the conflict rule's reason), most common first", () => {
  const notes = new JobNotes();
  const skip = (path: string, reason: string): void =>
    notes.note({ type: 'file', jobId: 'j', path, target: path, size: 5, state: 'skipped', reason });
  skip('/a', 'the target exists');
  assert.equal(totalsLine(report({ skipped: 1 }), notes), 'no file copied, 1 skipped (the target exists)');
  skip('/b', 'the target is newer');
  skip('/c', 'the target is newer');
  assert.equal(
    totalsLine(report({ skipped: 3 }), notes),
    'no file copied, 3 skipped (the target is newer: 2, the target exists: 1)',
  );
});

test('no verification claim when no file was committed, even if the report carries a level', () => {
  const failed = [{ path: '/a', code: 'VERIFY_FAILED', message: '/b: SHA-256 differs' }];
  for (const verify of [undefined, 'size', 'sha256-remote'] as const) {
    const line = totalsLine(report({ failed, verify, bytes: MiB }));
    assert.doesNotMatch(line, /verified/, line);
    assert.match(line, /^no file copied, 1\.0 MiB in 0\.05 s \(20\.0 MiB\/s\), 1 FAILED$/);
  }
  assert.doesNotMatch(totalsLine(report({ files: 2, bytes: 10 })), /verified/, 'files committed but no level reported');
});

test('a successful run: files, size, time and rate in IEC units, and the level reached', () => {
  const line = totalsLine(report({ files: 2, bytes: 1.5 * MiB, elapsedMs: 420, verify: 'sha256-remote', skipped: 1 }));
  assert.equal(line, '2 files copied, 1.5 MiB in 0.42 s (3.6 MiB/s), verified: sha256-remote, 1 skipped');
  assert.deepEqual(formatSummary(report({ files: 1, bytes: 5, elapsedMs: 1000, verify: 'size' }), new JobNotes()), [
    '1 file copied, 5 B in 1.00 s (5 B/s), verified: size',
  ]);
});

test('never NaN, Infinity or "NF": a run that took no measurable time shows no rate', () => {
  const line = totalsLine(report({ files: 1, bytes: 100, elapsedMs: 0, verify: 'size' }));
  assert.equal(line, '1 file copied, 100 B in 0.00 s, verified: size');
  assert.doesNotMatch(line, /NaN|Infinity|NF/);
});

test('describeFailure makes untrusted names printable', () => {
  assert.equal(describeFailure('/r/evil\u001b[2J', '/l/x', 'boom'), '/r/evil\\x1b[2J → /l/x: boom');
  assert.equal(describeFailure('/same', '/same', 'm'), '/same: m');
});
