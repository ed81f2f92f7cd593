import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { SluiceError } from '../errors';
import { toFatal, wantsJson, writeFatal } from './fatal';

function streams() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  return { streams: { stdout, stderr }, out: () => out, err: () => err };
}

test('toFatal: code, message and the exit code of the code (or the one given)', () => {
  assert.deepEqual(toFatal(new SluiceError('HOSTKEY_CHANGED', 'changed!')), {
    type: 'error',
    code: 'HOSTKEY_CHANGED',
    message: 'changed!',
    exitCode: 4,
  });
  assert.deepEqual(toFatal(new SluiceError('ABORTED', 'transfer interrupted'), 143), {
    type: 'error',
    code: 'ABORTED',
    message: 'transfer interrupted',
    exitCode: 143,
  });
  assert.deepEqual(toFatal(new Error('boom')), { type: 'error', code: 'REMOTE_FAILURE', message: 'boom', exitCode: 1 });
});

test('writeFatal: the human line on stderr always, the JSON line on stdout under --json', () => {
  const f = toFatal(new SluiceError('AUTH_FAILED', 'Permission denied (publickey)'));
  const plain = streams();
  assert.equal(writeFatal(f, false, { streams: plain.streams }), 3);
  assert.equal(plain.err(), 'sluice: Permission denied (publickey)\n');
  assert.equal(plain.out(), '');
  const json = streams();
  writeFatal(f, true, { streams: json.streams });
  assert.equal(json.err(), 'sluice: Permission denied (publickey)\n');
  assert.deepEqual(JSON.parse(json.out()), {
    type: 'error',
    code: 'AUTH_FAILED',
    message: 'Permission denied (publickey)',
    exitCode: 3,
  });
  const shown = streams();
  writeFatal(f, true, { streams: shown.streams, humanAlreadyShown: true });
  assert.equal(shown.err(), '');
  assert.equal(shown.out().split('\n').length, 2, 'one line');
});

test('wantsJson: --json among the options, not after "--"', () => {
  assert.equal(wantsJson(['node', 'sluice', 'put', '--json', 'a', 'b']), true);
  assert.equal(wantsJson(['node', 'sluice', 'put', 'a', 'b']), false);
  assert.equal(wantsJson(['node', 'sluice', 'put', '--', '--json', 'b']), false);
});
