/**
 * What a put's folder walk copies, reports and refuses (special files, symlinks in and out of the tree, -L), and
 * `~` resolved through SSH_FXP_REALPATH, against the scripted server (whose remote paths are local paths).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EngineEvent, TransferRequest } from './types';
import { expandRemoteHome } from './scan';
import {
  makeTempDir,
  removeDir,
  startScriptedServer,
  within,
  openTrusting,
  type ScriptedServer,
} from '../test/helpers';
import { runTransfer } from './run';

let local: string;
let server: ScriptedServer;

before(async () => {
  local = await makeTempDir('sluice-scan-');
  server = await startScriptedServer();
});
after(async () => {
  await server?.stop();
  if (local) await removeDir(local);
});

type FileEvent = Extract<EngineEvent, { type: 'file' }>;

async function put(req: Partial<TransferRequest> & Pick<TransferRequest, 'sources' | 'dest'>) {
  const events: EngineEvent[] = [];
  const s = await openTrusting(server, local, { connections: 1, channels: 1, onEvent: (e) => events.push(e) });
  try {
    const report = await within(
      'put',
      30_000,
      runTransfer(s, { id: 'scan', direction: 'put', recursive: true, ...req }, { onEvent: (e) => events.push(e) }),
    );
    return { report, files: events.filter((e): e is FileEvent => e.type === 'file') };
  } finally {
    await s.close();
  }
}

/** A tree with a FIFO, a socket-free special file set, a link inside the tree, one outside, and a dangling one. */
function makeTree(name: string): { tree: string; outside: string } {
  const tree = path.join(local, name);
  fs.mkdirSync(path.join(tree, 'sub'), { recursive: true });
  fs.writeFileSync(path.join(tree, 'real.txt'), 'inside');
  fs.writeFileSync(path.join(tree, 'sub', 'deep.txt'), 'deep');
  const outside = path.join(local, `${name}-secret.txt`);
  fs.writeFileSync(outside, 'outside the tree');
  execFileSync('mkfifo', [path.join(tree, 'pipe')]);
  fs.symlinkSync('real.txt', path.join(tree, 'link-in.txt'));
  fs.symlinkSync(outside, path.join(tree, 'link-out.txt'));
  fs.symlinkSync('missing.txt', path.join(tree, 'dangling.txt'));
  fs.symlinkSync('sub', path.join(tree, 'link-dir'));
  fs.symlinkSync('..', path.join(tree, 'sub', 'loop'));
  return { tree, outside };
}

describe("a put's folder walk", () => {
  test(
    'copies files and links inside the tree; reports a FIFO, links outside it, dangling and folder links as skipped',
    { timeout: 60_000 },
    async () => {
      const { tree } = makeTree('t1');
      const dest = path.join(server.root, 't1');
      const { report, files } = await put({ sources: [tree], dest });
      assert.deepEqual(report.failed, []);
      assert.equal(report.files, 3, 'real.txt, sub/deep.txt and link-in.txt');
      assert.equal(fs.readFileSync(path.join(dest, 'link-in.txt'), 'utf8'), 'inside');
      const skipped = Object.fromEntries(
        files.filter((f) => f.state === 'skipped').map((f) => [path.basename(f.path), f.reason ?? '']),
      );
      assert.deepEqual(Object.keys(skipped).sort(), ['dangling.txt', 'link-dir', 'link-out.txt', 'loop', 'pipe']);
      assert.match(skipped.pipe, /FIFO/);
      assert.match(skipped['link-out.txt'], /outside the folder being copied \(use -L to follow\)/);
      assert.equal(report.skipped, 5);
      assert.deepEqual(fs.readdirSync(dest).sort(), ['link-in.txt', 'real.txt', 'sub']);
    },
  );

  test(
    '-L follows every link (a folder link too) and still skips the FIFO, the dangling link and a loop',
    { timeout: 60_000 },
    async () => {
      const { tree } = makeTree('t2');
      const dest = path.join(server.root, 't2');
      const { report } = await put({ sources: [tree], dest, followSymlinks: true });
      assert.deepEqual(report.failed, []);
      assert.equal(fs.readFileSync(path.join(dest, 'link-out.txt'), 'utf8'), 'outside the tree');
      assert.equal(fs.readFileSync(path.join(dest, 'link-dir', 'deep.txt'), 'utf8'), 'deep');
      // pipe, dangling.txt, and sub/loop (a link to the tree's root above it) wherever it is met
      assert.equal(report.skipped, 4, 'sub/loop is met twice: under sub and under link-dir');
    },
  );

  test('a FIFO named as a source is refused with a clear error, never opened', { timeout: 30_000 }, async () => {
    const fifo = path.join(local, 'lonely-pipe');
    execFileSync('mkfifo', [fifo]);
    const { report } = await put({ sources: [fifo], dest: path.join(server.root, 'x'), recursive: false });
    assert.equal(report.failed.length, 1);
    assert.match(report.failed[0].message, /is a FIFO: only regular files and folders can be copied/);
  });
});

