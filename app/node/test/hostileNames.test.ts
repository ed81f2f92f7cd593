/**
 * Hostile remote names through the real CLI: the scripted ssh2 server lists `../escape`, `a/b`, `C:evil`,
 * `CON`, NUL bytes, absolute paths… next to good files. `get -r` must refuse each hostile name with a clear
 * message, copy the good files, write nothing outside the chosen folder, and exit 1.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  describeRun,
  fakeFileEntry,
  runCli,
  sha256File,
  startScriptedServer,
  treeOf,
  trustedServerHooks,
  urlOf,
  writeRandomFile,
  type ScriptedServer,
} from './helpers';

let server: ScriptedServer;
let work: string;
let knownHosts: string;

/**
 * Names that must never be written locally (`.` and `..` are listed too: the standard entries are dropped, not copied).
 */
function hostileNames(base: string): string[] {
  return [
    '../escape',
    'a/b',
    'a\\b',
    'C:evil',
    'CON',
    'nul.txt',
    'x\u0000y',
    '/etc/passwd',
    `${base}/abs-escape`,
    'esc\u001b[31mred',
  ];
}

trustedServerHooks(
  () => startScriptedServer(),
  'sluice-names-',
  (t) => {
    ({ server, dir: work, knownHosts } = t);
  },
);

describe('hostile remote names (scripted server)', () => {
  test('get -r refuses each hostile name, copies the good files, writes nothing outside the target, exit 1', async () => {
    const base = path.join(work, 'case');
    fs.mkdirSync(path.join(base, 'inner'), { recursive: true });
    const src = path.join(server.root, 'src');
    fs.mkdirSync(path.join(src, 'sub'), { recursive: true });
    writeRandomFile(path.join(src, 'good1.txt'), 1000);
    writeRandomFile(path.join(src, 'good2.txt'), 0);
    writeRandomFile(path.join(src, 'sub', 'good3.txt'), 5000);
    const hostile = hostileNames(base);
    const nestedHostile = ['../../../nested-escape', '..\\..\\win-escape'];
    const dirEntry = { filename: 'sub', attrs: { mode: 0o040755, size: 4096, mtime: 1_700_000_000 } };
    server.overrides.readdir = (p) => {
      if (p === src) {
        return [
          fakeFileEntry('good1.txt', 1000),
          fakeFileEntry('good2.txt', 0),
          dirEntry,
          fakeFileEntry('..', 0),
          fakeFileEntry('.', 0),
          ...hostile.map((n) => fakeFileEntry(n, 1234)),
        ];
      }
      if (p === path.join(src, 'sub'))
        return [fakeFileEntry('good3.txt', 5000), ...nestedHostile.map((n) => fakeFileEntry(n, 10))];
      return undefined;
    };
    const passwdBefore = await sha256File('/etc/passwd');
    const dest = path.join(base, 'inner', 'out');
    try {
      const r = await runCli(
        [
          'get',
          '-r',
          '--json',
          '--batch',
          '--no-agent',
          '-i',
          server.clientKeyPath,
          '--no-progress',
          urlOf(server, src),
          dest,
        ],
        { knownHosts },
      );
      assert.equal(r.code, 1, describeRun(r));
      const refused = (r.report?.failed ?? []).filter((f) => f.code === 'UNSAFE_NAME');
      const expected = [...hostile, ...nestedHostile];
      for (const name of expected) {
        const hit = refused.find((f) => f.message.includes(JSON.stringify(name)));
        assert.ok(hit, `no refusal for ${JSON.stringify(name)}\n${describeRun(r)}`);
        assert.match(hit.message, /refused remote name/);
        // eslint-disable-next-line no-control-regex -- looking for raw control characters is the point
        assert.doesNotMatch(hit.message, /[\u0000-\u001f]/, 'a refusal message carries a raw control character');
      }
      assert.equal(refused.length, expected.length, `unexpected refusals: ${JSON.stringify(refused)}`);
      assert.equal(r.report?.files, 3, 'the good files must still be copied');

      // Nothing outside the target: the two levels above it hold only what the test made.
      assert.deepEqual(fs.readdirSync(base), ['inner']);
      assert.deepEqual(fs.readdirSync(path.join(base, 'inner')), ['out']);
      assert.deepEqual(fs.readdirSync(work).sort(), ['case', 'known_hosts']);
      assert.equal(await sha256File('/etc/passwd'), passwdBefore, '/etc/passwd changed');
      assert.deepEqual(
        (await treeOf(dest)).map((e) => e.rel),
        ['good1.txt', 'good2.txt', 'sub', 'sub/good3.txt'],
      );
      assert.deepEqual(await treeOf(dest), await treeOf(src), 'good files differ');

      // Without --json the refusals are printed on stderr, one clear line each, escaped.
      const plain = await runCli(
        [
          'get',
          '-r',
          '--batch',
          '--no-agent',
          '-i',
          server.clientKeyPath,
          '--no-progress',
          urlOf(server, src),
          path.join(base, 'plain'),
        ],
        { knownHosts },
      );
      assert.equal(plain.code, 1, describeRun(plain));
      const lines = plain.stderr.split('\n').filter((l) => /refused remote name/.test(l));
      assert.equal(lines.length, expected.length, plain.stderr);
      assert.ok(!plain.stderr.includes('\u001b'), 'a terminal escape from a remote name reached stderr');
    } finally {
      server.overrides.readdir = undefined;
    }
  });
});
