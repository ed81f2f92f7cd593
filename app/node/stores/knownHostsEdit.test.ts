import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KnownHosts, hashKnownHostsName } from './knownHosts';
import { removeKnownHostsLine, replaceHostKey } from './knownHostsEdit';
import { keygenSuite } from '../test/keygenSuite';

const suite = keygenSuite('sluice-khedit-');
const { keys, newFile } = suite;

test("replace removes the host's line of that key type, keeps every other byte, and appends the new key", async () => {
  const before = [
    '# my comment\r\n',
    `[h]:2222 ssh-ed25519 ${keys.ed1.b64} old\r\n`,
    `other ssh-ed25519 ${keys.ed1.b64}\n`,
    `[h]:2222 ecdsa-sha2-nistp256 ${keys.ecdsa.b64}\n`,
    `@revoked [h]:2222 ssh-rsa ${keys.rsa.b64}`,
  ];
  const file = newFile(before.join(''));
  fs.chmodSync(file, 0o644);
  const removed = await replaceHostKey(file, 'h', 2222, keys.ed2.blob);
  assert.deepEqual(
    removed.map((e) => e.line),
    [2],
  );
  const after = fs.readFileSync(file, 'utf8');
  assert.equal(
    after,
    [before[0], before[2], before[3], before[4], `\n[h]:2222 ssh-ed25519 ${keys.ed2.b64}\n`].join(''),
  );
  assert.equal(fs.statSync(file).mode & 0o777, 0o644, 'the mode is kept');
  assert.deepEqual(
    fs.readdirSync(path.dirname(file)).filter((n) => n.endsWith('.tmp')),
    [],
    'no temporary file is left',
  );
  const kh = await KnownHosts.load({ readPaths: [file], writePath: file });
  assert.equal(kh.lookup('h', 2222, keys.ed2.blob).kind, 'trusted');
  assert.equal(kh.lookup('h', 2222, keys.ed1.blob).kind, 'changed');
  assert.equal(kh.lookup('other', 22, keys.ed1.blob).kind, 'trusted', 'another host keeps its line');
});

test('replace with a type the host has none of removes all its plain lines; hashed files get a hashed line', async () => {
  const file = newFile(
    `${hashKnownHostsName('h')} ssh-rsa ${keys.rsa.b64}\n${hashKnownHostsName('h')} ecdsa-sha2-nistp256 ${keys.ecdsa.b64}\n`,
  );
  const removed = await replaceHostKey(file, 'h', 22, keys.ed1.blob);
  assert.equal(removed.length, 2);
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
  assert.equal(lines.length, 1);
  assert.match(lines[0], /^\|1\|[^ ]+ ssh-ed25519 /);
  const kh = await KnownHosts.load({ readPaths: [file], writePath: file });
  assert.equal(kh.lookup('h', 22, keys.ed1.blob).kind, 'trusted');
});

test('removing a line checks it still holds the listed key', async () => {
  const text = `a ssh-ed25519 ${keys.ed1.b64}\nb ssh-ed25519 ${keys.ed2.b64}\n`;
  const file = newFile(text);
  await assert.rejects(
    removeKnownHostsLine(file, 1, keys.ed2.fp),
    (e: Error & { code?: string }) => e.code === 'INVALID_STATE',
  );
  assert.equal(fs.readFileSync(file, 'utf8'), text);
  const removed = await removeKnownHostsLine(file, 2, keys.ed2.fp);
  assert.equal(removed.hosts, 'b');
  assert.equal(fs.readFileSync(file, 'utf8'), `a ssh-ed25519 ${keys.ed1.b64}\n`);
});
