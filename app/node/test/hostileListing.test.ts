/**
 * What a listing or a STAT says is checked, not trusted (issue 24 items 5 and 10), through the real CLI against a
 * scripted ssh2 server: names listed without attributes (legal in SFTP v3) are asked with LSTAT and copied; a file
 * that READ shows longer than its listed size is not saved short as "verified"; a name listed twice is reported once
 * and copied once. And (item 3) a folder's names reach the walk as they arrive, and a stopped job's listing stops.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DirEntry } from '../../../e2e/fixtures/ssh2SftpServer';
import { SluiceError } from '../errors';
import { runTransfer } from '../transfer/run';
import {
  baseFlags,
  describeRun,
  fakeFileEntry,
  openTrusting,
  runCli,
  startCli,
  startScriptedServer,
  treeOf,
  trustedServerHooks,
  urlOf,
  waitUntil,
  writeRandomFile,
  type ScriptedServer,
} from './helpers';

let server: ScriptedServer;
let work: string;
let knownHosts: string;
trustedServerHooks(
  () => startScriptedServer(),
  'sluice-hostile-listing-',
  (t) => {
    ({ server, dir: work, knownHosts } = t);
  },
);

/** A NAME entry with no ATTRS fields at all (flags 0). */
const bare = (filename: string): DirEntry => ({ filename, attrs: {} }) as unknown as DirEntry;

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
      assert.deepEqual(
        (await treeOf(dest)).map((e) => e.rel),
        ['a.txt', 'sub', 'sub/b.txt'],
        describeRun(r),
      );
      for (const rel of ['a.txt', 'sub/b.txt']) {
        assert.deepEqual(fs.readFileSync(path.join(dest, rel)), fs.readFileSync(path.join(src, rel)), rel);
      }
      assert.equal(r.report?.skipped ?? 0, 0, describeRun(r));
    } finally {
      server.overrides.readdir = undefined;
    }
  });
});

describe('the size a listing gives is checked by a READ at the end (scripted server)', () => {
  const routes = [
    ['through one handle', []],
    ['in segments', ['--segment-size', '64K', '--channels', '4']],
  ] as const;
  for (const [how, flags] of routes) {
    test(`a file listed shorter than READ shows is not saved short, ${how}: SOURCE_CHANGED, exit 1`, async () => {
      const src = path.join(server.root, `liar-${flags.length}`);
      fs.mkdirSync(src);
      writeRandomFile(path.join(src, 'grows.bin'), 300_000);
      writeRandomFile(path.join(src, 'true.bin'), 200_000);
      listAs(src, [fakeFileEntry('grows.bin', 200_000), fakeFileEntry('true.bin', 200_000)]);
      try {
        const dest = path.join(work, `liar-out-${flags.length}`);
        const args = ['get', '-r', '--json', ...flags, ...baseFlags(server), urlOf(server, src), dest];
        const r = await runCli(args, { knownHosts });
        assert.equal(r.code, 1, describeRun(r));
        assert.deepEqual(
          (await treeOf(dest)).map((e) => e.rel),
          ['true.bin'],
          describeRun(r),
        );
        assert.equal(r.report?.files, 1, describeRun(r));
        const failed = r.report?.failed ?? [];
        assert.deepEqual(
          failed.map((f) => [f.path, f.code]),
          [[path.join(src, 'grows.bin'), 'SOURCE_CHANGED']],
          describeRun(r),
        );
        assert.match(failed[0].message, /data past byte 200000, the size it gave for the file: the file is longer/);
      } finally {
        server.overrides.readdir = undefined;
      }
    });
  }

  test('a name listed twice with different sizes: copied once, whole, and the repeat reported', async () => {
    const src = path.join(server.root, 'dups');
    fs.mkdirSync(src);
    writeRandomFile(path.join(src, 'dup.bin'), 5000);
    listAs(src, [fakeFileEntry('dup.bin', 5000), fakeFileEntry('dup.bin', 1000)]);
    try {
      const dest = path.join(work, 'dups-out');
      const r = await runCli(['get', '-r', '--json', ...baseFlags(server), urlOf(server, src), dest], { knownHosts });
      assert.equal(r.code, 0, describeRun(r));
      assert.deepEqual(fs.readFileSync(path.join(dest, 'dup.bin')), fs.readFileSync(path.join(src, 'dup.bin')));
      assert.equal(r.report?.files, 1, describeRun(r));
      assert.equal(r.report?.skipped, 1, describeRun(r));
      assert.match(
        r.stdout,
        /"state":"skipped","reason":"listed twice by the server in one listing, copied once"/,
        describeRun(r),
      );
    } finally {
      server.overrides.readdir = undefined;
    }
  });
});

describe('a listing streams into the walk and stops at once (scripted server)', () => {
  test('get -r: the first names are handled while the folder is still listed; SIGINT then exits at once', async () => {
    const src = path.join(server.root, 'endless-stream');
    fs.mkdirSync(src);
    server.overrides.endlessReaddir = 'names';
    try {
      const args = ['get', '-r', '--json', ...baseFlags(server), urlOf(server, src), path.join(work, 'stream-out')];
      const run = startCli(args, { knownHosts, timeoutMs: 60_000 });
      // The names do not exist as files: each fails on its OPEN, which shows it reached the transfer.
      const first = await run.waitForEvent((e) => e.type === 'file', 30_000);
      const answers = server.stats.endlessAnswers ?? 0;
      assert.ok(answers < 1_000, `the first name was handled only after ${answers} READDIR answers (all of them)`);
      assert.equal(first.path, path.join(src, 'n0'), JSON.stringify(first));
      const sent = Date.now();
      run.child.kill('SIGINT');
      const r = await run.result;
      assert.equal(r.code, 130, describeRun(r));
      assert.ok(Date.now() - sent < 5_000, `exited ${Date.now() - sent} ms after SIGINT`);
    } finally {
      server.overrides.endlessReaddir = undefined;
    }
  });

  test('a job aborted mid-listing sends no READDIR after it has stopped', async () => {
    const src = path.join(server.root, 'endless-abort');
    fs.mkdirSync(src);
    fs.writeFileSync(path.join(src, 'x'), 'x');
    server.overrides.endlessReaddir = 'names';
    const pool = await openTrusting(server, work, { connections: 1, channels: 1 });
    try {
      const abort = new AbortController();
      const from = server.stats.endlessAnswers ?? 0;
      const dest = path.join(work, 'abort-out');
      const job = runTransfer(
        pool,
        { id: 'endless', direction: 'get', sources: [src], dest, recursive: true },
        { signal: abort.signal },
      );
      await waitUntil('the listing under way', () => (server.stats.endlessAnswers ?? 0) - from >= 20, 30_000);
      abort.abort();
      await assert.rejects(job, (e: unknown) => e instanceof SluiceError && e.code === 'ABORTED');
      // One channel, answered in order: once a STAT is answered, every READDIR sent before it was too.
      await pool.stat(path.join(src, 'x'));
      const after = server.stats.endlessAnswers;
      for (let i = 0; i < 3; i++) await pool.stat(path.join(src, 'x'));
      assert.equal(server.stats.endlessAnswers, after, 'READDIRs went on after the job stopped');
    } finally {
      server.overrides.endlessReaddir = undefined;
      await pool.close();
    }
  });
});
