/**
 * The packet trace (`--trace FILE`, ssh/packetTrace.ts) and the set-up's round trips counted from it
 * (ssh/roundTrips.ts).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseTrace, type TraceEvent } from '../ssh/roundTrips';
import { baseFlags, describeRun, runCli, serverWithKnownHosts, startScriptedServer, urlOf } from './helpers';

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
