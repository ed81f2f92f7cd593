import test from 'node:test';
import assert from 'node:assert/strict';
import { fitUtf8, hiddenSiblingName, utf8Bytes } from '../../common/nameBytes';
import { stableTempName, tempNameFor } from '../transfer/fileNames';
import { fromLocalError, fromSftpError } from '../errors';

test('utf8Bytes counts as Buffer.byteLength does', () => {
  for (const s of ['', 'abc', 'ä', '名', '😀', 'a名😀ä']) assert.equal(utf8Bytes(s), Buffer.byteLength(s), s);
});

test('fitUtf8 cuts at a code point, never inside one', () => {
  assert.equal(fitUtf8('ab名', 4), 'ab');
  assert.equal(fitUtf8('ab名', 5), 'ab名');
  assert.equal(fitUtf8('😀😀', 7), '😀');
});

test('a temporary name stays within 255 bytes and keeps its recognisable suffix', () => {
  assert.equal(hiddenSiblingName('a.txt', '.sluice-0123abcd.part'), '.a.txt.sluice-0123abcd.part', 'short: unchanged');
  for (const base of ['n'.repeat(233), 'n'.repeat(234), 'n'.repeat(255), 'ä'.repeat(127), '名'.repeat(85)]) {
    const temp = tempNameFor(`/srv/in/${base}`, true);
    const name = temp.slice('/srv/in/'.length);
    assert.ok(utf8Bytes(name) <= 255, `${utf8Bytes(name)} bytes for a ${utf8Bytes(base)}-byte name`);
    assert.match(name, /^\.[^/]+\.sluice-[0-9a-f]{8}\.part$/);
    assert.ok(base.startsWith(name.slice(1, name.indexOf('.sluice-'))), "the temporary name starts with the target's");
    const stable = stableTempName(temp, 'job\0/src');
    assert.notEqual(stable, temp, "the journal's stable tag still replaces the random one");
    assert.ok(utf8Bytes(stable.slice('/srv/in/'.length)) <= 255);
  }
  assert.equal(tempNameFor(`/srv/${'n'.repeat(233)}`, true).length, '/srv/'.length + 255, '233 + 22 bytes: kept whole');
});

test('SSH_FX_BAD_MESSAGE on a long name says the name may be too long, not "malformed request"', () => {
  const status = (code: number): Error => Object.assign(new Error('Bad message'), { code });
  assert.match(
    fromSftpError(status(5), `/srv/${'x'.repeat(300)}`, { op: 'OPEN' }).message,
    /^OPEN \/srv\/x+…?: file name too long: a name of 300 bytes, more than the 255 a file system holds \(SSH_FX_BAD_/,
  );
  assert.match(
    fromSftpError(status(5), `/srv/${'x'.repeat(200)}`).message,
    /a name of 200 bytes may be too long for the server's file system/,
  );
  assert.match(fromSftpError(status(5), '/srv/short').message, /malformed request/, 'short names: the plain reading');
});

test('a local ENAMETOOLONG says which limit: a name over 255 bytes, or the whole path', () => {
  const errno = Object.assign(new Error('ENAMETOOLONG: name too long'), { code: 'ENAMETOOLONG' });
  assert.match(
    fromLocalError(errno, `/home/u/${'x'.repeat(256)}`, 'open').message,
    /^Cannot open \/home\/u\/x+…?: file name too long: a name of 256 bytes, more than the 255 .* \(ENAMETOOLONG\)$/,
  );
  const deep = `/home/u/${Array.from({ length: 20 }, () => 'y'.repeat(250)).join('/')}`;
  assert.match(
    fromLocalError(errno, deep).message,
    /: path too long \(5027 bytes; no name in it is over 255\) \(ENAMETOOLONG\)$/,
  );
});
