/**
 * Resume and the queue however a server is named (issue #23 item 16), through the real CLI against a private sshd: a
 * get through a `~/.ssh/config` alias without `user@`, SIGKILLed mid-transfer (slowed by --limit), is resumed by the
 * same download named by its address; `sluice queue add get sftp://alias/…` queues and runs. However the destination
 * is named (item 18): an interrupted get's `.part` takes no more disk than its bytes (the preallocation given back),
 * a rerun into `./big.bin` of a get into a symlinked `link/` resumes it, and a run that starts a file over removes
 * the partial copy another interrupted command left.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nativeUnavailableReason } from '../sys/native';
import { QueueStore } from '../stores/queueStore';
import {
  describeRun,
  journalledBytes,
  runCli,
  sha256File,
  startCli,
  startSshd,
  tempFilesUnder,
  trustedServerHooks,
  writeRandomFile,
  waitUntil,
  type SshdServer,
} from './helpers';

const MiB = 1024 * 1024;
let server: SshdServer;
let work: string;
let knownHosts: string;
let caseNo = 0;
trustedServerHooks(startSshd, 'sluice-resume-names-', (t) => {
  ({ server, dir: work, knownHosts } = t);
});

interface Case {
  /** HOME, with ~/.ssh/config naming the server `myserver` (HostName, Port, User, IdentityFile). */
  home: string;
  /** SLUICE_HOME: the journal and the queue. */
  data: string;
  local: string;
  remote: string;
  env: Record<string, string>;
}

