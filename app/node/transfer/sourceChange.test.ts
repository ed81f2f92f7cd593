/**
 * An upload's source that changes while it is sent (issue #14): the copy is not committed; the file is sent again
 * from zero as it is now (whole and segmented), and a source that keeps changing fails SOURCE_CHANGED after two
 * restarts, with nothing under its name and no temporary file left.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EngineEvent, TransferReport } from './types';
import {
  makeTempDir,
  openTrusting,
  removeDir,
  sha256File,
  startSshd,
  tempFilesUnder,
  within,
  writeRandomFile,
  type SshdServer,
} from '../test/helpers';
import { runTransfer } from './run';

const MiB = 1024 * 1024;
let local: string;
let server: SshdServer;
before(async () => {
  local = await makeTempDir('sluice-srcchange-');
  server = await startSshd();
});
after(async () => {
  await server?.stop();
  if (local) await removeDir(local);
});

/**
 * Uploads `src` at 4 MiB/s (1 MiB segments when `segmented`) and calls `change` on each progress event while it runs.
 * @returns the report and the warnings
 */
async function uploadWhileChanging(
  src: string,
  dst: string,
  segmented: boolean,
  change: (e: EngineEvent) => void,
): Promise<{ report: TransferReport; warnings: string[] }> {
  const warnings: string[] = [];
  const s = await openTrusting(server, local, {
    connections: 1,
    channels: 2,
    segmentSize: segmented ? MiB : 64 * MiB,
    rateLimit: 4 * MiB,
  });
  const onEvent = (e: EngineEvent): void => {
    if (e.type === 'log' && e.level === 'warn') warnings.push(e.message);
    if (e.type === 'progress' && e.bytesDone > 0) change(e);
  };
  try {
    const report = await within(
      'upload',
      90_000,
      runTransfer(s, { id: 'chg', direction: 'put', sources: [src], dest: dst, recursive: false }, { onEvent }),
    );
    return { report, warnings };
  } finally {
    await s.close();
  }
}

describe('the source changes during an upload', () => {
  for (const segmented of [false, true]) {
    test(`${segmented ? 'segmented' : 'whole'}: changed once, sent again, the target is the source as it is now`, async () => {
      const src = path.join(local, `once-${segmented}.bin`);
      writeRandomFile(src, 6 * MiB);
      const dst = path.join(server.root, `once-${segmented}.bin`);
      let changed = false;
      const { report, warnings } = await uploadWhileChanging(src, dst, segmented, () => {
        if (changed) return;
        changed = true;
        fs.appendFileSync(src, Buffer.alloc(4096, 7));
      });
      assert.ok(changed);
      assert.deepEqual(report.failed, []);
      assert.equal(report.files, 1);
      assert.equal(await sha256File(dst), await sha256File(src), 'the committed copy is the new source, never a mix');
      assert.equal(fs.statSync(dst).size, 6 * MiB + 4096);
      assert.ok(
        warnings.some((w) => /changed while it was sent.*sending it again \(1 of 2\)/.test(w)),
        warnings.join('\n'),
      );
      assert.deepEqual(tempFilesUnder(server.root), []);
    });
  }

  test('a source that keeps changing fails SOURCE_CHANGED after two restarts; nothing is committed', async () => {
    const src = path.join(local, 'always.bin');
    writeRandomFile(src, 3 * MiB);
    const dst = path.join(server.root, 'always.bin');
    const { report, warnings } = await uploadWhileChanging(src, dst, false, () =>
      fs.appendFileSync(src, Buffer.alloc(512, 1)),
    );
    assert.equal(report.files, 0);
    assert.equal(report.failed.length, 1);
    assert.equal(report.failed[0].code, 'SOURCE_CHANGED');
    assert.match(report.failed[0].message, /always\.bin changed while it was sent/);
    assert.equal(warnings.filter((w) => /sending it again/.test(w)).length, 2);
    assert.equal(fs.existsSync(dst), false);
    assert.deepEqual(tempFilesUnder(server.root), []);
  });

  for (const segmented of [false, true]) {
    test(`${segmented ? 'segmented' : 'whole'}: a source truncated mid-upload fails SOURCE_CHANGED naming it, not REMOTE_FAILURE`, async () => {
      const src = path.join(local, `truncated-${segmented}.bin`);
      writeRandomFile(src, 6 * MiB);
      const dst = path.join(server.root, `truncated-${segmented}.bin`);
      let cut = false;
      const { report } = await uploadWhileChanging(src, dst, segmented, () => {
        if (cut) return;
        cut = true;
        fs.truncateSync(src, 100 * 1024);
      });
      assert.ok(cut);
      assert.equal(report.files, 0);
      assert.deepEqual(
        report.failed.map((f) => f.code),
        ['SOURCE_CHANGED'],
        JSON.stringify(report.failed),
      );
      assert.match(report.failed[0].message, /truncated-\w+\.bin changed while it was sent/);
      assert.equal(fs.existsSync(dst), false, 'nothing committed');
      assert.deepEqual(tempFilesUnder(server.root), []);
    });
  }
});
