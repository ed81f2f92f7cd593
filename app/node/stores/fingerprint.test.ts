import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isSluiceError } from '../errors';
import { FINGERPRINT_EDGE_BYTES, fingerprintRanges, localFingerprint } from './fingerprint';

const MiB = 1024 * 1024;

test('fingerprintRanges: whole files up to 2 MiB, each byte once; first and last MiB beyond', () => {
  assert.equal(FINGERPRINT_EDGE_BYTES, MiB);
  assert.deepEqual(fingerprintRanges(0), []);
  assert.deepEqual(fingerprintRanges(10), [[0, 10]]);
  assert.deepEqual(fingerprintRanges(MiB), [[0, MiB]]);
  assert.deepEqual(fingerprintRanges(MiB + 1), [
    [0, MiB],
    [MiB, MiB + 1],
  ]);
  assert.deepEqual(fingerprintRanges(2 * MiB), [
    [0, MiB],
    [MiB, 2 * MiB],
  ]);
  assert.deepEqual(fingerprintRanges(10 * MiB), [
    [0, MiB],
    [9 * MiB, 10 * MiB],
  ]);
});

test('localFingerprint: SHA-256 of the first and last MiB with size and mtime; blind to the middle by design', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-fp-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'f.bin');
  const data = randomBytes(5 * MiB + 123);
  fs.writeFileSync(file, data);
  fs.utimesSync(file, 1_700_000_000, 1_700_000_000.5);
  const want = createHash('sha256')
    .update(data.subarray(0, MiB))
    .update(data.subarray(data.length - MiB))
    .digest('hex');
  const id = await localFingerprint(file);
  assert.deepEqual(id, { size: data.length, mtimeMs: 1_700_000_000_500, fingerprint: want });

  data[2 * MiB] ^= 0xff;
  fs.writeFileSync(file, data);
  assert.equal(
    (await localFingerprint(file)).fingerprint,
    want,
    'a change in the middle is not seen (size and mtime are the other checks)',
  );
  data[data.length - 1] ^= 0xff;
  fs.writeFileSync(file, data);
  assert.notEqual((await localFingerprint(file)).fingerprint, want);

  const small = path.join(dir, 's.bin');
  fs.writeFileSync(small, 'hello');
  assert.equal((await localFingerprint(small)).fingerprint, createHash('sha256').update('hello').digest('hex'));
  const empty = path.join(dir, 'e.bin');
  fs.writeFileSync(empty, '');
  assert.equal((await localFingerprint(empty)).fingerprint, createHash('sha256').digest('hex'));
});

test('localFingerprint: a missing file or a folder is a LOCAL_IO SluiceError naming it', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-fp-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  await assert.rejects(
    localFingerprint(path.join(dir, 'nope')),
    (e: unknown) => isSluiceError(e, 'LOCAL_IO') && e.message.includes('nope'),
  );
  await assert.rejects(localFingerprint(dir), (e: unknown) => isSluiceError(e, 'LOCAL_IO') && e.message.includes(dir));
});
