/**
 * `sluice sync SRC DEST` running its plan against a private sshd, both directions: the trees end identical (hashes)
 * with the source's times, a second run copies nothing and rewrites nothing (inodes kept), `--delete` removes what
 * SRC lacks, `--max-delete` refuses and changes nothing, `--backup-dir` keeps what is deleted or replaced, and
 * `--dry-run` changes nothing (listings and times of both trees); Ctrl-C ends a run with 130 and keeps its batch.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { QUEUE_DB_FILE } from '../stores/queueDb';
import { QueueStore } from '../stores/queueStore';
import { describeRun, runCli, sshdWithKnownHosts, startCli, treeOf, type SshdServer } from './helpers';
import { startCliInTerminal } from './terminal';

let sshd: SshdServer;
let local: string;
let knownHosts: string;
let stop: () => Promise<void>;
const T = new Date('2024-05-01T12:00:00Z');

before(async () => {
  ({ server: sshd, local, knownHosts, stop } = await sshdWithKnownHosts('sluice-cli-syncrun-'));
});
after(async () => {
  await stop?.();
});

const remote = (p: string): string => `sftp://${sshd.user}@127.0.0.1:${sshd.port}${p}`;
const flags = (): string[] => ['--batch', '--no-agent', '-i', sshd.clientKeyPath];

/** Writes a file with a fixed time (seconds apart per `offsetS`). */
function write(root: string, rel: string, text: string, offsetS = 0): void {
  const p = path.join(root, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
  const t = new Date(T.getTime() + offsetS * 1000);
  fs.utimesSync(p, t, t);
}

/** Relative path -> [inode, mtime in whole seconds] of every file below `root`. */
function inodes(root: string): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  const walk = (dir: string, rel: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      const st = fs.statSync(path.join(dir, e.name));
      if (e.isDirectory()) walk(path.join(dir, e.name), r);
      else out.set(r, [st.ino, Math.trunc(st.mtimeMs / 1000)]);
    }
  };
  walk(root, '');
  return out;
}

function seedTree(root: string): void {
  write(root, 'index.html', '<h1>new</h1>');
  write(root, 'css/site.css', 'body{}', 5);
  write(root, 'img/a/logo.png', 'png'.repeat(1000), 7);
  write(root, 'docs/deep/er/readme.txt', 'read me', 9);
  fs.mkdirSync(path.join(root, 'empty/inner'), { recursive: true });
}

for (const direction of ['put', 'get'] as const) {
  test(`sync ${direction}: trees identical with times kept; a second run copies and rewrites nothing`, async () => {
    const base = path.join(sshd.root, `two-${direction}`);
    const l = path.join(local, `two-${direction}`);
    const [srcDir, destDir] = direction === 'put' ? [l, base] : [base, l];
    seedTree(srcDir);
    write(destDir, 'index.html', '<h1>old</h1>!');
    write(destDir, 'stale.txt', 'only in DEST');
    const [src, dest] = direction === 'put' ? [l, remote(base)] : [remote(base), l];
    const first = await runCli(['sync', '--delete', ...flags(), src, dest], { knownHosts });
    assert.equal(first.code, 0, describeRun(first));
    assert.match(first.stderr, /sync: 4 files to copy .*, 8 folders to create, 1 path to delete/);
    assert.deepEqual(await treeOf(destDir), await treeOf(srcDir));
    const srcTimes = [...inodes(srcDir)].map(([r, [, t]]) => [r, t]);
    assert.deepEqual(
      [...inodes(destDir)].map(([r, [, t]]) => [r, t]),
      srcTimes,
      'every file has its source time',
    );
    const before = inodes(destDir);
    const again = await runCli(['sync', '--delete', '--json', ...flags(), src, dest], { knownHosts });
    assert.equal(again.code, 0, describeRun(again));
    assert.equal(again.events.filter((e) => e.type === 'file').length, 0, 'no file moved on the second run');
    assert.deepEqual(inodes(destDir), before, 'no file rewritten');
    const plan = (again.events as Array<Record<string, unknown>>).find((e) => e.type === 'plan') as
      { dryRun: boolean; totals: { same: { files: number } } } | undefined;
    assert.equal(plan?.dryRun, false, 'the run prints its plan first under --json');
    assert.equal(plan?.totals.same.files, 4);
  });
}

