/**
 * The packet trace (`--trace FILE`, ssh/packetTrace.ts) and the set-up's round trips counted from it
 * (ssh/roundTrips.ts, docs/round-trips.md): connect + authenticate + get 1 byte against the real sshd, and the
 * fallback when a server that says it is OpenSSH numbers its first channel otherwise.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { countRoundTrips, parseTrace, type RoundTrips, type TraceEvent } from '../ssh/roundTrips';
import {
  baseFlags,
  describeRun,
  makeTempDir,
  removeDir,
  runCli,
  serverWithKnownHosts,
  startScriptedServer,
  toxiproxyAvailable,
  urlOf,
  withProxiedSshd,
} from './helpers';

/** connect + 1 B get on OpenSSH (docs/round-trips.md): 8 before the first channel got its number predicted. */
const OPENSSH_ROUND_TRIPS = 7;

interface Target {
  port: number;
  user: string;
  clientKeyPath: string;
}

/** Runs `get --trace` of the 1-byte `src` from `t` into `dir`; returns the trace's events after checking the copy. */
async function tracedGet(t: Target, src: string, dir: string, knownHosts: string): Promise<TraceEvent[]> {
  const file = path.join(dir, 'trace.txt');
  const dst = path.join(dir, `got-${Date.now()}.bin`);
  const r = await runCli(['get', ...baseFlags(t), '--trace', file, urlOf(t, src), dst], { knownHosts });
  assert.equal(r.code, 0, describeRun(r));
  assert.equal(fs.readFileSync(dst, 'utf8'), 'x');
  return parseTrace(fs.readFileSync(file, 'utf8'));
}

const explain = (rt: RoundTrips | undefined): string =>
  rt ? rt.rounds.map((r, i) => `${i + 1}. ${r.sent.join(', ')} -> ${r.received.join(', ')}`).join('\n') : '(none)';

const at = (events: TraceEvent[], re: RegExp): number => events.findIndex((e) => re.test(`${e.dir} ${e.what}`));

test('get --trace: every packet named with its time, from the TCP connect to SSH_FXP_READ and its DATA', async () => {
  const s = await serverWithKnownHosts(() => startScriptedServer(), 'sluice-trace-');
  try {
    const src = path.join(s.server.root, 'one.bin');
    fs.writeFileSync(src, 'x');
    const events = await tracedGet(s.server, src, s.dir, s.knownHosts);
    const order = [
      /^= TCP connect/,
      /^> KEXINIT$/,
      /^< KEXINIT$/,
      /^> KEX_ECDH_INIT$/,
      /^< KEX_ECDH_REPLY$/,
      /^= Host accepted/,
      /^> NEWKEYS$/,
      /^> USERAUTH_REQUEST \(publickey\)$/,
      /^< USERAUTH_SUCCESS$/,
      /^> CHANNEL_OPEN /,
      /^> CHANNEL_REQUEST \(r:\d+, subsystem: sftp\)$/,
      /^> SSH_FXP_INIT$/,
      /^< SSH_FXP_VERSION/,
      /^> SSH_FXP_OPEN$/,
      /^< SSH_FXP_HANDLE/,
      /^> SSH_FXP_READ$/,
      /^< SSH_FXP_DATA \(id:\d+, 1\)$/,
    ];
    const where = order.map((re) => at(events, re));
    const listing = events.map((e) => `${e.dir} ${e.what}`).join('\n');
    assert.ok(
      where.every((w, i) => w >= 0 && (i === 0 || w > where[i - 1])),
      `${order.map((re, i) => `${re} @${where[i]}`).join('\n')}\n${listing}`,
    );
    // Times never go backwards, and no signature left before the host key was accepted.
    assert.ok(events.every((e, i) => i === 0 || e.t >= events[i - 1].t));
    assert.ok(at(events, /^> USERAUTH_REQUEST/) > at(events, /^= Host accepted/));
  } finally {
    await s.stop();
  }
});

test(
  `connect + get 1 byte from sshd at 50 ms RTT: ${OPENSSH_ROUND_TRIPS} round trips from the TCP connect to the first SSH_FXP_DATA`,
  { timeout: 60_000 },
  async (t) => {
    if (!toxiproxyAvailable()) {
      t.skip('toxiproxy-server is not installed: the count needs the proxy latency to order the packets');
      return;
    }
    const toxics = (['upstream', 'downstream'] as const).map((stream) => ({
      type: 'latency' as const,
      stream,
      attributes: { latency: 25 },
    }));
    await withProxiedSshd({ tempPrefix: 'sluice-rtt-', toxics }, async ({ srv, proxyPort, dir }) => {
      fs.writeFileSync(path.join(srv.root, 'one.bin'), 'x');
      const knownHosts = path.join(dir, 'known_hosts');
      fs.writeFileSync(knownHosts, `${srv.knownHostsLine(proxyPort)}\n`);
      const events = await tracedGet({ ...srv, port: proxyPort }, path.join(srv.root, 'one.bin'), dir, knownHosts);
      const rt = countRoundTrips(events);
      t.diagnostic(`sshd at 50 ms: ${rt?.count} round trips, ${rt?.ms.toFixed(0)} ms\n${explain(rt)}`);
      assert.equal(rt?.count, OPENSSH_ROUND_TRIPS, explain(rt));
      // The channel's subsystem request left with its CHANNEL_OPEN, before the server numbered the channel.
      assert.match(rt.rounds[4].sent.join(', '), /^CHANNEL_OPEN \(r:\d+, session\), CHANNEL_REQUEST \(r:0, subsystem/);
    });
  },
);

test('a server that says it is OpenSSH but numbers its first channel 1: the subsystem request is sent again there', async (t) => {
  const s = await serverWithKnownHosts(
    () => startScriptedServer({ ident: 'OpenSSH_9.6p1', firstChannel: 1 }),
    'sluice-chan1-',
  );
  const dir = await makeTempDir('sluice-chan1-work-');
  try {
    fs.writeFileSync(path.join(s.server.root, 'one.bin'), 'x');
    const events = await tracedGet(s.server, path.join(s.server.root, 'one.bin'), dir, s.knownHosts);
    const requests = events.filter((e) => e.dir === '>' && /^CHANNEL_REQUEST .*subsystem: sftp/.test(e.what));
    assert.deepEqual(
      requests.slice(0, 2).map((e) => e.what),
      ['CHANNEL_REQUEST (r:0, subsystem: sftp)', 'CHANNEL_REQUEST (r:1, subsystem: sftp)'],
    );
    const rt = countRoundTrips(events);
    assert.ok(rt, 'no SSH_FXP_DATA in the trace');
    t.diagnostic(`scripted server, first channel 1: ${rt.count} round trips on loopback\n${explain(rt)}`);
  } finally {
    await removeDir(dir);
    await s.stop();
  }
});
