/**
 * Link faults through the real CLI: a private sshd behind Toxiproxy (bandwidth-capped, so a transfer is
 * under way long enough to be hit). A connection cut mid-transfer (sshd sessions killed, or a TCP reset)
 * ends with exit 1 and a clear message and no file under the final name, both ways; a stalled link is
 * caught by keepalive within a bounded time; SIGINT mid-transfer exits 130 and leaves no file behind. The faults are
 * met with `--retries 1` (no retry: what a try that fails does); retry.test.ts has the runs that try again.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  baseFlags,
  cappedSshdHooks,
  describeRun,
  isProgressWithBytes,
  runCli,
  startCli,
  startScriptedServer,
  tempFilesUnder,
  toxiproxyAvailable,
  urlOf,
  withTrustedServer,
  within,
  writeRandomFile,
  type CappedSshd,
  type CliResult,
  type CliRun,
  type SshdServer,
  type Toxiproxy,
} from './helpers';

const MiB = 1024 * 1024;
/** Bytes per second through the capped proxy (Toxiproxy `bandwidth` rate is in KB/s). */
const RATE_KBPS = 4000;
const FILE_SIZE = 48 * MiB;
/**
 * Through the cap the whole file needs ≈ 12 s; an interrupt must end the CLI well before that. Measured: about
 * 1.5 s for put (its cleanup waits behind at most 24 writes, 6 MiB) and 0.05 s for get; 4.2 s for both while an
 * abort still waited for every outstanding reply.
 */
const PROMPT_EXIT_MS = 3_000;
/** A single try: the failure itself is under test, not the retry after it (retry.test.ts). */
const NO_RETRY = ['--retries', '1'];
/** A failed transfer's message, from the --json report (stderr is empty with --json). */
function failureText(r: CliResult): string {
  return (r.report?.failed ?? []).map((f) => `${f.code}: ${f.message}`).join('\n') + r.stderr;
}

const skipReason = toxiproxyAvailable() ? false : 'toxiproxy-server not installed (/usr/local/bin/toxiproxy-server)';

let sshd: SshdServer;
let toxi: Toxiproxy;
let work: string;
let newProxy: CappedSshd['cappedProxy'];
let bigLocal: string;
let bigRemote: string;

cappedSshdHooks('sluice-faults-', skipReason, (c) => {
  ({ sshd, toxi, dir: work, cappedProxy: newProxy } = c);
  bigLocal = path.join(work, 'big.bin');
  writeRandomFile(bigLocal, FILE_SIZE);
  bigRemote = path.join(sshd.root, 'remote-big.bin');
  fs.copyFileSync(bigLocal, bigRemote);
});

/**
 * A fresh proxy in front of sshd, capped in the direction the data flows; returns its name, port and a known_hosts
 * file.
 */
function cappedProxy(direction: 'put' | 'get'): Promise<{ name: string; port: number; knownHosts: string }> {
  return newProxy(direction === 'put' ? 'upstream' : 'downstream', RATE_KBPS);
}

/** Starts a put (of big.bin to `remoteName`) or get (of remote-big.bin to `localTarget`) through the proxy. */
function startTransfer(
  direction: 'put' | 'get',
  port: number,
  knownHosts: string,
  target: string,
  extra: string[] = [],
): CliRun {
  const via = { ...sshd, port };
  const args =
    direction === 'put'
      ? ['put', '--json', ...baseFlags(sshd), ...extra, bigLocal, urlOf(via, target)]
      : ['get', '--json', ...baseFlags(sshd), ...extra, urlOf(via, bigRemote), target];
  return startCli(args, { knownHosts, timeoutMs: 60_000 });
}