describe('~ in remote paths', () => {
  test('"~", "~/x" and "" resolve through REALPATH of the login folder; other paths are left alone', async () => {
    const asked: string[] = [];
    const session = {
      realpath: async (p: string) => {
        asked.push(p);
        return '/home/alice';
      },
    };
    assert.equal(await expandRemoteHome(session, '~'), '/home/alice');
    assert.equal(await expandRemoteHome(session, '~/in/a.txt'), '/home/alice/in/a.txt');
    assert.equal(await expandRemoteHome(session, ''), '/home/alice');
    assert.equal(await expandRemoteHome(session, '/srv/~x'), '/srv/~x');
    assert.equal(await expandRemoteHome(session, '~bob/x'), '~bob/x');
    assert.deepEqual(asked, ['.', '.', '.']);
  });

  test(
    'a put to ~/folder lands in the login folder on a server that does not expand ~ itself',
    { timeout: 30_000 },
    async () => {
      const src = path.join(local, 'home.txt');
      fs.writeFileSync(src, 'to the home folder');
      fs.mkdirSync(path.join(server.root, 'inbox'), { recursive: true });
      const { report } = await put({ sources: [src], dest: '~/inbox/', recursive: false });
      assert.deepEqual(report.failed, []);
      assert.equal(fs.readFileSync(path.join(server.root, 'inbox', 'home.txt'), 'utf8'), 'to the home folder');
    },
  );
});

describe('how DEST is read (cp semantics), once per run', () => {
  test(
    "a try reads DEST as the run's first did (TransferRequest.destIsDir) and says how it read it",
    { timeout: 60_000 },
    async () => {
      const tree = path.join(local, 'dest-tree');
      fs.mkdirSync(tree, { recursive: true });
      fs.writeFileSync(path.join(tree, 'x.txt'), 'x');
      const made = path.join(server.root, 'made-by-first-try');
      fs.mkdirSync(made, { recursive: true });
      const told: boolean[] = [];
      // The first try found no DEST and created it: the tree is DEST itself, even though DEST is a folder now.
      const retried = await put({
        sources: [tree],
        dest: made,
        destIsDir: false,
        onDestination: (isDir) => told.push(isDir),
      });
      assert.deepEqual(retried.report.failed, []);
      assert.equal(fs.readFileSync(path.join(made, 'x.txt'), 'utf8'), 'x', 'the tree is DEST, not put inside it');
      assert.ok(!fs.existsSync(path.join(made, 'dest-tree')));
      // A first try reads DEST as it is: an existing folder the tree goes into.
      const first = await put({ sources: [tree], dest: made, onDestination: (isDir) => told.push(isDir) });
      assert.deepEqual(first.report.failed, []);
      assert.equal(fs.readFileSync(path.join(made, 'dest-tree', 'x.txt'), 'utf8'), 'x');
      assert.deepEqual(told, [false, true], 'each try says how it read DEST, before anything is made there');
    },
  );
});
