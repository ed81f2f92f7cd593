/**
 * The CLI's first requests ride on the SFTP set-up (OpenSSH server, pipelined set-up), read from the ssh2 debug
 * trace (`SLUICE_SSH_DEBUG=1`): the job's SSH_FXP_STAT and read SSH_FXP_OPENs leave before VERSION comes back, the
 * download uses those handles instead of opening again, and behind latency the extra channels open together with
 * the first. A put runs the out-of-order probe during set-up and opens its segments' handles while it runs; an
 * upload's fsync, FSTAT and CLOSE leave together.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startSshd } from '../../../e2e/fixtures/sshd';
import {
  baseFlags,
  describeRun,
  openTrusting,
  runCli,
  sha256File,
  sshdWithKnownHosts,
  toxiproxyAvailable,
  urlOf,
  withProxiedSshd,
  withTrustedServer,
  writeRandomFile,
  type CliResult,
} from './helpers';

const MiB = 1024 * 1024;

/** The ssh2 debug lines of a CLI run, without their `ssh[host:port] ` prefix. */
function traceOf(r: CliResult): string[] {
  return r.stderr
    .split('\n')
    .filter((l) => l.startsWith('ssh['))
    .map((l) => l.slice(l.indexOf('] ') + 2));
}

const first = (trace: string[], re: RegExp) => trace.findIndex((l) => re.test(l));
const count = (trace: string[], re: RegExp) => trace.filter((l) => re.test(l)).length;

const STAT_OUT = /^SFTP: Outbound: (Sending|Buffered) STAT$/;
const OPEN_OUT = /^SFTP: Outbound: (Sending|Buffered) OPEN$/;
const CLOSE_OUT = /^SFTP: Outbound: (Sending|Buffered) CLOSE$/;
const VERSION_IN = /^SFTP: Inbound: Received VERSION/;
const DEBUG_ENV = { env: { SLUICE_SSH_DEBUG: '1' } };

test('a get on loopback: the STAT and the one read OPEN go out with the set-up, and the download reads through that handle', async () => {
  const s = await sshdWithKnownHosts('sluice-setupreq-');
  try {
    const src = path.join(s.server.root, 'one.bin');
    writeRandomFile(src, 3 * MiB + 11);
    const dst = path.join(s.local, 'one.bin');
    const r = await runCli(['get', ...baseFlags(s.server), urlOf(s.server, src), dst], {
      knownHosts: s.knownHosts,
      ...DEBUG_ENV,
    });
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(await sha256File(dst), await sha256File(src));
    const trace = traceOf(r);
    assert.ok(first(trace, STAT_OUT) >= 0 && first(trace, STAT_OUT) < first(trace, VERSION_IN), trace.join('\n'));
    // The first channel's OPEN left before its VERSION came back; every channel set up sent one OPEN with its set-up
    // (one channel on loopback, more when a busy machine made the RTT look slow: their channels then open after the
    // first VERSION), and no more: the download did not open the file again.
    const version = first(trace, VERSION_IN);
    assert.ok(version >= 0, trace.join('\n'));
    assert.ok(first(trace, OPEN_OUT) >= 0 && first(trace, OPEN_OUT) < version, trace.join('\n'));
    assert.equal(
      count(trace, OPEN_OUT),
      count(trace, VERSION_IN),
      trace.filter((l) => OPEN_OUT.test(l) || VERSION_IN.test(l)).join('\n'),
    );
  } finally {
    await s.stop();
  }
});

test('a folder given to get without -r: the prefetched read handle is closed, and the error is the usual one', async () => {
  const s = await sshdWithKnownHosts('sluice-setupreq-dir-');
  try {
    fs.mkdirSync(path.join(s.server.root, 'dir'));
    const r = await runCli(['get', ...baseFlags(s.server), urlOf(s.server, path.join(s.server.root, 'dir')), s.local], {
      knownHosts: s.knownHosts,
      ...DEBUG_ENV,
    });
    assert.notEqual(r.code, 0, describeRun(r));
    assert.match(r.stderr, /is a folder \(use -r\)/);
    const trace = traceOf(r);
    // OpenSSH opens a folder for reading too; that handle must not stay open.
    assert.equal(
      count(trace, CLOSE_OUT),
      count(trace, OPEN_OUT),
      trace.filter((l) => /OPEN|CLOSE|HANDLE|STATUS/.test(l)).join('\n'),
    );
  } finally {
    await s.stop();
  }
});

