/**
 * The remote side of a sync's listing against a private OpenSSH sshd (names, sizes, times, folders, links as get/put,
 * filters applied while walking, a missing root, cancellation) and against the scripted server for a folder the
 * server fails to list (a listing error, recorded for the plan's deletion guard) and an endless folder (bounded).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ConnectionPool } from '../ssh/connectionPool';
import {
  makeTempDir,
  openTrusting,
  removeDir,
  startScriptedServer,
  startSshd,
  within,
  type ScriptedServer,
  type SshdServer,
} from '../test/helpers';
import { compileFilters } from './filters';
import { listLocalTree } from './localListing';
import { listRemoteTree } from './remoteListing';
import { planSync } from './plan';

const T = new Date('2024-05-01T12:00:00Z');

/** A small tree: files at two depths, an empty folder, a link, an excluded folder. */
function makeTree(root: string): void {
  fs.mkdirSync(path.join(root, 'docs/deep'), { recursive: true });
  fs.mkdirSync(path.join(root, 'empty'));
  fs.mkdirSync(path.join(root, 'cache'));
  fs.writeFileSync(path.join(root, 'a.txt'), 'hello');
  fs.writeFileSync(path.join(root, 'docs/b.md'), 'x'.repeat(1000));
  fs.writeFileSync(path.join(root, 'docs/deep/c.log'), 'log');
  fs.writeFileSync(path.join(root, 'cache/big.bin'), 'zz');
  fs.symlinkSync('a.txt', path.join(root, 'link'));
  fs.symlinkSync('docs', path.join(root, 'dirlink'));
  for (const p of ['a.txt', 'docs/b.md', 'docs/deep/c.log']) fs.utimesSync(path.join(root, p), T, T);
  // A time with milliseconds, which the server keeps as whole seconds (a file written now has one only most of the
  // time: one written in a second's first milliseconds failed the precision test once).
  const subSecond = new Date(T.getTime() + 437);
  fs.utimesSync(path.join(root, 'cache/big.bin'), subSecond, subSecond);
}

describe('remote listing against OpenSSH', () => {
  let sshd: SshdServer;
  let local: string;
  let pool: ConnectionPool;
  before(async () => {
    sshd = await startSshd();
    local = await makeTempDir('sluice-sync-list-');
    makeTree(path.join(sshd.root, 'tree'));
    pool = await openTrusting(sshd, local, { connections: 1, channels: 1 });
  });
  after(async () => {
    await pool?.close();
    await sshd?.stop();
    if (local) await removeDir(local);
  });

  test('every file and folder with its size and time; a link to a file inside as that file, a folder link left out', async () => {
    const l = await within(
      'list',
      30_000,
      listRemoteTree(pool, path.join(sshd.root, 'tree'), { filter: compileFilters([]) }),
    );
    assert.deepEqual([...l.entries.keys()].sort(), [
      'a.txt',
      'cache',
      'cache/big.bin',
      'docs',
      'docs/b.md',
      'docs/deep',
      'docs/deep/c.log',
      'empty',
      'link',
    ]);
    assert.deepEqual(l.entries.get('docs/b.md'), { kind: 'file', size: 1000, mtimeMs: T.getTime() });
    assert.deepEqual(l.entries.get('link'), { kind: 'file', size: 5, mtimeMs: T.getTime() }, "a.txt's size and time");
    assert.equal(l.entries.get('docs')?.kind, 'dir');
    assert.deepEqual(l.skipped, [{ path: 'dirlink', reason: 'a folder symlink (sync does not follow folder links)' }]);
    assert.deepEqual(l.errors, []);
    assert.ok(l.complete && l.rootExists);
  });

  test('the same tree listed locally gives the same entries: a plan of the tree against itself is all same', async () => {
    const root = path.join(sshd.root, 'tree');
    const filter = compileFilters([]);
    const remote = await listRemoteTree(pool, root, { filter });
    const localSide = await listLocalTree(root, { filter });
    const shape = (l: typeof remote) => [...l.entries].map(([p, e]) => `${p} ${e.kind} ${e.size}`).sort();
    assert.deepEqual(shape(localSide), shape(remote));
    assert.equal(remote.timePrecisionMs, 1000, 'SFTP v3 keeps whole seconds');
    // Local times have milliseconds, the server's are whole seconds: still the same (rclone's precision rule).
    const plan = planSync(localSide, remote, { delete: true });
    assert.deepEqual(
      plan.items.filter((i) => i.action !== 'same'),
      [],
    );
    assert.ok(
      plan.items.some((i) => i.reason === 'within-precision'),
      'cache/big.bin has a sub-second time',
    );
  });

  test('filters apply while walking: an excluded folder is not listed, a name pattern at any depth', async () => {
    const filter = compileFilters([
      { kind: 'exclude', pattern: 'cache/' },
      { kind: 'exclude', pattern: '*.log' },
    ]);
    const l = await listRemoteTree(pool, path.join(sshd.root, 'tree'), { filter });
    assert.deepEqual([...l.entries.keys()].sort(), ['a.txt', 'docs', 'docs/b.md', 'docs/deep', 'empty', 'link']);
  });

  test('a root that does not exist: an empty, complete listing marked rootExists false', async () => {
    const l = await listRemoteTree(pool, path.join(sshd.root, 'nothing-here'), { filter: compileFilters([]) });
    assert.equal(l.rootExists, false);
    assert.equal(l.entries.size, 0);
  });

  test('a file as the root is refused (sync works on folders)', async () => {
    await assert.rejects(
      listRemoteTree(pool, path.join(sshd.root, 'tree/a.txt'), { filter: compileFilters([]) }),
      /is not a folder on the server/,
    );
  });

  test('an aborted signal ends the walk with ABORTED', async () => {
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(
      listRemoteTree(pool, path.join(sshd.root, 'tree'), { filter: compileFilters([]), signal: ac.signal }),
      (e: Error & { code?: string }) => e.code === 'ABORTED',
    );
  });
});

