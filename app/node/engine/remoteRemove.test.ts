import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startTestServer } from '../../../e2e/fixtures/sshd';
import { makeTempDir, removeDir } from '../../../e2e/fixtures/tmp';
import { SluiceError } from '../errors';
import { openTrusting } from '../test/helpers';
import type { ConnectionPool } from '../ssh/connectionPool';
import { RemoteFiles } from './remoteFiles';
import { removeRemote, removeTree } from './remoteRemove';

test('removeRemote: a file, an empty folder, a tree only with recursive, a link not followed, a missing path', async () => {
  const srv = await startTestServer();
  const dir = await makeTempDir('sluice-remove-');
  const pool = await openTrusting(srv, dir);
  try {
    const root = srv.root;
    fs.mkdirSync(path.join(root, 'tree/sub'), { recursive: true });
    fs.writeFileSync(path.join(root, 'tree/sub/a.txt'), 'a');
    fs.writeFileSync(path.join(root, 'keep.txt'), 'kept');
    fs.symlinkSync(path.join(root, 'keep.txt'), path.join(root, 'tree/link'));
    fs.mkdirSync(path.join(root, 'empty'));
    fs.writeFileSync(path.join(root, 'file.txt'), 'f');

    await removeRemote(pool, path.join(root, 'file.txt'));
    await removeRemote(pool, path.join(root, 'empty'));
    await assert.rejects(removeRemote(pool, path.join(root, 'tree')), 'a folder with contents needs recursive');
    assert.ok(fs.existsSync(path.join(root, 'tree/sub/a.txt')));
    await removeRemote(pool, path.join(root, 'tree'), true);
    assert.deepEqual(fs.readdirSync(root).sort(), ['keep.txt']);
    assert.equal(fs.readFileSync(path.join(root, 'keep.txt'), 'utf8'), 'kept', 'the link was removed, not its target');
    await assert.rejects(
      removeRemote(pool, path.join(root, 'gone')),
      (e: unknown) => e instanceof SluiceError && e.code === 'NO_SUCH_FILE',
    );
  } finally {
    await pool.close();
    await srv.stop();
    await removeDir(dir);
  }
});

/**
 * A stand-in for the pool: a tree of folders, every request answered only when the test says (`answerAll`), the
 * requests outstanding counted.
 */
function heldServer(tree: Record<string, string[]>) {
  const pending: Array<() => void> = [];
  const seen = { outstanding: 0, max: 0, folders: new Set<string>(), maxFolders: 0, requests: [] as string[] };
  const inFlightFolders = new Map<string, number>();
  const hold = <T>(op: string, p: string, value: () => T): Promise<T> => {
    seen.outstanding++;
    seen.max = Math.max(seen.max, seen.outstanding);
    seen.requests.push(`${op} ${p}`);
    const dir = op === 'remove' ? path.posix.dirname(p) : p;
    inFlightFolders.set(dir, (inFlightFolders.get(dir) ?? 0) + 1);
    seen.maxFolders = Math.max(seen.maxFolders, inFlightFolders.size);
    return new Promise<T>((resolve) =>
      pending.push(() => {
        seen.outstanding--;
        const n = inFlightFolders.get(dir)! - 1;
        if (n) inFlightFolders.set(dir, n);
        else inFlightFolders.delete(dir);
        resolve(value());
      }),
    );
  };
  const session = {
    connections: [{ channels: 1 }],
    call: (op: string, arg: { path: string }, o?: { onItems?: (b: unknown[]) => void }) => {
      if (op === 'listEach') {
        return hold(op, arg.path, () => {
          const names = tree[arg.path] ?? [];
          o?.onItems?.(
            names.map((n) => ({
              name: n.replace(/\/$/, ''),
              type: n.endsWith('/') ? 'dir' : 'file',
              size: 1,
              mtimeMs: 0,
              mode: 0o644,
            })),
          );
          return names.length;
        });
      }
      return hold(op, arg.path, () => undefined);
    },
  };
  const answerAll = async (): Promise<void> => {
    while (pending.length) {
      for (const answer of pending.splice(0)) answer();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { files: new RemoteFiles(session as unknown as ConnectionPool), seen, answerAll, pending };
}

test('removeTree: requests in flight across folders up to the bound; everything removed, folders last', async () => {
  const tree: Record<string, string[]> = { '/t': ['a/', 'b/', 'c/'] };
  for (const d of ['a', 'b', 'c']) tree[`/t/${d}`] = Array.from({ length: 20 }, (_, i) => `f${i}`);
  const { files, seen, answerAll } = heldServer(tree);
  const done = removeTree(files, '/t', { inFlight: 8 });
  await answerAll();
  const outcome = await done;
  assert.deepEqual(outcome, { files: 60, folders: 4, failed: [] });
  assert.equal(seen.max, 8, 'as many requests outstanding as the bound, no more');
  assert.ok(seen.maxFolders >= 3, `requests of several folders at once (${seen.maxFolders})`);
  assert.equal(seen.requests.at(-1), 'rmdir /t');
  for (const d of ['a', 'b', 'c']) {
    assert.ok(seen.requests.indexOf(`rmdir /t/${d}`) > seen.requests.lastIndexOf(`remove /t/${d}/f19`));
  }
});

test('removeTree: a cancel rejects at once with ABORTED, without waiting for answers, and sends nothing more', async () => {
  const tree: Record<string, string[]> = { '/t': Array.from({ length: 50 }, (_, i) => `f${i}`) };
  const { files, seen, pending } = heldServer(tree);
  const abort = new AbortController();
  const done = removeTree(files, '/t', { inFlight: 4, signal: abort.signal });
  pending.shift()!(); // the listing answers; 4 REMOVEs go out and are never answered
  await new Promise((r) => setImmediate(r));
  assert.equal(seen.outstanding, 4);
  abort.abort();
  await assert.rejects(done, (e: unknown) => e instanceof SluiceError && e.code === 'ABORTED');
  const sent = seen.requests.length;
  for (const answer of pending.splice(0)) answer();
  await new Promise((r) => setImmediate(r));
  assert.equal(seen.requests.length, sent, 'no request after the cancel');
});