test('a plan with nothing to do opens no queue database; an empty SRC still makes the missing DEST', async () => {
  const srcDir = path.join(local, 'noop-src');
  const destDir = path.join(sshd.root, 'noop-dest');
  const home = path.join(local, 'noop-home');
  fs.mkdirSync(srcDir, { recursive: true });
  const env = { SLUICE_HOME: home };
  const first = await runCli(['sync', '--delete', ...flags(), srcDir, remote(destDir)], { knownHosts, env });
  assert.equal(first.code, 0, describeRun(first));
  assert.equal(fs.statSync(destDir).isDirectory(), true, 'an empty SRC makes the missing DEST folder');
  write(srcDir, 'a/b.txt', 'b');
  const copy = await runCli(['sync', '--delete', ...flags(), srcDir, remote(destDir)], { knownHosts, env });
  assert.equal(copy.code, 0, describeRun(copy));
  // A queue database that cannot be opened: any run that books a batch fails on it, a no-op run never reads it.
  fs.rmSync(path.join(home, QUEUE_DB_FILE), { force: true });
  fs.mkdirSync(path.join(home, QUEUE_DB_FILE), { recursive: true });
  const noop = await runCli(['sync', '--delete', '--json', ...flags(), srcDir, remote(destDir)], { knownHosts, env });
  assert.equal(noop.code, 0, describeRun(noop));
  assert.deepEqual(
    (noop.events as Array<Record<string, unknown>>).filter((e) => e.type === 'sync' || e.type === 'file'),
    [{ type: 'sync', state: 'done', deleted: 0, moved: 0 }],
  );
  const plain = await runCli(['sync', '--delete', ...flags(), srcDir, remote(destDir)], { knownHosts, env });
  assert.equal(plain.code, 0, describeRun(plain));
  assert.match(plain.stderr, /^sluice: sync: nothing to copy or delete$/m);
  write(srcDir, 'c.txt', 'c');
  const booked = await runCli(['sync', '--delete', ...flags(), srcDir, remote(destDir)], { knownHosts, env });
  assert.notEqual(booked.code, 0, 'a run with a copy books it in the queue database');
});

test('--max-delete below the deletions: refused, nothing done; --dry-run changes nothing', async () => {
  const srcDir = path.join(local, 'max-src');
  const destDir = path.join(sshd.root, 'max-dest');
  seedTree(srcDir);
  for (const n of ['x', 'y', 'z']) write(destDir, `${n}.old`, n);
  const snapshot = async () => [await treeOf(destDir), inodes(destDir), await treeOf(srcDir), inodes(srcDir)];
  const before = await snapshot();
  const max = await runCli(['sync', '--delete', '--max-delete', '2', ...flags(), srcDir, remote(destDir)], {
    knownHosts,
  });
  assert.equal(max.code, 2, describeRun(max));
  assert.match(max.stderr, /the plan deletes 3 paths, more than --max-delete 2: nothing is done/);
  assert.deepEqual(await snapshot(), before, 'nothing changed on either side');
  const dry = await runCli(['sync', '-n', '--delete', ...flags(), srcDir, remote(destDir)], { knownHosts });
  assert.equal(dry.code, 0, describeRun(dry));
  assert.match(dry.stdout, /delete {2}x\.old/);
  assert.deepEqual(await snapshot(), before, 'the dry run changed nothing');
  const ok = await runCli(['sync', '--delete', '--max-delete', '3', ...flags(), srcDir, remote(destDir)], {
    knownHosts,
  });
  assert.equal(ok.code, 0, describeRun(ok));
  assert.deepEqual(await treeOf(destDir), await treeOf(srcDir));
});

test('--backup-dir: deleted and replaced files are moved there with their paths, not removed', async () => {
  const srcDir = path.join(local, 'bk-src');
  const destDir = path.join(sshd.root, 'bk-dest');
  const backup = path.join(sshd.root, 'bk-saved');
  write(srcDir, 'keep.txt', 'same');
  write(destDir, 'keep.txt', 'same');
  write(srcDir, 'sub/changed.txt', 'new text', 60);
  write(destDir, 'sub/changed.txt', 'old text');
  write(destDir, 'gone/old.txt', 'deleted');
  const r = await runCli(['sync', '--delete', '--backup-dir', backup, ...flags(), srcDir, remote(destDir)], {
    knownHosts,
  });
  assert.equal(r.code, 0, describeRun(r));
  assert.deepEqual(await treeOf(destDir), await treeOf(srcDir));
  assert.equal(fs.readFileSync(path.join(backup, 'sub/changed.txt'), 'utf8'), 'old text');
  assert.equal(fs.readFileSync(path.join(backup, 'gone/old.txt'), 'utf8'), 'deleted');
  assert.match(r.stderr, /1 path deleted, 1 file moved to/);
});

