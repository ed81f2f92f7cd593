/**
 * SIGTERM and SIGHUP through the real CLI, handled like Ctrl-C: an upload through a bandwidth-capped Toxiproxy (so
 * it is still running when the signal comes) is cancelled, its temporary file removed, nothing left under the final
 * name, and the CLI exits 128 + the signal's number (143, 129); "transfer interrupted" is said once. The tests wait
 * for the upload's first progress event or its temporary file, never a fixed time.
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
  startCli,
  tempFilesUnder,
  toxiproxyAvailable,
  urlOf,
  waitUntil,
  writeRandomFile,
  type CappedSshd,
  type CliResult,
  type CliRun,
  type SshdServer,
} from './helpers';

const MiB = 1024 * 1024;
/** Toxiproxy `bandwidth` rate, KB/s: the 24 MiB upload needs about 6 s, far longer than a cancel takes. */
const RATE_KBPS = 4000;
/**
 * One SSH channel: a cancel's cleanup then waits behind little data (see faults.test.ts). `--no-resume`: the cleanup
 * under test removes the partial copy (by default it is kept for the next run: resume.test.ts).
 */
const ONE_LANE = ['--connections', '1', '--channels', '1', '--no-resume'];

const skipReason = toxiproxyAvailable() ? false : 'toxiproxy-server not installed (/usr/local/bin/toxiproxy-server)';

let sshd: SshdServer;
let work: string;
let newProxy: CappedSshd['cappedProxy'];
let src: string;

cappedSshdHooks('sluice-signals-', skipReason, (c) => {
  ({ sshd, dir: work, cappedProxy: newProxy } = c);
  src = path.join(work, 'big.bin');
  writeRandomFile(src, 24 * MiB);
});

/**
 * Starts `put big.bin` to `target` through a fresh upload-capped proxy; `json` adds --json; `lanes` sets the channels.
 */
async function startUpload(target: string, json: boolean, lanes = ONE_LANE): Promise<CliRun> {
  const { port, knownHosts } = await newProxy('upstream', RATE_KBPS);
  const args = [
    'put',
    ...(json ? ['--json'] : []),
    ...baseFlags(sshd),
    ...lanes,
    src,
    urlOf({ ...sshd, port }, target),
  ];
  return startCli(args, { knownHosts, timeoutMs: 60_000 });
}

/** Whether the file at `p` has data blocks allocated (false once it is gone). */
function holdsData(p: string): boolean {
  try {
    return fs.statSync(p).blocks > 0;
  } catch {
    return false;
  }
}

/** The run was cancelled and cleaned up: `code`, nothing under the final name, no temporary file on the server. */
function assertCleanedUp(r: CliResult, code: number, target: string): void {
  assert.equal(r.code, code, describeRun(r));
  assert.equal(fs.existsSync(target), false, `an interrupted upload exists under the final name\n${describeRun(r)}`);
  assert.deepEqual(
    tempFilesUnder(sshd.root),
    [],
    `a temporary .sluice-*.part file was left on the server\n${describeRun(r)}`,
  );
}

/** A --json upload to `name` on sshd, sent `signal` once bytes flow; checks exit `code` and the clean-up. */
async function signalledUpload(name: string, signal: NodeJS.Signals, code: number): Promise<CliResult> {
  const target = path.join(sshd.root, name);
  const run = await startUpload(target, true);
  await run.waitForEvent(isProgressWithBytes);
  run.child.kill(signal);
  const r = await run.result;
  assertCleanedUp(r, code, target);
  return r;
}

describe('signals during an upload', { skip: skipReason }, () => {
  test('SIGTERM: exit 143, temporary file removed, nothing under the final name, a JSON error line', async () => {
    const r = await signalledUpload('terminated.bin', 'SIGTERM', 143);
    assert.match(r.stderr, /terminated \(SIGTERM\): stopping the transfer/, describeRun(r));
    const last = JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as Record<string, unknown>;
    assert.deepEqual(last, {
      type: 'error',
      code: 'ABORTED',
      message: 'transfer interrupted (SIGTERM)',
      exitCode: 143,
    });
  });

  test('SIGHUP: exit 129, temporary file removed, nothing under the final name', async () => {
    const r = await signalledUpload('hangup.bin', 'SIGHUP', 129);
    assert.match(r.stderr, /hangup \(SIGHUP\): stopping the transfer/, describeRun(r));
  });

  for (const [what, lanes] of [
    ['one channel', ONE_LANE],
    ['a segmented upload on 4 channels', ['--connections', '1', '--channels', '4', '--no-resume']],
  ] as const) {
    test(`SIGINT without --json (${what}): exit 130 and the interrupt said once, after the "stopping" line`, async () => {
      const target = path.join(sshd.root, `interrupted-${lanes[3]}.bin`);
      const run = await startUpload(target, false, [...lanes]);
      // No events without --json: wait for data in the upload's temporary file on the server (allocated blocks: a
      // segmented upload's file is created at full length, sparse). The bytes flowing mean every handle is open.
      await waitUntil(
        'data in the temporary file of the upload',
        () => tempFilesUnder(sshd.root).some(holdsData),
        30_000,
      );
      run.child.kill('SIGINT');
      const r = await run.result;
      assertCleanedUp(r, 130, target);
      // The cancelled files' own "transfer aborted"/"transfer interrupted" failures are not repeated per file.
      assert.deepEqual(r.stderr.match(/transfer (interrupted|aborted)/g), ['transfer interrupted'], describeRun(r));
      assert.match(
        r.stderr,
        /^sluice: interrupted: stopping the transfer \(Ctrl-C again to quit at once\)\nsluice: transfer interrupted \(SIGINT\)\n$/,
        describeRun(r),
      );
      assert.doesNotMatch(r.stderr, /FAILED/, 'an interrupted file is not reported as a failure of its own');
    });
  }
});
