/**
 * Retries through the real CLI (issue #14): a put and a get of a journalled file through a bandwidth-capped Toxiproxy,
 * whose connections are all cut (the proxy disabled) once the journal holds a durable range, run on by themselves —
 * the CLI says it retries, reconnects (the get's first reconnect is refused, as while a server restarts), resumes from
 * the journal and exits 0 with the source's bytes. A permanent failure is not retried. The tests wait for the CLI's
 * events and the journal, never a fixed time.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import {
  baseFlags,
  cappedSshdHooks,
  describeRun,
  isProgressWithBytes,
  journalledBytes,
  runCli,
  sha256File,
  startCli,
  tempFilesUnder,
  toxiproxyAvailable,
  urlOf,
  waitUntil,
  writeRandomFile,
  type CappedSshd,
  type SshdServer,
  type Toxiproxy,
} from './helpers';

const MiB = 1024 * 1024;
/** Journalled (≥ 4 MiB) and cut into 4 MiB segments; ≈ 6 s through the cap, so the cut lands mid-transfer. */
const FILE_SIZE = 24 * MiB;
/** Toxiproxy `bandwidth` rate, KB/s. */
const RATE_KBPS = 4000;

const skipReason = toxiproxyAvailable() ? false : 'toxiproxy-server not installed (/usr/local/bin/toxiproxy-server)';

let sshd: SshdServer;
let toxi: Toxiproxy;
let work: string;
let newProxy: CappedSshd['cappedProxy'];

cappedSshdHooks('sluice-retry-', skipReason, (c) => {
  ({ sshd, toxi, dir: work, cappedProxy: newProxy } = c);
});

/** The `retry` events of a --json run. */
function retriesOf(
  events: ReadonlyArray<{ type: string }>,
): Array<{ attempt: number; of: number; delayMs: number; code: string; message: string; movedBytes: number }> {
  return events.filter((e) => e.type === 'retry') as unknown as ReturnType<typeof retriesOf>;
}

describe('a connection cut mid-transfer: the run retries by itself and completes', { skip: skipReason }, () => {
  for (const direction of ['put', 'get'] as const) {
    test(direction, { timeout: 90_000 }, async () => {
      const stream = direction === 'put' ? 'upstream' : 'downstream';
      const { name, port, knownHosts } = await newProxy(stream, RATE_KBPS);
      const home = path.join(work, `home-${direction}`);
      const local = path.join(work, `${direction}.bin`);
      const remote = path.join(sshd.root, `retry-${direction}.bin`);
      writeRandomFile(direction === 'put' ? local : remote, FILE_SIZE);
      const via = { ...sshd, port };
      const args = [
        direction,
        '--json',
        ...baseFlags(sshd),
        '--segment-size',
        '4M',
        ...(direction === 'put' ? [local, urlOf(via, remote)] : [urlOf(via, remote), local]),
      ];
      const run = startCli(args, { knownHosts, env: { SLUICE_HOME: home }, timeoutMs: 80_000 });

      await run.waitForEvent(isProgressWithBytes);
      await waitUntil('the journal to hold a durable range', () => journalledBytes(home) > 0, 20_000);
      // Disabled, the proxy closes every connection and refuses new ones: the server is gone for a while.
      await toxi.setEnabled(name, false);
      // The put reconnects at its first retry; the get's first reconnect is refused and it tries once more.
      const lastRetry = direction === 'put' ? 2 : 3;
      await run.waitForEvent((e) => e.type === 'retry' && e.attempt === lastRetry, 40_000);
      await toxi.removeToxic(name, `bandwidth_${stream}`);
      await toxi.setEnabled(name, true);
      const r = await run.result;

      assert.equal(r.code, 0, describeRun(r));
      const retries = retriesOf(r.events);
      assert.deepEqual(
        retries.map((e) => [e.attempt, e.of, e.code]),
        [[2, 5, 'CONNECTION_LOST'], ...(lastRetry === 3 ? [[3, 5, 'CONNECTION_REFUSED']] : [])],
        describeRun(r),
      );
      assert.ok(
        retries.every((e) => e.delayMs >= 2000 && e.delayMs <= 60_000 && e.message.length > 0),
        describeRun(r),
      );
      if (lastRetry === 3)
        assert.match(
          retries[1].message,
          /refused/,
          'the second try could not connect (a connection never made: CONNECTION_REFUSED)',
        );
      const resuming = r.events.filter(
        (e) => e.type === 'log' && /^sluice: resuming: /.test(String((e as { message?: string }).message)),
      );
      assert.ok(resuming.length >= 1, `the retry resumes from the journal:\n${describeRun(r)}`);
      const resumed = r.report?.resumedBytes ?? 0;
      assert.ok(resumed > 0 && resumed < FILE_SIZE, `resumed ${resumed} of ${FILE_SIZE} bytes`);
      // The report's movedBytes covers every try: the earlier tries' (in their retry lines) and the last one's, which
      // moved at least what it did not resume.
      const moved = r.report?.movedBytes ?? 0;
      assert.ok(moved >= retries.reduce((n, e) => n + e.movedBytes, FILE_SIZE - resumed), `moved ${moved} B in all`);
      console.log(
        `# ${direction}: ${retries.length} retr${retries.length === 1 ? 'y' : 'ies'}; ${resumed} B resumed; ` +
          `${moved} B moved in all, ${moved - FILE_SIZE} B twice`,
      );
      const target = direction === 'put' ? remote : local;
      assert.equal(await sha256File(target), await sha256File(direction === 'put' ? local : remote), 'identical bytes');
      assert.deepEqual(tempFilesUnder(path.dirname(target)), [], 'no temporary file left');
    });
  }
});

