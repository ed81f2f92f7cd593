/**
 * `sluice sync --two-way` against a private sshd: the first run only copies (what each side lacks; a file that
 * differs kept both), then changes and deletions on each side reach the other, a file changed on both sides is kept
 * both (the server's copy renamed .conflict-127.0.0.1-…), a third run finds nothing to do; --max-delete refuses and
 * --dry-run changes nothing.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeRun, runCli, sshdWithKnownHosts, startCli, treeOf, writeRandomFile, type SshdServer } from './helpers';

let sshd: SshdServer;
let local: string;
let knownHosts: string;
let stop: () => Promise<void>;
const T = new Date('2024-05-01T12:00:00Z').getTime();

before(async () => {
  ({ server: sshd, local, knownHosts, stop } = await sshdWithKnownHosts('sluice-cli-twoway-'));
});
after(async () => {
  await stop?.();
});

const remote = (p: string): string => `sftp://${sshd.user}@127.0.0.1:${sshd.port}${p}`;
const flags = (): string[] => ['--batch', '--no-agent', '-i', sshd.clientKeyPath, '--no-progress'];

/** Writes a file with a time `offsetS` seconds after T. */
function write(root: string, rel: string, text: string, offsetS = 0): void {
  const p = path.join(root, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
  const t = new Date(T + offsetS * 1000);
  fs.utimesSync(p, t, t);
}
const read = (root: string, rel: string): string => fs.readFileSync(path.join(root, rel), 'utf8');
const names = (root: string): string[] => fs.readdirSync(root).sort();

/** A pair of folders, each test its own, with its own data folder (the stored listing). */
function pair(name: string): { l: string; r: string; run(...extra: string[]): ReturnType<typeof runCli> } {
  const l = path.join(local, `${name}-local`);
  const r = path.join(sshd.root, `${name}-remote`);
  const home = path.join(local, `${name}-home`);
  fs.mkdirSync(l, { recursive: true });
  fs.mkdirSync(r, { recursive: true });
  return {
    l,
    r,
    run: (...extra) =>
      runCli(['sync', '--two-way', ...flags(), ...extra, l, remote(r)], { knownHosts, env: { SLUICE_HOME: home } }),
  };
}

test('two-way: the first run only copies; then changes, deletions and a conflict on each side; then nothing', async () => {
  const { l, r, run } = pair('tw');
  write(l, 'a.txt', 'local a');
  write(l, 'both.txt', 'same');
  write(r, 'both.txt', 'same');
  write(l, 'diff.txt', 'local version');
  write(r, 'diff.txt', 'server version!', 30);
  write(r, 'docs/b.txt', 'server b');
  write(r, 'old/x.txt', 'x');

  const first = await run();
  assert.equal(first.code, 0, describeRun(first));
  assert.match(
    first.stderr,
    /sync --two-way: 1 to upload, 4 to download, 1 conflict \(first run: nothing is deleted\)/,
  );
  assert.match(
    first.stderr,
    /conflict: diff\.txt changed on both sides: the server's copy kept as diff\.conflict-127\.0\.0\.1-\d{8}-\d{6}\.txt/,
  );
  assert.deepEqual(await treeOf(l), await treeOf(r), 'both sides alike after the first run');
  const conflict1 = names(l).find((n) => n.startsWith('diff.conflict-'))!;
  assert.equal(read(l, 'diff.txt'), 'local version', 'the local file keeps its name');
  assert.equal(read(l, conflict1), 'server version!', "the server's copy kept beside it");
  assert.equal(read(r, 'diff.txt'), 'local version');

  // Changes on each side, deletions on each side, and diff.txt changed on both.
  write(l, 'a.txt', 'local a, edited', 60);
  write(l, 'new-here.txt', 'made here', 60);
  fs.rmSync(path.join(l, 'docs'), { recursive: true });
  write(r, 'both.txt', 'edited on the server', 60);
  write(r, 'sub/new-there.txt', 'made there', 60);
  fs.rmSync(path.join(r, conflict1));
  write(l, 'diff.txt', 'second local', 90);
  write(r, 'diff.txt', 'second server edit', 90);

  const second = await run();
  assert.equal(second.code, 0, describeRun(second));
  assert.match(
    second.stderr,
    /2 to upload, 3 to download, 2 to delete on the server, 1 to delete here, 1 conflict\n/,
    describeRun(second),
  );
  assert.equal(read(r, 'a.txt'), 'local a, edited');
  assert.equal(read(r, 'new-here.txt'), 'made here');
  assert.equal(fs.existsSync(path.join(r, 'docs')), false, 'the folder deleted here is deleted on the server');
  assert.equal(read(l, 'both.txt'), 'edited on the server');
  assert.equal(read(l, 'sub/new-there.txt'), 'made there');
  assert.equal(fs.existsSync(path.join(l, conflict1)), false, 'deleted on the server: deleted here');
  assert.equal(read(l, 'diff.txt'), 'second local');
  const conflict2 = names(l).find((n) => n.startsWith('diff.conflict-'))!;
  assert.equal(read(l, conflict2), 'second server edit');
  assert.deepEqual(await treeOf(l), await treeOf(r), 'both sides alike after the second run');

  const third = await run('--json');
  assert.equal(third.code, 0, describeRun(third));
  const head = third.events.find((e) => (e.type as string) === 'two-way-plan') as unknown as {
    counts: Record<string, number>;
    firstRun: boolean;
  };
  assert.equal(head.firstRun, false);
  assert.deepEqual(
    Object.entries(head.counts).filter(([k, n]) => n > 0 && k !== 'same'),
    [],
    'nothing to do on the third run',
  );
  assert.equal(third.events.filter((e) => e.type === 'file').length, 0, 'no file moved');
});

test('two-way: --max-delete refuses and --dry-run changes nothing; deleted here and changed there: the change wins', async () => {
  const { l, r, run } = pair('tw-max');
  for (const n of ['x', 'y', 'z']) write(l, `${n}.txt`, n);
  const first = await run();
  assert.equal(first.code, 0, describeRun(first));
  for (const n of ['x', 'y']) fs.rmSync(path.join(l, `${n}.txt`));
  write(r, 'y.txt', 'y changed on the server', 60);
  fs.rmSync(path.join(l, 'z.txt'));
  write(l, 'keep.txt', 'k');
  const before = [await treeOf(l), await treeOf(r)];
  const max = await run('--max-delete', '1');
  assert.equal(max.code, 2, describeRun(max));
  assert.match(max.stderr, /the plan deletes 2 paths, more than --max-delete 1: nothing is done/);
  const dry = await run('-n');
  assert.equal(dry.code, 0, describeRun(dry));
  assert.match(dry.stdout, /rm remote {2}x\.txt {2}\(deleted here, unchanged on the server\)/);
  assert.match(dry.stdout, /download {3}y\.txt {2}\(changed on the server, deleted here: the change wins\)/);
  assert.deepEqual([await treeOf(l), await treeOf(r)], before, 'neither side changed');
  const ok = await run();
  assert.equal(ok.code, 0, describeRun(ok));
  assert.deepEqual(names(r), ['keep.txt', 'y.txt']);
  assert.deepEqual(names(l), ['keep.txt', 'y.txt']);
  assert.equal(read(l, 'y.txt'), 'y changed on the server');
});

test('two-way killed half-way (SIGKILL): no listing stored; the same command then finishes, one conflict copy', async () => {
  const l = path.join(local, 'tw-kill-local');
  const r = path.join(sshd.root, 'tw-kill-remote');
  const home = path.join(local, 'tw-kill-home');
  fs.mkdirSync(l, { recursive: true });
  fs.mkdirSync(r, { recursive: true });
  for (let i = 0; i < 6; i++) writeRandomFile(path.join(l, `up${i}.bin`), 1024 * 1024);
  for (let i = 0; i < 3; i++) writeRandomFile(path.join(r, `down${i}.bin`), 512 * 1024);
  write(l, 'both.txt', 'local side');
  write(r, 'both.txt', 'server side', 60);
  const operands = [l, remote(r)];
  const env = { SLUICE_HOME: home };
  const args = ['sync', '--two-way', '--json', ...flags()];
  const run = startCli([...args, '--limit', '1M', ...operands], { knownHosts, env });
  await run.waitForEvent((e) => e.type === 'file' && e.state === 'done', 30_000);
  run.child.kill('SIGKILL');
  await run.result;
  assert.equal(fs.existsSync(path.join(home, 'sync-state')), false, 'no stored listing after a killed run');
  const again = await runCli([...args, ...operands], { knownHosts, env });
  assert.equal(again.code, 0, describeRun(again));
  assert.deepEqual(await treeOf(l), await treeOf(r), 'both sides alike');
  const conflicts = names(l).filter((n) => n.includes('.conflict-'));
  assert.equal(conflicts.length, 1, `one conflict copy: ${conflicts.join(', ')}`);
  assert.equal(read(l, conflicts[0]), 'server side');
  assert.equal(read(r, 'both.txt'), 'local side');
  assert.equal(fs.readdirSync(path.join(home, 'sync-state')).length, 1, 'the listing stored once the run completed');
});