test('a run at 80 columns: what it will do, the summary, what it deleted; the cursor ends at column 0', async () => {
  const srcDir = path.join(local, 'tty-src');
  const destDir = path.join(sshd.root, 'tty-dest');
  write(srcDir, 'a.txt', 'a'.repeat(1500));
  write(srcDir, 'new/b.txt', 'b');
  write(destDir, 'old.txt', 'old');
  const r = await startCliInTerminal(['sync', '--delete', ...flags(), srcDir, remote(destDir)], {
    knownHosts,
    cols: 80,
    rows: 24,
  }).result;
  assert.equal(r.code, 0, r.raw);
  assert.deepEqual(
    r.lines.filter((l) => l.length > 80),
    [],
  );
  assert.match(r.text, /^sluice: sync: 2 files to copy \(1\.5 KiB\), 1 folder to create, 1 path to delete$/m);
  assert.match(r.text, /^2 files copied, 1\.5 KiB in [\d.]+ s .*verified: size$/m);
  assert.match(r.text, /^sluice: sync: 1 path deleted$/m);
  assert.equal(r.cursor.x, 0, r.text);
  assert.deepEqual(await treeOf(destDir), await treeOf(srcDir));
});

test('Ctrl-C (SIGINT) during a run: exit 130 at once, the batch kept; the same command then finishes it', async () => {
  const srcDir = path.join(local, 'int-src');
  const destDir = path.join(sshd.root, 'int-dest');
  for (let i = 0; i < 6; i++) {
    fs.mkdirSync(srcDir, { recursive: true });
    fs.writeFileSync(path.join(srcDir, `f${i}.bin`), Buffer.alloc(2 * 1024 * 1024, i));
  }
  write(destDir, 'stale.txt', 'stale');
  const home = path.join(local, 'int-home');
  const args = ['sync', '--delete', '--json', '--limit', '2M', ...flags(), srcDir, remote(destDir)];
  const run = startCli(args, { knownHosts, env: { SLUICE_HOME: home } });
  await run.waitForEvent((e) => e.type === 'progress' && (e.bytesDone as number) > 0, 60_000);
  run.child.kill('SIGINT');
  const r = await run.result;
  assert.equal(r.code, 130, describeRun(r));
  assert.equal(fs.readFileSync(path.join(destDir, 'stale.txt'), 'utf8'), 'stale', 'nothing deleted');
  const store = QueueStore.open({ home });
  try {
    assert.ok(store.jobs.count(['paused']) > 0, 'the batch is kept, paused');
  } finally {
    store.close();
  }
  const again = await runCli(
    args.filter((a, i) => a !== '--limit' && args[i - 1] !== '--limit'),
    {
      knownHosts,
      env: { SLUICE_HOME: home },
    },
  );
  assert.equal(again.code, 0, describeRun(again));
  assert.deepEqual(await treeOf(destDir), await treeOf(srcDir));
});

for (const direction of ['put', 'get'] as const) {
  test(`symlinks as ${direction} takes them: a link to a file inside is copied as that file, others left out`, async () => {
    const base = path.join(sshd.root, `links-${direction}`);
    const l = path.join(local, `links-${direction}`);
    const [srcDir, destDir] = direction === 'put' ? [l, base] : [base, l];
    write(srcDir, 'real.txt', 'the content');
    write(local, `outside-${direction}.txt`, 'outside');
    fs.mkdirSync(path.join(srcDir, 'dir'), { recursive: true });
    fs.symlinkSync('real.txt', path.join(srcDir, 'inside-link'));
    fs.symlinkSync(path.join(local, `outside-${direction}.txt`), path.join(srcDir, 'outside-link'));
    fs.symlinkSync('dir', path.join(srcDir, 'folder-link'));
    const [src, dest] = direction === 'put' ? [l, remote(base)] : [remote(base), l];
    const r = await runCli(['sync', '-v', ...flags(), src, dest], { knownHosts });
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(fs.readFileSync(path.join(destDir, 'inside-link'), 'utf8'), 'the content');
    assert.equal(fs.lstatSync(path.join(destDir, 'inside-link')).isFile(), true, 'copied as a file');
    assert.equal(fs.existsSync(path.join(destDir, 'outside-link')), false);
    assert.equal(fs.existsSync(path.join(destDir, 'folder-link')), false);
    assert.match(
      r.stderr,
      /left out outside-link: a symlink to .*outside-(put|get)\.txt, outside the folder being synced/,
    );
    assert.match(r.stderr, /left out folder-link: a folder symlink/);
    const again = await runCli(['sync', '--json', ...flags(), src, dest], { knownHosts });
    assert.equal(again.events.filter((e) => e.type === 'file').length, 0, describeRun(again));
  });
}
