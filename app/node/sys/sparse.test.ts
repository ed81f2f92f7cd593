import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { coalesce, dataRanges } from './sparse';
import { sysPaths } from './testPaths';

const MiB = 1024 * 1024;

/** A 64 MiB file with data at [1 MiB, 2 MiB) and [40 MiB, 40 MiB + 100 KiB), holes elsewhere (a hole at the end). */
function sparseFile(dir: string): string {
  const file = path.join(dir, 'sparse.img');
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, Buffer.alloc(MiB, 0xab), 0, MiB, MiB);
    fs.writeSync(fd, Buffer.alloc(100 * 1024, 0xcd), 0, 100 * 1024, 40 * MiB);
    fs.ftruncateSync(fd, 64 * MiB);
  } finally {
    fs.closeSync(fd);
  }
  return file;
}

for (const p of sysPaths()) {
  test(`dataRanges (${p.name}): a file with holes gives its data ranges only`, { skip: p.skip }, () =>
    p.run(async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-sparse-'));
      try {
        const file = sparseFile(dir);
        assert.ok(fs.statSync(file).blocks * 512 < 4 * MiB, `the file system under ${dir} keeps holes`);
        const { ranges, source } = await dataRanges(file, 64 * MiB);
        assert.equal(source, p.name === 'addon' ? 'native' : 'scan');
        // SEEK_DATA works in blocks (4 KiB) and the scan in 64 KiB: the second range ends within the block that holds
        // its end
        assert.equal(ranges.length, 2, JSON.stringify(ranges));
        assert.deepEqual(ranges[0], [MiB, 2 * MiB]);
        assert.equal(ranges[1][0], 40 * MiB);
        assert.ok(
          ranges[1][1] >= 40 * MiB + 100 * 1024 && ranges[1][1] <= 40 * MiB + 128 * 1024,
          JSON.stringify(ranges[1]),
        );
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }),
  );

  test(`dataRanges (${p.name}): a file without holes is one range, not scanned`, { skip: p.skip }, () =>
    p.run(async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-sparse-'));
      try {
        const file = path.join(dir, 'dense.bin');
        fs.writeFileSync(file, Buffer.alloc(3 * MiB));
        assert.deepEqual(await dataRanges(file, 3 * MiB), { ranges: [[0, 3 * MiB]], source: 'whole' });
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }),
  );
}

test('coalesce: holes under 64 KiB are data, empty ranges go', () => {
  assert.deepEqual(
    coalesce([
      [0, 10],
      [20, 30],
      [30, 30],
      [200000, 300000],
    ]),
    [
      [0, 30],
      [200000, 300000],
    ],
  );
});
