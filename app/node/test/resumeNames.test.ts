/**
 * Resume and the queue however a server is named (issue #23 item 16), through the real CLI against a private sshd: a
 * get through a `~/.ssh/config` alias without `user@`, SIGKILLed mid-transfer (slowed by --limit), is resumed by the
 * same download named by its address; `sluice queue add get sftp://alias/…` queues and runs.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { QueueStore } from '../stores/queueStore';
import {
  describeRun, journalledBytes, runCli, sha256File, startCli, startSshd, tempFilesUnder, trustedServerHooks, writeRandomFile,
  waitUntil, type SshdServer,
} from './helpers';

const MiB = 1024 * 1024;
let server: SshdServer;
let work: string;
let knownHosts: string;
let caseNo = 0;
trustedServerHooks(startSshd, 'sluice-resume-names-', (t) => { ({ server, dir: work, knownHosts } = t); });

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
  fs.writeFileSync(path.join(home, '.ssh', 'config'), [
    'Host myserver', '  HostName 127.0.0.1', `  Port ${server.port}`, `  User ${server.user}`, `  IdentityFile ${server.clientKeyPath}`, '',
  ].join('\n'));
  return { home, data, local, remote, env: { HOME: home, SLUICE_HOME: data } };
}

const flags = ['--batch', '--no-agent', '--no-progress'];

describe('resume and the queue key on the server reached, not on how it is named', () => {
  test('a get through an alias without user@, killed, resumes when run again by the server\'s address', { timeout: 120_000 }, async () => {
    const c = freshCase();
    const size = 48 * MiB;
    const remote = path.join(c.remote, 'big.bin');
    const local = path.join(c.local, 'big.bin');
    writeRandomFile(remote, size);
    const first = startCli(['get', '--json', ...flags, '--limit', '4M', `sftp://myserver${remote}`, local], { knownHosts, env: c.env });
    await first.waitForEvent((e) => e.type === 'progress' && (e.bytesDone as number) > 0);
    // The journal is written in batches (every 2 s): kill once it holds a durable range.
    await waitUntil('the journal to hold a durable range', () => journalledBytes(c.data) > 0, 30_000);
    first.child.kill('SIGKILL');
    const killed = await first.result;
    assert.doesNotMatch(killed.stdout + killed.stderr, /cannot record progress/, describeRun(killed));
    assert.equal(tempFilesUnder(c.local).length, 1, 'the partial copy is kept for the next run');

    const second = await runCli(['get', '--json', ...flags, '-i', server.clientKeyPath, `sftp://127.0.0.1:${server.port}${remote}`, local],
      { knownHosts, env: c.env });
    assert.equal(second.code, 0, describeRun(second));
    const resumed = second.report?.resumedBytes ?? 0;
    assert.ok(resumed > 0 && resumed < size, `resumed ${resumed} of ${size} bytes: ${describeRun(second)}`);
    assert.equal(await sha256File(local), await sha256File(remote));
    assert.deepEqual(tempFilesUnder(c.local), [], 'no partial copy left');
  });

  test('queue add get sftp://alias/… is queued on the resolved server and runs', { timeout: 60_000 }, async () => {
    const c = freshCase();
    const remote = path.join(c.remote, 'q.bin');
    writeRandomFile(remote, 300_000);
    const dest = path.join(c.local, 'q.bin');
    let r = await runCli(['queue', 'add', 'get', ...flags, `sftp://myserver${remote}`, dest], { knownHosts, env: c.env });
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
