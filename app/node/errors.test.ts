import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  SluiceError,
  exitCodeFor,
  fromLocalError,
  fromSftpError,
  ERROR_CODES,
  isErrorCode,
  displayText,
  isSluiceError,
  type ErrorCode,
} from './errors';
import { SFTP_STATUS } from './errors';
import { toFatal } from './cli/fatal';
import { utils as ssh2Utils } from 'ssh2';

test('exitCodeFor maps every code to its documented exit status', () => {
  const expected: Record<ErrorCode, number> = {
    CONNECTION_LOST: 1,
    CONNECTION_REFUSED: 1,
    CONNECTION_STALLED: 1,
    TIMEOUT: 1,
    VERIFY_FAILED: 1,
    REMOTE_FAILURE: 1,
    EXISTS: 1,
    UNSAFE_NAME: 1,
    SOURCE_CHANGED: 1,
    NEGOTIATION_FAILED: 1,
    USAGE: 2,
    AUTH_FAILED: 3,
    UNSUPPORTED_KEY: 3,
    HOSTKEY_UNKNOWN: 4,
    HOSTKEY_CHANGED: 4,
    HOSTKEY_REVOKED: 4,
    HOSTKEY_REJECTED: 4,
    NO_SUCH_FILE: 5,
    PERMISSION_DENIED: 5,
    LOCAL_IO: 6,
    DISK_FULL: 6,
    HOST_NOT_FOUND: 7,
    ABORTED: 130,
    // the service's and IPC's own codes (one code set since app/common/errors.ts)
    INVALID_REQUEST: 2,
    UNKNOWN_CHANNEL: 2,
    NOT_FOUND: 5,
    FORBIDDEN_SENDER: 1,
    NOT_CONNECTED: 1,
    FOLDER_NOT_EMPTY: 1,
    INSECURE_SECRET_STORAGE: 1,
    INVALID_STATE: 1,
    INTERNAL: 1,
  };
  assert.deepEqual([...ERROR_CODES].sort(), Object.keys(expected).sort());
  for (const [code, exit] of Object.entries(expected)) assert.equal(exitCodeFor(code as ErrorCode), exit, code);
});