function freshCase(): Case {
  const n = ++caseNo;
  const home = path.join(work, `home-${n}`);
  const data = path.join(work, `data-${n}`);
  const local = path.join(work, `local-${n}`);
  const remote = path.join(server.root, `names-${n}`);
  for (const d of [path.join(home, '.ssh'), data, local, remote]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(
    path.join(home, '.ssh', 'config'),
    [
      'Host myserver',
      '  HostName 127.0.0.1',
      `  Port ${server.port}`,
      `  User ${server.user}`,
      `  IdentityFile ${server.clientKeyPath}`,
      '',
    ].join('\n'),
  );
  return { home, data, local, remote, env: { HOME: home, SLUICE_HOME: data } };
}

const flags = ['--batch', '--no-agent', '--no-progress'];

describe('resume and the queue key on the server reached, not on how it is named', () => {
  test(
    "a get through an alias without user@, killed, resumes when run again by the server's address",
    { timeout: 120_000 },
    async () => {
      const c = freshCase();
      const size = 48 * MiB;
      const remote = path.join(c.remote, 'big.bin');
      const local = path.join(c.local, 'big.bin');
      writeRandomFile(remote, size);
      const first = startCli(['get', '--json', ...flags, '--limit', '4M', `sftp://myserver${remote}`, local], {
        knownHosts,
        env: c.env,
      });
      await first.waitForEvent((e) => e.type === 'progress' && (e.bytesDone as number) > 0);
      // The journal is written in batches (every 2 s): kill once it holds a durable range.
      await waitUntil('the journal to hold a durable range', () => journalledBytes(c.data) > 0, 30_000);
      first.child.kill('SIGKILL');
      const killed = await first.result;
      assert.doesNotMatch(killed.stdout + killed.stderr, /cannot record progress/, describeRun(killed));
      assert.equal(tempFilesUnder(c.local).length, 1, 'the partial copy is kept for the next run');

      const second = await runCli(
        ['get', '--json', ...flags, '-i', server.clientKeyPath, `sftp://127.0.0.1:${server.port}${remote}`, local],
        { knownHosts, env: c.env },
      );
      assert.equal(second.code, 0, describeRun(second));
      const resumed = second.report?.resumedBytes ?? 0;
      assert.ok(resumed > 0 && resumed < size, `resumed ${resumed} of ${size} bytes: ${describeRun(second)}`);
      assert.equal(await sha256File(local), await sha256File(remote));
      assert.deepEqual(tempFilesUnder(c.local), [], 'no partial copy left');
    },
  );

  test('queue add get sftp://alias/… is queued on the resolved server and runs', { timeout: 60_000 }, async () => {
    const c = freshCase();
    const remote = path.join(c.remote, 'q.bin');
    writeRandomFile(remote, 300_000);
    const dest = path.join(c.local, 'q.bin');
    let r = await runCli(['queue', 'add', 'get', ...flags, `sftp://myserver${remote}`, dest], {
      knownHosts,
      env: c.env,
    });
    assert.equal(r.code, 0, describeRun(r));
    const store = QueueStore.open({ home: c.data });
    try {
      const [job] = store.jobs.list({ limit: 10 }).jobs;
      assert.deepEqual(job.target, { user: server.user, host: '127.0.0.1', port: server.port });
    } finally {
      store.close();
    }
    r = await runCli(['queue', 'run', '--batch', '--no-progress'], { knownHosts, env: c.env });
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(await sha256File(dest), await sha256File(remote));
  });
});

/** The end of the furthest range the journal under `home` holds, over every file of every job, bytes. */
function furthestRecorded(home: string): number {
  const store = QueueStore.open({ home });
  try {
    const files = store.jobs.list({ limit: 100 }).jobs.flatMap((j) => store.files.list(j.id));
    return Math.max(0, ...files.flatMap((f) => store.journal.ranges(f.id).map(([, end]) => end)));
  } finally {
    store.close();
  }
}

/**
 * Starts a get of `url` into `dest` under --limit and waits until its journal holds a durable range. One channel: the
 * segments go in order (a loaded machine's RTT could otherwise tune it to ten, each recording its own ranges).
 */
async function interruptedGet(c: Case, url: string, dest: string, signal: NodeJS.Signals, cwd?: string) {
  const run = startCli(
    [
      'get',
      '--json',
      ...flags,
      '-i',
      server.clientKeyPath,
      '--limit',
      '4M',
      '--connections',
      '1',
      '--channels',
      '1',
      url,
      dest,
    ],
    { knownHosts, env: c.env, cwd },
  );
  await run.waitForEvent((e) => e.type === 'progress' && (e.bytesDone as number) > 0);
  await waitUntil('the journal to hold a durable range', () => journalledBytes(c.data) > 0, 30_000);
  run.child.kill(signal);
  return run.result;
}

describe('a partial download however its destination is named', () => {
  test(
    'interrupted into link/, its .part holds no more disk than its bytes; run again into /real/big.bin, it resumes',
    { timeout: 120_000 },
    async () => {
      const c = freshCase();
      const size = 48 * MiB;
      const remote = path.join(c.remote, 'big.bin');
      writeRandomFile(remote, size);
      const cwd = path.join(c.home, 'cwd');
      fs.mkdirSync(cwd);
      fs.symlinkSync(c.local, path.join(cwd, 'link'));
      const url = `sftp://127.0.0.1:${server.port}${remote}`;
      const first = await interruptedGet(c, url, 'link/', 'SIGINT', cwd);
      assert.equal(first.code, 130, describeRun(first));
      const [part] = tempFilesUnder(c.local);
      assert.ok(part, `the partial copy is kept: ${describeRun(first)}`);
      const st = fs.statSync(part);
      const recorded = journalledBytes(c.data);
      const moved = Math.max(recorded, ...first.events.map((e) => (e.type === 'progress' ? e.bytesDone : 0)));
      // Created at 48 MiB and preallocated before: now the disk holds what was written, give or take the last progress
      // event's lag and a block's rounding.
      const onDisk = st.blocks * 512;
      // The two segments a lane runs at once each record their moving prefix (#24 item 11): the hole between the
      // first's prefix and the second's start stays reserved (sys/preallocate.ts releaseReservation); past the last
      // record, not.
      const kept = Math.max(moved, furthestRecorded(c.data));
      console.log(
        `# interrupted with ${recorded} bytes recorded up to ${kept}, ${moved} moved: ` +
          `the .part is ${st.size} bytes long, ${onDisk} on disk`,
      );
      assert.ok(st.size >= recorded, 'every recorded byte is kept');
      assert.ok(
        onDisk <= kept + 4 * MiB && st.size <= kept + 4 * MiB,
        `recorded up to ${kept}, the .part is ${st.size} bytes, ${onDisk} on disk` +
          (nativeUnavailableReason() ? ` (no native addon: ${nativeUnavailableReason()})` : ''),
      );
      assert.ok(onDisk < size / 2, `the 48 MiB reservation was given back: ${onDisk} bytes on disk`);

      const second = await runCli(
        ['get', '--json', ...flags, '-i', server.clientKeyPath, url, path.join(c.local, 'big.bin')],
        { knownHosts, env: c.env },
      );
      assert.equal(second.code, 0, describeRun(second));
      const resumed = second.report?.resumedBytes ?? 0;
      assert.ok(
        resumed > 0,
        `the run into the file's own name resumed the run into its folder: ${describeRun(second)}`,
      );
      assert.equal(await sha256File(path.join(c.local, 'big.bin')), await sha256File(remote));
      assert.deepEqual(fs.readdirSync(c.local), ['big.bin'], 'no partial copy beside the file');
    },
  );

  test(
    'a run that starts a file over removes the partial copy another, interrupted command left, and says so',
    { timeout: 120_000 },
    async () => {
      const c = freshCase();
      const remote = path.join(c.remote, 'big.bin');
      const small = path.join(c.remote, 'small.txt');
      writeRandomFile(remote, 48 * MiB);
      fs.writeFileSync(small, 'small');
      const url = (p: string) => `sftp://127.0.0.1:${server.port}${p}`;
      const first = await interruptedGet(c, url(remote), `${c.local}/`, 'SIGKILL');
      assert.equal(first.signal, 'SIGKILL', describeRun(first));
      const [part] = tempFilesUnder(c.local);
      assert.ok(part, 'the killed run left its partial copy');
      // Another command (two sources): its own journal, so big.bin starts over.
      const second = await runCli(
        ['get', '--json', ...flags, '-i', server.clientKeyPath, url(remote), url(small), `${c.local}/`],
        { knownHosts, env: c.env },
      );
      assert.equal(second.code, 0, describeRun(second));
      assert.deepEqual(fs.readdirSync(c.local).sort(), ['big.bin', 'small.txt'], 'the abandoned .part is gone');
      assert.ok(
        second.stdout.includes(`removed the partial copy ${part} `),
        `the run says where it was: ${describeRun(second)}`,
      );
      assert.equal(await sha256File(path.join(c.local, 'big.bin')), await sha256File(remote));
    },
  );
});