describe('a permanent failure is not retried', { skip: skipReason }, () => {
  test('get of a remote file that does not exist: one try, exit 5, no retry', { timeout: 30_000 }, async () => {
    const { port, knownHosts } = await newProxy('downstream', RATE_KBPS);
    const r = await runCli(
      [
        'get',
        '--json',
        ...baseFlags(sshd),
        urlOf({ ...sshd, port }, path.join(sshd.root, 'no-such.bin')),
        path.join(work, 'x.bin'),
      ],
      { knownHosts, env: { SLUICE_HOME: path.join(work, 'home-missing') }, timeoutMs: 25_000 },
    );
    assert.equal(r.code, 5, describeRun(r));
    assert.deepEqual(retriesOf(r.events), [], describeRun(r));
    const lines = r.events as ReadonlyArray<{ type: string; code?: string }>;
    const codes = [
      ...(r.report?.failed ?? []).map((f) => f.code),
      ...lines.filter((e) => e.type === 'error').map((e) => e.code),
    ];
    assert.ok(codes.includes('NO_SUCH_FILE'), describeRun(r));
    const human = await runCli(
      [
        'get',
        ...baseFlags(sshd),
        urlOf({ ...sshd, port }, path.join(sshd.root, 'no-such.bin')),
        path.join(work, 'x.bin'),
      ],
      { knownHosts, env: { SLUICE_HOME: path.join(work, 'home-missing') }, timeoutMs: 25_000 },
    );
    assert.equal(human.code, 5, describeRun(human));
    assert.doesNotMatch(human.stderr, /retrying/, describeRun(human));
  });
});

describe('sluice queue run retries a group whose connection was cut', { skip: skipReason }, () => {
  test(
    'a queued put: cut once mid-transfer, queued again after the wait, resumed, done',
    { timeout: 90_000 },
    async () => {
      const { name, port, knownHosts } = await newProxy('upstream', RATE_KBPS);
      const home = path.join(work, 'home-queue');
      const local = path.join(work, 'queued.bin');
      const remote = path.join(sshd.root, 'retry-queued.bin');
      writeRandomFile(local, FILE_SIZE);
      const env = { SLUICE_HOME: home };
      const added = await runCli(
        ['queue', 'add', 'put', ...baseFlags(sshd), '--segment-size', '4M', local, urlOf({ ...sshd, port }, remote)],
        { knownHosts, env },
      );
      assert.equal(added.code, 0, describeRun(added));
      const run = startCli(['queue', 'run', '--json'], { knownHosts, env, timeoutMs: 80_000 });
      await run.waitForEvent(isProgressWithBytes);
      await waitUntil('the journal to hold a durable range', () => journalledBytes(home) > 0, 20_000);
      await toxi.setEnabled(name, false);
      await run.waitForEvent((e) => e.type === 'retry', 40_000);
      await toxi.removeToxic(name, 'bandwidth_upstream');
      await toxi.setEnabled(name, true);
      const r = await run.result;
      assert.equal(r.code, 0, describeRun(r));
      const retries = retriesOf(r.events);
      // The cut loses the connection; a try while the proxy is not back yet is refused (CONNECTION_REFUSED, transient).
      assert.ok(retries.length >= 1 && retries[0].code === 'CONNECTION_LOST', describeRun(r));
      assert.ok(
        retries.every((e) => ['CONNECTION_LOST', 'CONNECTION_REFUSED'].includes(e.code) && e.of === 5),
        describeRun(r),
      );
      const reports = r.events.filter((e) => e.type === 'report') as unknown as Array<{ resumedBytes?: number }>;
      assert.ok(
        (reports.at(-1)?.resumedBytes ?? 0) > 0,
        `the try after the cut resumed from the journal\n${describeRun(r)}`,
      );
      assert.equal(await sha256File(remote), await sha256File(local), 'identical bytes');
      assert.deepEqual(tempFilesUnder(path.dirname(remote)), [], 'no temporary file left');
      const list = await runCli(['queue', 'list', '--json'], { knownHosts, env });
      assert.match(list.stdout, /"state":"done"/);
    },
  );
});