describe('connection faults mid-transfer', { skip: skipReason }, () => {
  test('upload: sshd sessions killed mid-transfer → exit 1, clear message, nothing under the final name', async () => {
    const { port, knownHosts } = await cappedProxy('put');
    const target = path.join(sshd.root, 'cut-upload.bin');
    const run = startTransfer('put', port, knownHosts, target, NO_RETRY);
    await run.waitForEvent(isProgressWithBytes);
    assert.ok((await sshd.killSessions()) >= 1, 'no sshd session was running');
    const r = await run.result;
    assert.equal(r.code, 1, describeRun(r));
    assert.match(failureText(r), /^CONNECTION_LOST: .*connection.*(lost|closed|reset)/i, describeRun(r));
    assert.equal(fs.existsSync(target), false, 'a partial upload exists under the final name');
    // The remote temporary file cannot be removed over a dead connection; it must not carry the final name.
    for (const t of tempFilesUnder(sshd.root)) {
      assert.match(path.basename(t), /^\.cut-upload\.bin\.sluice-[0-9a-f]{8}\.part$/);
      fs.rmSync(t);
    }
  });

  test('download: TCP reset mid-transfer → exit 1, clear message, nothing under the final name, no local temp', async () => {
    const { name, port, knownHosts } = await cappedProxy('get');
    const dir = path.join(work, 'cut-download');
    fs.mkdirSync(dir);
    // --no-resume, as below: with the journal, a checkpoint (every 250 ms) may keep the partial copy for the next run.
    const run = startTransfer('get', port, knownHosts, dir, [...NO_RETRY, '--no-resume']);
    await run.waitForEvent(isProgressWithBytes);
    await toxi.addToxic(name, { type: 'reset_peer', stream: 'downstream', attributes: { timeout: 0 } });
    const r = await run.result;
    assert.equal(r.code, 1, describeRun(r));
    assert.match(failureText(r), /^CONNECTION_LOST: .*connection.*(lost|closed|reset)/i, describeRun(r));
    assert.deepEqual(
      fs.readdirSync(dir),
      [],
      'the download folder must hold neither the final name nor a temporary file',
    );
  });

  test('stalled link (Toxiproxy timeout 0) with --keepalive 500 --keepalive-count 2 → exit 1 within a bounded time', async (t) => {
    const { name, port, knownHosts } = await cappedProxy('get');
    const dir = path.join(work, 'stall');
    fs.mkdirSync(dir);
    // --no-resume: a journalled get keeps its partial copy for the next run once a checkpoint recorded a range (every
    // 250 ms: resume.test.ts); without the journal the copy is removed.
    const run = startTransfer('get', port, knownHosts, dir, [
      ...NO_RETRY,
      '--no-resume',
      '--keepalive',
      '500',
      '--keepalive-count',
      '2',
    ]);
    await run.waitForEvent(isProgressWithBytes);
    const stalledAt = Date.now();
    await toxi.addToxic(name, { type: 'timeout', stream: 'downstream', attributes: { timeout: 0 } });
    await toxi.addToxic(name, { type: 'timeout', stream: 'upstream', attributes: { timeout: 0 } });
    // 2 missed keepalives at 500 ms ≈ 1.5 s; allow scheduling slack on a loaded 2-core CI machine.
    const r = await within('the CLI to give up on a stalled link', 20_000, run.result);
    const detectedMs = Date.now() - stalledAt;
    assert.equal(r.code, 1, describeRun(r));
    assert.ok(detectedMs < 15_000, `stall detected only after ${detectedMs} ms`);
    assert.equal(fs.existsSync(path.join(dir, 'remote-big.bin')), false, 'partial download under the final name');
    assert.deepEqual(tempFilesUnder(dir), [], 'local temporary file left behind');
    await t.test('the message says the link stalled (keepalive)', () => {
      assert.match(failureText(r), /stall|keepalive/i, describeRun(r));
    });
  });
});

/**
 * Sends one SIGINT to a running upload and checks it was cancelled and cleaned up: exit 130 within PROMPT_EXIT_MS,
 * nothing under the final name, no temporary file left (the connection was still up).
 */
async function interruptUpload(run: CliRun, target: string, slowMeans: string): Promise<void> {
  const sent = Date.now();
  run.child.kill('SIGINT');
  const r = await run.result;
  const exitMs = Date.now() - sent;
  assert.equal(r.code, 130, describeRun(r));
  assert.equal(fs.existsSync(target), false, 'interrupted upload exists under the final name');
  assert.deepEqual(tempFilesUnder(sshd.root), [], 'remote temporary file left behind (the connection was still up)');
  assert.ok(exitMs < PROMPT_EXIT_MS, `the CLI exited ${exitMs} ms after SIGINT: ${slowMeans}`);
}

