/**
 * `sluice queue` against a private sshd (issue #14): add, list, run, clear; pause, resume, cancel and retry, from the
 * command line and while another process runs the queue (a paused job keeps its partial copy and resumes from it).
 * Every case has its own SLUICE_HOME (its own queue.db).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  baseFlags,
  describeRun,
  journalledBytes,
  runCli,
  sha256File,
  startCli,
  startTestServer,
  tempFilesUnder,
  trustedServerHooks,
  urlOf,
  waitUntil,
  writeRandomFile,
  type CliResult,
  type SshServer,
} from './helpers';

let server: SshServer;
let work: string;
let knownHosts: string;
let caseNo = 0;
trustedServerHooks(startTestServer, 'sluice-queue-', (t) => {
  ({ server, dir: work, knownHosts } = t);
});

interface Case {
  local: string;
  remote: string;
  q(args: string[], timeoutMs?: number): Promise<CliResult>;
  home: string;
}

/** A fresh case: local and remote folders and a queue database of its own. */
function freshCase(): Case {
  const n = ++caseNo;
  const local = path.join(work, `case-${n}`);
  const remote = path.join(server.root, `qcase-${n}`);
  const home = path.join(work, `home-${n}`);
  for (const d of [local, remote, home]) fs.mkdirSync(d);
  const q = (args: string[], timeoutMs?: number) =>
    runCli(['queue', ...args], { knownHosts, env: { SLUICE_HOME: home }, timeoutMs });
  return { local, remote, q, home };
}

interface JobLine {
  id: string;
  state: string;
  source: string;
  bytesDone: number;
  bytesTotal: number;
  error?: { code: string; message: string };
}

async function jobs(c: Case): Promise<JobLine[]> {
  const r = await c.q(['list', '--json']);
  assert.equal(r.code, 0, describeRun(r));
  return r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as JobLine);
}

const addFlags = () => baseFlags(server);