describe('remote listing against a misbehaving server', () => {
  let server: ScriptedServer;
  let local: string;
  let pool: ConnectionPool;
  before(async () => {
    server = await startScriptedServer();
    local = await makeTempDir('sluice-sync-list-bad-');
    makeTree(path.join(server.root, 'tree'));
    pool = await openTrusting(server, local, { connections: 1, channels: 1 });
  });
  after(async () => {
    await pool?.close();
    await server?.stop();
    if (local) await removeDir(local);
  });

  test('a folder the server lists but cannot open: a listing error naming it, and --delete plans no deletion', async () => {
    const root = path.join(server.root, 'tree');
    server.overrides.readdir = (p) =>
      p === root
        ? [
            ...fs
              .readdirSync(root)
              .filter((n) => n !== 'link')
              .map((n) => {
                const st = fs.statSync(path.join(root, n));
                return { filename: n, attrs: { mode: st.mode, size: st.size, mtime: Math.trunc(st.mtimeMs / 1000) } };
              }),
            { filename: 'ghost', attrs: { mode: 0o40755, size: 0, mtime: 0 } },
          ]
        : undefined;
    try {
      const dest = await listRemoteTree(pool, root, { filter: compileFilters([]) });
      assert.equal(dest.errors.length, 1);
      assert.equal(dest.errors[0].path, 'ghost');
      assert.equal(dest.errors[0].code, 'NO_SUCH_FILE');
      const src = await listLocalTree(path.join(local, 'no-such-src'), { filter: compileFilters([]) });
      const plan = planSync({ ...src, rootExists: true }, dest, { delete: true });
      assert.equal(plan.totals.delete.files + plan.totals.delete.folders, 0);
      assert.match(plan.deletionsWithheld ?? '', /the listing of DEST ghost failed/);
    } finally {
      server.overrides.readdir = () => undefined;
    }
  });

  test('a folder that never ends is cut at the entry bound: incomplete, so deletions are withheld', async () => {
    server.overrides.endlessReaddir = 'names';
    try {
      const l = await within(
        'endless',
        30_000,
        listRemoteTree(pool, path.join(server.root, 'tree'), { filter: compileFilters([]), maxEntries: 5000 }),
      );
      assert.equal(l.complete, false);
      assert.match(l.errors[0]?.message ?? '', /more than 5000 entries/);
    } finally {
      delete server.overrides.endlessReaddir;
    }
  });

  test('a READDIR the server never answers: the signal ends the walk at once with ABORTED', async () => {
    let asked!: () => void;
    const readdirAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    // Read on each READDIR: says the walk is waiting on the server, and leaves the request unanswered.
    Object.defineProperty(server.overrides, 'unansweredReaddir', {
      configurable: true,
      get: () => {
        asked();
        return true;
      },
    });
    const ac = new AbortController();
    try {
      const walk = listRemoteTree(pool, path.join(server.root, 'tree'), {
        filter: compileFilters([]),
        signal: ac.signal,
      });
      await within('READDIR sent', 30_000, readdirAsked);
      ac.abort();
      await within(
        'cancelled walk',
        10_000,
        assert.rejects(walk, (e: Error & { code?: string }) => e.code === 'ABORTED'),
      );
    } finally {
      delete server.overrides.unansweredReaddir;
    }
  });
});