test('behind 30 ms of RTT: extra channels open with the first, each gets its read handle during set-up, segments use them', async (t) => {
  if (!toxiproxyAvailable()) {
    t.skip('toxiproxy-server not installed: needs latency for the automatic channels');
    return;
  }
  const toxics = (['upstream', 'downstream'] as const).map((stream) => ({
    type: 'latency' as const,
    stream,
    attributes: { latency: 15 },
  }));
  await withProxiedSshd({ tempPrefix: 'sluice-setupreq-rtt-', toxics }, async ({ srv, proxyPort, dir }) => {
    const kh = path.join(dir, 'known_hosts');
    fs.writeFileSync(kh, `${srv.knownHostsLine(proxyPort)}\n`);
    const src = path.join(srv.root, 'seg.bin');
    writeRandomFile(src, 12 * MiB + 3);
    const dst = path.join(dir, 'seg.bin');
    const url = urlOf({ ...srv, port: proxyPort }, src);
    const r = await runCli(['get', ...baseFlags(srv), '-v', '--segment-size', '1M', url, dst], {
      knownHosts: kh,
      ...DEBUG_ENV,
    });
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(await sha256File(dst), await sha256File(src));
    const trace = traceOf(r);
    // The second channel's CHANNEL_OPEN left before the first channel was confirmed (RTT known from the set-up).
    assert.ok(first(trace, /Sending CHANNEL_OPEN \(r:1,/) >= 0, trace.join('\n'));
    assert.ok(
      first(trace, /Sending CHANNEL_OPEN \(r:1,/) < first(trace, /CHANNEL_OPEN_CONFIRMATION \(r:0,/),
      trace.join('\n'),
    );
    const channels = count(trace, VERSION_IN);
    assert.ok(channels > 1, `channels: ${channels}`);
    // The channels' read OPENs left with their set-up: before the STAT's answer, which is what the job itself
    // waits for before it could open anything (normally all of them; a channel whose confirmation came late
    // sends its OPEN later). A lane runs up to two segments at once: at most two OPENs per channel in all.
    const statAnswer = first(trace, /^SFTP: Inbound: Received ATTRS/);
    const openedEarly = count(trace.slice(0, statAnswer), OPEN_OUT);
    assert.ok(
      openedEarly >= 2 && openedEarly <= channels,
      `${openedEarly} OPENs before the STAT's answer:\n${trace.join('\n')}`,
    );
    assert.ok(count(trace, OPEN_OUT) <= 2 * channels, `${count(trace, OPEN_OUT)} OPENs on ${channels} channels`);
    assert.equal(count(trace, CLOSE_OUT), count(trace, OPEN_OUT));
  });
});

test("a put: the destination STAT goes out with the set-up; the upload's FSETSTAT, fsync, FSTAT and CLOSE leave together", async () => {
  const s = await sshdWithKnownHosts('sluice-setupreq-put-');
  try {
    const src = path.join(s.local, 'up.bin');
    writeRandomFile(src, 2 * MiB + 1);
    const r = await runCli(['put', ...baseFlags(s.server), src, urlOf(s.server, `${s.server.root}/`)], {
      knownHosts: s.knownHosts,
      ...DEBUG_ENV,
    });
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(await sha256File(path.join(s.server.root, 'up.bin')), await sha256File(src));
    const trace = traceOf(r);
    assert.ok(first(trace, STAT_OUT) >= 0 && first(trace, STAT_OUT) < first(trace, VERSION_IN), trace.join('\n'));
    const fsync = first(trace, /^SFTP: Outbound: (Sending|Buffered) fsync@openssh\.com$/);
    assert.ok(fsync >= 0, trace.join('\n'));
    const tail = trace.slice(fsync);
    const attrs = first(tail, /^SFTP: Inbound: Received ATTRS/);
    assert.ok(first(tail, CLOSE_OUT) >= 0 && first(tail, CLOSE_OUT) < attrs, tail.join('\n'));
    // The source's mtime (SSH_FXP_FSETSTAT) goes first in that burst, waiting for no reply: no round trip of its own.
    const fsetstat = first(trace, /^SFTP: Outbound: (Sending|Buffered) FSETSTAT$/);
    assert.ok(fsetstat >= 0 && fsetstat < fsync, trace.join('\n'));
    const burst = trace.slice(fsetstat);
    assert.ok(first(burst, CLOSE_OUT) < first(burst, /^SFTP: Inbound:/), burst.join('\n'));
  } finally {
    await s.stop();
  }
});

test("a segmented put: the probe's OPENs go out with the set-up, and the segments use the handles opened ahead for them", async () => {
  const s = await sshdWithKnownHosts('sluice-setupreq-probe-');
  try {
    const src = path.join(s.local, 'big.bin');
    writeRandomFile(src, 4 * MiB + 9);
    const r = await runCli(
      [
        'put',
        ...baseFlags(s.server),
        '-v',
        '--channels',
        '2',
        '--segment-size',
        '1M',
        src,
        urlOf(s.server, `${s.server.root}/`),
      ],
      { knownHosts: s.knownHosts, ...DEBUG_ENV },
    );
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(await sha256File(path.join(s.server.root, 'big.bin')), await sha256File(src));
    assert.match(r.stderr, /server accepts out-of-order writes: uploads are segmented/);
    const trace = traceOf(r);
    const version = first(trace, VERSION_IN);
    // The probe's three OPENs (two write handles opened as segments open theirs, one to read back) and the
    // destination's STAT left before the first VERSION came back.
    assert.equal(count(trace.slice(0, version), OPEN_OUT), 3, trace.join('\n'));
    // Then one handle per channel opened ahead, and a second one where a channel runs two segments at once: 7 at
    // most (no separate create: segment handles create the file). Segments that ignored the handles opened ahead
    // would need 2 more.
    const opens = count(trace, OPEN_OUT);
    assert.ok(opens <= 3 + 2 * 2, `${opens} OPENs:\n${trace.filter((l) => /OPEN|CLOSE|HANDLE/.test(l)).join('\n')}`);
    // Nothing left open: every OPEN has its CLOSE.
    assert.equal(count(trace, CLOSE_OUT), count(trace, OPEN_OUT));
    assert.deepEqual(
      fs.readdirSync(s.server.root).filter((n) => n.startsWith('.')),
      [],
    );
  } finally {
    await s.stop();
  }
});

test("the set-up's STAT answers come back in ConnectInfo; the first stat of each path is answered from there, once", async () => {
  await withTrustedServer(
    () => startSshd(),
    'sluice-setupreq-info-',
    async ({ server: srv, dir }) => {
      const file = path.join(srv.root, 'f.bin');
      writeRandomFile(file, 1000);
      const missing = path.join(srv.root, 'none');
      const pool = await openTrusting(srv, dir, { prefetch: { stat: [file, missing, srv.root] } });
      try {
        const info = pool.connections[0].info!;
        assert.deepEqual(
          info.prefetchedStats?.map((a) => [a.path, a.stat?.type ?? a.stat, a.stat?.size]),
          [
            [file, 'file', 1000],
            [missing, null, undefined],
            [srv.root, 'dir', info.prefetchedStats?.[2].stat?.size],
          ],
        );
        // Removed after the set-up: the first stat is the set-up's answer, a second one asks the server.
        fs.rmSync(file);
        assert.equal((await pool.stat(file))?.size, 1000);
        assert.equal(await pool.stat(file), null);
        assert.equal(await pool.stat(missing), null);
      } finally {
        await pool.close();
      }
    },
  );
});