test('SluiceError serialises to {code, message} and back, keeping the cause local', () => {
  const cause = new Error('inner');
  const e = new SluiceError('TIMEOUT', 'took too long', { cause });
  assert.ok(e instanceof Error);
  assert.equal(e.name, 'SluiceError');
  assert.equal(e.cause, cause);
  assert.deepEqual(e.toInfo(), { code: 'TIMEOUT', message: 'took too long' });
  assert.deepEqual(JSON.parse(JSON.stringify(e.toInfo())), { code: 'TIMEOUT', message: 'took too long' });
  assert.deepEqual(structuredClone(e.toInfo()), e.toInfo());
  const back = SluiceError.fromInfo(e.toInfo());
  assert.equal(back.code, 'TIMEOUT');
  assert.equal(SluiceError.fromInfo({ code: 'BOGUS', message: 'x' }).code, 'REMOTE_FAILURE');
  assert.ok(isErrorCode('USAGE') && !isErrorCode('toString') && !isErrorCode(3));
  assert.ok(isSluiceError(e) && isSluiceError(e, 'TIMEOUT') && !isSluiceError(e, 'USAGE') && !isSluiceError(cause));
});

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: something`), { code });
}

test('fromLocalError maps fs errnos and names the path', () => {
  const cases: Array<[string, ErrorCode, RegExp]> = [
    ['ENOSPC', 'DISK_FULL', /no space left/],
    ['EDQUOT', 'DISK_FULL', /quota/],
    ['EACCES', 'LOCAL_IO', /permission denied/],
    ['EPERM', 'LOCAL_IO', /permission denied/],
    ['EROFS', 'LOCAL_IO', /permission denied.*read-only/],
    ['ENOENT', 'LOCAL_IO', /no such file/],
    ['EEXIST', 'EXISTS', /already exists/],
    ['EWHATEVER', 'LOCAL_IO', /something/],
  ];
  for (const [code, want, text] of cases) {
    const e = fromLocalError(errno(code), '/data/out/file.bin');
    assert.equal(e.code, want, code);
    assert.match(e.message, text, code);
    assert.match(e.message, /\/data\/out\/file\.bin/, code);
  }
  assert.match(
    fromLocalError(errno('EACCES'), '/x', 'write').message,
    /^Cannot write \/x: permission denied \(EACCES\)$/,
  );
  const abort = Object.assign(new Error('aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
  assert.equal(fromLocalError(abort, '/x').code, 'ABORTED');
  const already = new SluiceError('USAGE', 'u');
  assert.equal(fromLocalError(already, '/x'), already);
  assert.equal(fromLocalError('weird', '/x').code, 'LOCAL_IO');
});

test('fromLocalError on a real fs failure', async () => {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'sluice-err-'));
  try {
    const missing = path.join(dir, 'missing', 'f');
    const caught = await fs.promises.readFile(missing).then(
      () => null,
      (e: unknown) => e,
    );
    const e = fromLocalError(caught, missing);
    assert.equal(e.code, 'LOCAL_IO');
    assert.ok(e.message.includes(missing));
    assert.equal(exitCodeFor(e.code), 6);
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
});

function sftpErr(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}

test('fromSftpError maps SFTP status codes (draft-ietf-secsh-filexfer-02 §7)', () => {
  const cases: Array<[number, string, ErrorCode, RegExp]> = [
    [2, 'No such file', 'NO_SUCH_FILE', /no such file/],
    [3, 'Permission denied', 'PERMISSION_DENIED', /permission denied/],
    [4, 'Failure', 'REMOTE_FAILURE', /failure/],
    [4, 'Disk quota exceeded', 'REMOTE_FAILURE', /server: Disk quota exceeded/],
    [5, 'Bad message', 'REMOTE_FAILURE', /malformed/],
    [6, 'No connection', 'CONNECTION_LOST', /no connection/],
    [7, 'Connection lost', 'CONNECTION_LOST', /connection lost/],
    [8, 'Operation unsupported', 'REMOTE_FAILURE', /not supported/],
    [11, 'exists', 'EXISTS', /already exists/],
    [14, 'full', 'REMOTE_FAILURE', /no space/],
    [99, 'odd', 'REMOTE_FAILURE', /status 99/],
  ];
  for (const [status, text, want, re] of cases) {
    const e = fromSftpError(sftpErr(status, text), '/srv/data/x.bin');
    assert.equal(e.code, want, `status ${status}`);
    assert.match(e.message, re, `status ${status}`);
    assert.match(e.message, /\/srv\/data\/x\.bin/);
  }
  // The generic text is not repeated as "server: …".
  assert.doesNotMatch(fromSftpError(sftpErr(2, 'No such file'), '/a').message, /server:/);
});

test("SFTP_STATUS is the one status table (the worker reads EOF from it): its v3 codes are ssh2's", () => {
  for (const [name, code] of Object.entries(ssh2Utils.sftp.STATUS_CODE)) {
    assert.equal(SFTP_STATUS[name as keyof typeof SFTP_STATUS], code, name);
  }
});

test('SluiceError.from: our own bugs are INTERNAL, not a remote failure; other errors stay REMOTE_FAILURE', () => {
  const read = (o: { x: number } | undefined) => o!.x;
  let bug: unknown;
  try {
    read(undefined);
  } catch (e) {
    bug = e;
  }
  const internal = SluiceError.from(bug);
  assert.equal(internal.code, 'INTERNAL', 'a local TypeError is not REMOTE_FAILURE');
  assert.equal(internal.cause, bug);
  assert.equal(SluiceError.from(new RangeError('offset out of range')).code, 'INTERNAL');
  assert.equal(SluiceError.from(new Error('No response from server')).code, 'REMOTE_FAILURE');
  assert.equal(SluiceError.from('text').code, 'REMOTE_FAILURE');
  const own = new SluiceError('DISK_FULL', 'full');
  assert.equal(SluiceError.from(own), own);
  assert.equal(toFatal(new TypeError('x is not a function')).code, 'INTERNAL', "the CLI's error line and JSON say so");
});

test('fromSftpError maps transport failures and keeps server text printable', () => {
  assert.equal(fromSftpError(new Error('No response from server'), '/a').code, 'CONNECTION_LOST');
  assert.equal(fromSftpError(errno('ECONNRESET'), '/a').code, 'CONNECTION_LOST');
  assert.equal(fromSftpError(errno('ETIMEDOUT'), '/a').code, 'TIMEOUT');
  assert.equal(fromSftpError(new Error('Server does not support this extended request'), '/a').code, 'REMOTE_FAILURE');
  const hostile = fromSftpError(sftpErr(4, 'evil\u001b[2J\u0007text'), '/dir/\u001b]0;title\u0007name');
  // eslint-disable-next-line no-control-regex
  assert.doesNotMatch(hostile.message, /[\u0000-\u001f]/);
  assert.match(hostile.message, /\\x1b/);
});

test('displayText escapes control characters and truncates', () => {
  assert.equal(displayText('a\nb\u001b\u009b'), 'a\\x0ab\\x1b\\x9b');
  assert.equal(displayText('x'.repeat(10), 4), 'xxxx…');
  assert.equal(displayText('plain é ✓'), 'plain é ✓');
});
