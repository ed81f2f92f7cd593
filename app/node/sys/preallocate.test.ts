import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { preallocate, reserveSpace } from './preallocate';
import { sysPaths } from './testPaths';

for (const p of sysPaths()) {
  test(
    `preallocate (${p.name}): keeps the size; the addon grows st_blocks, the fallback leaves the file alone`,
    { skip: p.skip },
    () =>
      p.run(async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-prealloc-'));
        try {
          const file = path.join(dir, 'f.part');
          const fd = fs.openSync(file, 'w');
          try {
            fs.writeSync(fd, Buffer.alloc(4096, 1));
            const before = fs.fstatSync(fd);
            const how = preallocate(fd, 32 * 1024 * 1024);
            const after = fs.fstatSync(fd);
            assert.equal(after.size, 4096, 'FALLOC_FL_KEEP_SIZE: the size stays');
            if (p.name === 'addon') {
              assert.equal(how, 'reserved', `the file system under ${dir} preallocates`);
              assert.ok(after.blocks * 512 >= 32 * 1024 * 1024, `st_blocks ${before.blocks} -> ${after.blocks}`);
            } else {
              assert.equal(how, 'no-addon');
              assert.equal(after.blocks, before.blocks);
            }
          } finally {
            fs.closeSync(fd);
          }
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      }),
  );
}

test(
  'preallocate (addon): more than the disk holds throws ENOSPC, naming the syscall',
  { skip: sysPaths()[0].skip },
  () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-prealloc-'));
    const fd = fs.openSync(path.join(dir, 'huge.part'), 'w');
    try {
      const free = fs.statfsSync(dir);
      assert.throws(
        () => preallocate(fd, free.bavail * free.bsize + 1024 ** 4),
        (e: NodeJS.ErrnoException) => {
          assert.match(String(e.code), /^(ENOSPC|EFBIG|EDQUOT)$/);
          assert.match(e.message, /fallocate/);
          return true;
        },
      );
    } finally {
      fs.closeSync(fd);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);

const shmIsTmpfs = (() => {
  try {
    return process.platform === 'linux' && Number(fs.statfsSync('/dev/shm').type) === 0x01021994;
  } catch {
    return false;
  }
})();
const shmSkip = shmIsTmpfs ? undefined : '/dev/shm is not a tmpfs here';
if (shmSkip) process.stdout.write(`# reserveSpace on tmpfs skipped: ${shmSkip}\n`);

test('reserveSpace on a tmpfs (/dev/shm) reserves nothing: memory-fs, no page committed', { skip: shmSkip }, () => {
  const dir = fs.mkdtempSync(path.join('/dev/shm', 'sluice-prealloc-'));
  const file = path.join(dir, 'f.part');
  const fd = fs.openSync(file, 'w');
  try {
    assert.equal(reserveSpace(fd, 32 * 1024 * 1024, file), 'memory-fs');
    assert.equal(fs.fstatSync(fd).blocks, 0, 'no page was allocated');
    assert.equal(fs.fstatSync(fd).size, 0);
  } finally {
    fs.closeSync(fd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