/** With --no-resume an interrupt removes the partial copy (resume.test.ts: by default it is kept for the next run). */
describe('SIGINT mid-transfer', { skip: skipReason }, () => {
  /**
   * One channel, not the automatic pool: on a loaded CI machine the loopback RTT once read 5.1 ms and sized the pool
   * for a slow link (10 channels × sshd's 2 MiB window in flight), and the temporary file's removal then waited
   * ~7 s behind 20 MiB draining through the 4 MB/s cap.
   */
  const ONE_LANE = ['--connections', '1', '--channels', '1', '--no-resume'];

  test('put: exit 130 promptly, nothing under the final name, temporary file removed', async () => {
    const { port, knownHosts } = await cappedProxy('put');
    const target = path.join(sshd.root, 'interrupted-upload.bin');
    const run = startTransfer('put', port, knownHosts, target, ONE_LANE);
    await run.waitForEvent(isProgressWithBytes);
    await interruptUpload(run, target, 'the upload kept running instead of being cancelled');
  });

  test('put on 10 channels: a second SIGINT quits at once (cleanup waits behind 20 MiB); nothing under the final name', async () => {
    const { port, knownHosts } = await cappedProxy('put');
    const target = path.join(sshd.root, 'interrupted-twice.bin');
    const run = startTransfer('put', port, knownHosts, target, [
      '--connections',
      '1',
      '--channels',
      '10',
      '--no-resume',
    ]);
    await run.waitForEvent(isProgressWithBytes);
    run.child.kill('SIGINT');
    // The second SIGINT once the first was taken (the CLI says it is cancelling), not after a guessed delay.
    await run.waitForStderr(/interrupted: stopping the transfer/);
    const sent = Date.now();
    run.child.kill('SIGINT');
    const r = await run.result;
    const exitMs = Date.now() - sent;
    assert.equal(r.code, 130, describeRun(r));
    assert.match(r.stderr, /interrupted: stopping the transfer \(Ctrl-C again/, describeRun(r));
    assert.match(r.stderr, /interrupted again: quitting without cleanup/, describeRun(r));
    assert.ok(exitMs < PROMPT_EXIT_MS, `the CLI exited ${exitMs} ms after the second SIGINT`);
    assert.equal(fs.existsSync(target), false, 'interrupted upload exists under the final name');
    // What may remain is the temporary file, under its own name; the sshd root is shared with later tests.
    for (const t of tempFilesUnder(sshd.root)) {
      assert.match(path.basename(t), /^\.interrupted-twice\.bin\.sluice-[0-9a-f]{8}\.part$/);
      fs.rmSync(t);
    }
  });

  test('put on 10 channels, once its data in flight is sized to the link: one SIGINT cancels and cleans up promptly', async () => {
    const { port, knownHosts } = await cappedProxy('put');
    const target = path.join(sshd.root, 'interrupted-late.bin');
    const src = path.join(work, 'eighty.bin');
    writeRandomFile(src, 80 * MiB);
    const run = startCli(
      [
        'put',
        '--json',
        ...baseFlags(sshd),
        '--connections',
        '1',
        '--channels',
        '10',
        '--no-resume',
        src,
        urlOf({ ...sshd, port }, target),
      ],
      { knownHosts, timeoutMs: 90_000 },
    );
    // By 36 of 80 MiB (~9 s at 4 MB/s) the first burst (up to 32 MiB: 10 channels × sshd's 2 MiB window, and more
    // queued in ssh2) has drained and the budget holds ~1 s of data, where 10 channels would otherwise keep 20 MiB
    // or more in flight (5 s at 4 MB/s) until the last segments.
    await run.waitForEvent((e) => e.type === 'progress' && typeof e.bytesDone === 'number' && e.bytesDone >= 36 * MiB);
    await interruptUpload(run, target, 'its cleanup waited behind the data in flight');
    fs.rmSync(src);
  });

  test('get: exit 130 promptly, nothing under the final name, temporary file removed', async () => {
    const { port, knownHosts } = await cappedProxy('get');
    const dir = path.join(work, 'interrupted');
    fs.mkdirSync(dir);
    const run = startTransfer('get', port, knownHosts, path.join(dir, 'copy.bin'), ONE_LANE);
    await run.waitForEvent(isProgressWithBytes);
    const sent = Date.now();
    run.child.kill('SIGINT');
    const r = await run.result;
    const exitMs = Date.now() - sent;
    assert.equal(r.code, 130, describeRun(r));
    assert.deepEqual(fs.readdirSync(dir), [], 'the download folder must be empty after an interrupt');
    assert.ok(
      exitMs < PROMPT_EXIT_MS,
      `the CLI exited ${exitMs} ms after SIGINT: the download kept running instead of being cancelled`,
    );
  });
});

describe('SFTP-level faults (scripted ssh2 server)', () => {
  test('the server drops the TCP connection after 1 MiB of an upload → exit 1, nothing under the final name', async () => {
    await withTrustedServer(
      () => startScriptedServer({ overrides: { dropAfterBytes: MiB } }),
      'sluice-drop-',
      async ({ server, dir, knownHosts }) => {
        const src = path.join(dir, 'four-mib.bin');
        writeRandomFile(src, 4 * MiB);
        const target = path.join(server.root, 'dropped.bin');
        const r = await runCli(['put', '--json', ...baseFlags(server), ...NO_RETRY, src, urlOf(server, target)], {
          knownHosts,
          timeoutMs: 30_000,
        });
        assert.equal(r.code, 1, describeRun(r));
        assert.match(failureText(r), /^CONNECTION_LOST: /, describeRun(r));
        assert.equal(fs.existsSync(target), false, 'a partial upload exists under the final name');
      },
    );
  });

  test('the SFTP server stops answering (SSH keepalives still answered) → the CLI fails within a bounded time', async () => {
    await withTrustedServer(
      () => startScriptedServer({ overrides: { stallAfterBytes: MiB } }),
      'sluice-sftp-stall-',
      async ({ server, dir, knownHosts }) => {
        writeRandomFile(path.join(server.root, 'big.bin'), 8 * MiB);
        const r = await runCli(
          [
            'get',
            ...baseFlags(server),
            ...NO_RETRY,
            '--keepalive',
            '500',
            '--keepalive-count',
            '2',
            urlOf(server, path.join(server.root, 'big.bin')),
            dir,
          ],
          { knownHosts, timeoutMs: 8_000 },
        );
        assert.equal(r.code, 1, describeRun(r));
        assert.match(r.stderr, /stall|no reply|not answering/i, describeRun(r));
        assert.equal(fs.existsSync(path.join(dir, 'big.bin')), false);
      },
    );
  });
});
