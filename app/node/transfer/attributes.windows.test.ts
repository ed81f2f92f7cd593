/**
 * Modes an upload keeps. `put -p` from Windows (#30 item 11): Node reports every Windows file as 0666 (0444 read-only),
 * which kept as it is would make the server's copy world-writable; uploads from Windows keep 0644 / 0444 / 0755
 * instead. Platform injected.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attributesToKeep, modeFromWindows } from './attributes';
import type { TransferRequest } from './types';

const req = (direction: 'get' | 'put'): TransferRequest =>
  ({
    direction,
    sources: ['x'],
    dest: 'y',
    recursive: false,
    preservePermissions: true,
    preserveTimes: false,
  }) as TransferRequest;

test('an upload from Windows maps its mode; downloads and other platforms keep the bits', () => {
  assert.equal(modeFromWindows(0o100666), 0o644);
  assert.equal(modeFromWindows(0o100444), 0o444);
  assert.equal(modeFromWindows(0o100777), 0o755);
  assert.deepEqual(attributesToKeep(req('put'), { mtimeMs: 0, mode: 0o100666 }, 'win32'), { mode: 0o644 });
  assert.deepEqual(attributesToKeep(req('put'), { mtimeMs: 0, mode: 0o100666 }, 'linux'), { mode: 0o666 });
  assert.deepEqual(attributesToKeep(req('get'), { mtimeMs: 0, mode: 0o100666 }, 'win32'), { mode: 0o666 });
});

test('without -p an upload keeps only the bits its writable temporary file lacks (a read-only source, #30)', () => {
  const plain = (direction: 'get' | 'put'): TransferRequest => ({ ...req(direction), preservePermissions: false });
  assert.deepEqual(attributesToKeep(plain('put'), { mtimeMs: 0, mode: 0o100444 }, 'linux'), { mode: 0o444 });
  assert.deepEqual(attributesToKeep(plain('put'), { mtimeMs: 0, mode: 0o100400 }, 'linux'), { mode: 0o400 });
  assert.deepEqual(attributesToKeep(plain('put'), { mtimeMs: 0, mode: 0o100444 }, 'win32'), { mode: 0o444 });
  assert.equal(attributesToKeep(plain('put'), { mtimeMs: 0, mode: 0o100644 }, 'linux'), undefined);
  assert.equal(attributesToKeep(plain('put'), { mtimeMs: 0, mode: 0o100755 }, 'linux'), undefined);
  assert.equal(
    attributesToKeep(plain('get'), { mtimeMs: 0, mode: 0o100444 }, 'linux'),
    undefined,
    'a get chmods at commit',
  );
});