describe('sluice queue', () => {
  test('add put and get, list, run until empty, clear', async () => {
    const c = freshCase();
    fs.writeFileSync(path.join(c.local, 'a.txt'), 'alpha');
    fs.mkdirSync(path.join(c.local, 'tree', 'sub'), { recursive: true });
    writeRandomFile(path.join(c.local, 'tree', 'sub', 'big.bin'), 6 * 1024 * 1024);
    fs.writeFileSync(path.join(c.remote, 'remote.txt'), 'from the server');
    let r = await c.q([
      'add',
      'put',
      ...addFlags(),
      '-r',
      path.join(c.local, 'a.txt'),
      path.join(c.local, 'tree'),
      urlOf(server, `${c.remote}/`),
    ]);
    assert.equal(r.code, 0, describeRun(r));
    assert.match(r.stderr, /queued 2 jobs/);
    r = await c.q([
      'add',
      'get',
      ...addFlags(),
      urlOf(server, `${c.remote}/remote.txt`),
      path.join(c.local, 'down.txt'),
    ]);
    assert.equal(r.code, 0, describeRun(r));
    assert.deepEqual(
      (await jobs(c)).map((j) => j.state),
      ['queued', 'queued', 'queued'],
    );
    r = await c.q(['list']);
    assert.match(r.stdout, /queued +put .*a\.txt → sftp:\/\//);

    r = await c.q(['run', '--no-progress']);
    assert.equal(r.code, 0, describeRun(r));
    assert.deepEqual(
      (await jobs(c)).map((j) => j.state),
      ['done', 'done', 'done'],
    );
    assert.equal(fs.readFileSync(path.join(c.remote, 'a.txt'), 'utf8'), 'alpha');
    assert.equal(
      await sha256File(path.join(c.remote, 'tree', 'sub', 'big.bin')),
      await sha256File(path.join(c.local, 'tree', 'sub', 'big.bin')),
    );
    assert.equal(fs.readFileSync(path.join(c.local, 'down.txt'), 'utf8'), 'from the server');

    r = await c.q(['run', '--no-progress']);
    assert.equal(r.code, 0, 'an empty queue runs nothing and succeeds');
    r = await c.q(['clear']);
    assert.match(r.stderr, /cleared 3 finished job/);
    assert.deepEqual(await jobs(c), []);
  });

  test('queue add --conflict size: the run applies the rule the job was added with', async () => {
    const c = freshCase();
    fs.writeFileSync(path.join(c.local, 'same.txt'), 'AAAA');
    fs.writeFileSync(path.join(c.remote, 'same.txt'), 'bbbb');
    fs.writeFileSync(path.join(c.local, 'differs.txt'), 'longer text');
    fs.writeFileSync(path.join(c.remote, 'differs.txt'), 'short');
    let r = await c.q([
      'add',
      'put',
      ...addFlags(),
      '--conflict',
      'size',
      path.join(c.local, 'same.txt'),
      path.join(c.local, 'differs.txt'),
      urlOf(server, `${c.remote}/`),
    ]);
    assert.equal(r.code, 0, describeRun(r));
    r = await c.q(['run', '--no-progress', '--json']);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(fs.readFileSync(path.join(c.remote, 'same.txt'), 'utf8'), 'bbbb', 'the same size is skipped');
    assert.equal(fs.readFileSync(path.join(c.remote, 'differs.txt'), 'utf8'), 'longer text');
    assert.ok(
      r.events.some((e) => e.type === 'file' && e.state === 'skipped' && e.reason === 'same size (4 bytes)'),
      describeRun(r),
    );
  });

  test('pause, resume, cancel and retry by id; a paused job is not run; a failed job says why and exits as get would', async () => {
    const c = freshCase();
    fs.writeFileSync(path.join(c.local, 'one.txt'), 'one');
    fs.writeFileSync(path.join(c.local, 'two.txt'), 'two');
    await c.q(['add', 'put', ...addFlags(), path.join(c.local, 'one.txt'), urlOf(server, `${c.remote}/`)]);
    await c.q(['add', 'put', ...addFlags(), path.join(c.local, 'two.txt'), urlOf(server, `${c.remote}/`)]);
    await c.q(['add', 'get', ...addFlags(), urlOf(server, `${c.remote}/missing.bin`), `${c.local}/`]);
    const [one, two, missing] = await jobs(c);
    let r = await c.q(['pause', one.id.slice(0, 8)]);
    assert.equal(r.code, 0, describeRun(r));
    r = await c.q(['cancel', two.id]);
    assert.equal(r.code, 0, describeRun(r));
    r = await c.q(['resume', two.id]);
    assert.equal(r.code, 1, 'a cancelled job is not resumed (retry is for that)');
    assert.match(r.stderr, /cancelled, cannot become queued/);

    r = await c.q(['run', '--no-progress']);
    assert.equal(r.code, 5, `remote not found exits 5 as get does\n${describeRun(r)}`);
    let states = await jobs(c);
    assert.deepEqual(
      states.map((j) => j.state),
      ['paused', 'cancelled', 'failed'],
    );
    assert.match(states[2].error?.message ?? '', /missing\.bin/);
    assert.ok(!fs.existsSync(path.join(c.remote, 'one.txt')) && !fs.existsSync(path.join(c.remote, 'two.txt')));

    r = await c.q(['resume', one.id]);
    assert.equal(r.code, 0, describeRun(r));
    r = await c.q(['retry', two.id]);
    assert.equal(r.code, 0, describeRun(r));
    r = await c.q(['run', '--no-progress']);
    assert.equal(r.code, 0, describeRun(r));
    states = await jobs(c);
    assert.deepEqual(
      states.map((j) => j.state),
      ['done', 'done', 'failed'],
    );
    assert.equal(states.find((j) => j.id === missing.id)?.state, 'failed');
    assert.equal(fs.readFileSync(path.join(c.remote, 'two.txt'), 'utf8'), 'two');
  });

  test('a job paused while another process runs it stops, keeps its partial copy, and resumes from it', async () => {
    const c = freshCase();
    const src = path.join(c.local, 'slow.bin');
    const size = 24 * 1024 * 1024;
    writeRandomFile(src, size);
    // 1 MiB segments: each is recorded at the next checkpoint (every 2 s), so a pause after 3 s has some on record.
    await c.q([
      'add',
      'put',
      ...addFlags(),
      '--limit',
      '2M',
      '--segment-size',
      '1M',
      src,
      urlOf(server, `${c.remote}/`),
    ]);
    const [job] = await jobs(c);
    const run = startCli(['queue', 'run', '--json'], { knownHosts, env: { SLUICE_HOME: c.home }, timeoutMs: 60_000 });
    await run.waitForEvent((e) => e.type === 'progress' && (e.bytesDone as number) > 0, 30_000);
    await waitUntil('the journal to hold a durable range', () => journalledBytes(c.home) > 0, 30_000);
    const paused = await c.q(['pause', job.id.slice(0, 8)]);
    assert.equal(paused.code, 0, describeRun(paused));
    const first = await run.result;
    assert.equal(first.code, 0, `a paused job is not a failure\n${describeRun(first)}`);
    const [after] = await jobs(c);
    assert.equal(after.state, 'paused');
    assert.ok(after.bytesDone > 0, `the journal kept durable ranges (bytesDone ${after.bytesDone})`);
    assert.equal(tempFilesUnder(c.remote).length, 1, 'the partial copy is kept on the server');

    assert.equal((await c.q(['resume', '--all'])).code, 0);
    const second = await c.q(['run', '--json', '--limit', '0'], 60_000);
    assert.equal(second.code, 0, describeRun(second));
    const sent = second.events.filter((e) => e.type === 'progress').map((e) => (e as { bytesDone: number }).bytesDone);
    assert.ok(Math.max(0, ...sent) <= size, 'progress never exceeds the file');
    assert.equal(await sha256File(path.join(c.remote, 'slow.bin')), await sha256File(src));
    assert.deepEqual(tempFilesUnder(c.remote), []);
    assert.equal((await jobs(c))[0].state, 'done');
  });

  test('cancel of a paused upload removes its remote partial copy at the next connection', async () => {
    const c = freshCase();
    const src = path.join(c.local, 'gone.bin');
    writeRandomFile(src, 16 * 1024 * 1024);
    fs.writeFileSync(path.join(c.local, 'later.txt'), 'later');
    await c.q([
      'add',
      'put',
      ...addFlags(),
      '--limit',
      '2M',
      '--segment-size',
      '1M',
      src,
      urlOf(server, `${c.remote}/`),
    ]);
    const [job] = await jobs(c);
    const run = startCli(['queue', 'run', '--json'], { knownHosts, env: { SLUICE_HOME: c.home }, timeoutMs: 60_000 });
    await run.waitForEvent((e) => e.type === 'progress' && (e.bytesDone as number) > 0, 30_000);
    await waitUntil('the journal to hold a durable range', () => journalledBytes(c.home) > 0, 30_000);
    await c.q(['pause', job.id]);
    assert.equal((await run.result).code, 0);
    assert.equal(tempFilesUnder(c.remote).length, 1);
    const cancelled = await c.q(['cancel', job.id]);
    assert.match(cancelled.stderr, /1 remote partial file will be removed at the next connection/);
    await c.q(['add', 'put', ...addFlags(), path.join(c.local, 'later.txt'), urlOf(server, `${c.remote}/`)]);
    const r = await c.q(['run', '--no-progress']);
    assert.equal(r.code, 0, describeRun(r));
    assert.deepEqual(fs.readdirSync(c.remote), ['later.txt'], 'the partial copy is gone, the next job arrived');
  });

  test('a local disk that fills: the job fails "local disk full: PATH", nothing is left half-written; after space is freed, retry completes it', async (t) => {
    const c = freshCase();
    const mnt = path.join(c.local, 'small-disk');
    fs.mkdirSync(mnt);
    const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'sluice-queue-tmpfs', mnt], { encoding: 'utf8' });
    if (mount.status !== 0) {
      t.skip(`cannot mount a tmpfs here: ${mount.stderr.trim()}`);
      return;
    }
    try {
      const remoteFile = path.join(c.remote, 'six.bin');
      writeRandomFile(remoteFile, 6 * 1024 * 1024);
      await c.q(['add', 'get', ...addFlags(), urlOf(server, remoteFile), `${mnt}/`]);
      let r = await c.q(['run', '--no-progress']);
      assert.equal(r.code, 6, `disk full exits 6 as get does\n${describeRun(r)}`);
      const [failed] = await jobs(c);
      assert.equal(failed.state, 'failed');
      assert.equal(failed.error?.code, 'DISK_FULL');
      assert.match(failed.error?.message ?? '', new RegExp(`Local disk full: ${mnt}/six\\.bin`));
      assert.deepEqual(fs.readdirSync(mnt), [], 'neither the final name nor a temporary file is left on the full disk');

      const grow = spawnSync('mount', ['-o', 'remount,size=16m', mnt], { encoding: 'utf8' });
      assert.equal(grow.status, 0, grow.stderr);
      assert.equal((await c.q(['retry', failed.id])).code, 0);
      r = await c.q(['run', '--no-progress']);
      assert.equal(r.code, 0, describeRun(r));
      assert.equal(await sha256File(path.join(mnt, 'six.bin')), await sha256File(remoteFile));
      assert.equal((await jobs(c))[0].state, 'done');
    } finally {
      const un = spawnSync('umount', [mnt], { encoding: 'utf8' });
      assert.equal(un.status, 0, `umount ${mnt}: ${un.stderr}`);
    }
  });
});
