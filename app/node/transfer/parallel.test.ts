/**
 * The parallel engine against a private OpenSSH sshd, through the ConnectionPool API: a 300 MiB file both ways over
 * 4 connections × 2 channels (SHA-256 on both ends, segmented upload, every connection carrying bytes),
 * progress sampled at a fixed rate with per-connection and per-channel figures, and 1000 small files in
 * nested folders over 4 connections.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EngineOptions } from '../engine/setup';
import type { ConnectionPool } from '../ssh/connectionPool';
import type { EngineEvent } from './types';
import {
  SSHD_PATH,
  sha256File,
  startSshd,
  tempFilesUnder,
  treeOf,
  within,
  writeRandomFile,
  type SshdServer,
  openBounded,
  learnedOf,
  trustedServerHooks,
} from '../test/helpers';
import { runTransfer } from './run';

const MiB = 1024 * 1024;
const BIG = 300 * MiB;
const hasSshd = fs.existsSync(SSHD_PATH);

type Progress = Extract<EngineEvent, { type: 'progress' }>;

let server: SshdServer;
let local: string;
let knownHosts: string;

trustedServerHooks(
  () => startSshd(),
  'sluice-par-',
  (t) => {
    ({ server, dir: local, knownHosts } = t);
  },
  !hasSshd && 'no sshd',
);

/** Opens a session on the fixture sshd with its key, known_hosts and no agent; events go to `events`. */
function open(events: EngineEvent[], o: Partial<EngineOptions> = {}): Promise<ConnectionPool> {
  return openBounded({
    host: server.host,
    port: server.port,
    username: server.user,
    auth: { identityFiles: [server.clientKeyPath], useAgent: false, env: {}, home: local },
    hostKeyMode: 'strict',
    knownHostsPaths: { readPaths: [knownHosts], writePath: knownHosts },
    keepaliveIntervalMs: 5_000,
    onEvent: (e) => events.push(e),
    ...o,
  });
}

function progressOf(events: EngineEvent[], jobId: string): Progress[] {
  return events.filter((e): e is Progress => e.type === 'progress' && e.jobId === jobId);
}

/** Connection ids that moved bytes during the job, from its last progress sample. */
function busyConnections(p: Progress[]): number[] {
  const last = p.at(-1);
  assert.ok(last, 'at least one progress event');
  return last.connections.filter((c) => c.bytes > 0).map((c) => c.id);
}

/**
 * Checks the shape and pace of a job's progress events: a fixed 250 ms cadence (not per packet),
 * per-connection and per-channel samples that add up, bytesDone reaching bytesTotal.
 */
function checkProgress(
  p: Progress[],
  o: { connections: number; channels: number; bytes: number; elapsedMs: number },
): void {
  assert.ok(p.length >= 2, `${p.length} progress events`);
  // Fixed rate: one per 250 ms of the job at most, whatever the number of packets. Timers only ever fire
  // late (a loaded machine), so the lower bounds are loose: at least one per second.
  const expected = o.elapsedMs / 250;
  assert.ok(p.length <= expected + 3, `${p.length} progress events in ${o.elapsedMs} ms: more than a 4 Hz cadence`);
  assert.ok(
    p.length >= Math.floor(o.elapsedMs / 1000),
    `${p.length} progress events in ${o.elapsedMs} ms: fewer than 1 Hz`,
  );
  const packets = o.bytes / 261120;
  assert.ok(
    p.length < packets / 10,
    `${p.length} events for ~${Math.round(packets)} SFTP requests: progress must not be per packet`,
  );
  const gaps = p
    .slice(0, -1)
    .slice(1)
    .map((e, i) => e.t - p[i].t)
    .sort((a, b) => a - b);
  if (gaps.length >= 3) {
    const median = gaps[Math.floor(gaps.length / 2)];
    assert.ok(
      median >= 200 && median <= 1000,
      `median gap between progress events ${median} ms, want 250 (a little more under load)`,
    );
  }
  for (const e of p) {
    assert.equal(e.connections.length, o.connections, 'one sample per connection');
    for (const c of e.connections) {
      assert.equal(c.channels.length, o.channels, `connection ${c.id}: one sample per channel`);
      assert.equal(
        c.bytes,
        c.channels.reduce((a, ch) => a + ch.bytes, 0),
        `connection ${c.id}: bytes = sum of its channels`,
      );
      assert.equal(
        c.outstanding,
        c.channels.reduce((a, ch) => a + ch.outstanding, 0),
      );
      assert.ok(c.rate >= 0 && c.inFlightBytes >= 0 && c.outstanding >= 0);
    }
    assert.ok(e.bytesDone <= e.bytesTotal || e.scanning, `bytesDone ${e.bytesDone} > bytesTotal ${e.bytesTotal}`);
  }
  for (let i = 1; i < p.length; i++) assert.ok(p[i].t >= p[i - 1].t, 'timestamps increase');
  const last = p.at(-1)!;
  assert.equal(last.bytesTotal, o.bytes);
  assert.equal(last.bytesDone, o.bytes, 'bytesDone reaches bytesTotal');
  assert.equal(last.scanning, false);
  const moved = last.connections.reduce((a, c) => a + c.bytes, 0);
  assert.ok(moved >= o.bytes, `connections moved ${moved} bytes, job has ${o.bytes}`);
  assert.ok(
    p.some((e) => e.rate > 0),
    'a non-zero rate was reported',
  );
  assert.ok(
    p.some((e) => e.connections.some((c) => c.channels.some((ch) => ch.rate > 0))),
    'a non-zero channel rate was reported',
  );
}

describe('parallel engine on OpenSSH', { skip: hasSshd ? false : `${SSHD_PATH} not installed` }, () => {
  let bigSrc: string;
  let bigSha: string;

  test(
    '300 MiB up over 4 connections × 2 channels: segmented, SHA-256 verified, every connection carries bytes',
    { timeout: 90_000 },
    async (t) => {
      bigSrc = path.join(local, 'big.src');
      writeRandomFile(bigSrc, BIG);
      bigSha = await sha256File(bigSrc);
      const events: EngineEvent[] = [];
      const s = await open(events, { connections: 4, channels: 2 });
      try {
        assert.equal(s.connections.length, 4);
        assert.equal(s.lanes().length, 8);
        const remote = path.join(server.root, 'big.bin');
        const r = await within(
          'put 300 MiB',
          80_000,
          runTransfer(
            s,
            { id: 'up', direction: 'put', sources: [bigSrc], dest: remote, recursive: false, verify: 'sha256' },
            { onEvent: (e) => events.push(e), server: learnedOf(s) },
          ),
        );
        t.diagnostic(`put 300 MiB with sha256 verify: ${r.elapsedMs} ms`);
        assert.deepEqual(r.failed, []);
        assert.equal(r.files, 1);
        assert.equal(r.bytes, BIG);
        assert.equal(r.segmentedUploads, true, 'OpenSSH accepts out-of-order writes: the upload is segmented');
        assert.equal(learnedOf(s).outOfOrderWrites, true);
        assert.equal(r.verify, 'sha256-remote');
        assert.equal(fs.statSync(remote).size, BIG);
        assert.equal(await sha256File(remote), bigSha, 'remote bytes equal the source');
        assert.deepEqual(tempFilesUnder(server.root), [], 'no temporary file left on the server');
        const p = progressOf(events, 'up');
        const busy = busyConnections(p);
        assert.ok(busy.length > 1, `bytes moved over connections ${busy.join(',')} only`);
        assert.deepEqual(busy, [0, 1, 2, 3], 'every connection carried part of the file');
        checkProgress(p, { connections: 4, channels: 2, bytes: BIG, elapsedMs: r.elapsedMs });
      } finally {
        await s.close();
      }
    },
  );

  test(
    '300 MiB down over 4 connections × 2 channels: SHA-256 verified, every connection carries bytes, progress at a fixed rate',
    { timeout: 90_000 },
    async (t) => {
      if (!bigSha) {
        t.skip('needs the uploaded file of the previous test');
        return;
      }
      const events: EngineEvent[] = [];
      const s = await open(events, { connections: 4, channels: 2 });
      try {
        const back = path.join(local, 'big.back');
        const r = await within(
          'get 300 MiB',
          80_000,
          runTransfer(
            s,
            {
              id: 'down',
              direction: 'get',
              sources: [path.join(server.root, 'big.bin')],
              dest: back,
              recursive: false,
              verify: 'sha256',
            },
            { onEvent: (e) => events.push(e), server: learnedOf(s) },
          ),
        );
        t.diagnostic(`get 300 MiB with sha256 verify: ${r.elapsedMs} ms`);
        assert.deepEqual(r.failed, []);
        assert.equal(r.files, 1);
        assert.equal(r.bytes, BIG);
        assert.equal(r.verify, 'sha256-remote');
        assert.equal(r.segmentedUploads, undefined);
        assert.equal(await sha256File(back), bigSha, 'downloaded bytes equal the original');
        assert.deepEqual(tempFilesUnder(local), [], 'no local temporary file left');
        const p = progressOf(events, 'down');
        assert.deepEqual(busyConnections(p), [0, 1, 2, 3], 'every connection carried part of the file');
        const last = p.at(-1)!;
        for (const c of last.connections) {
          assert.ok(c.channels.filter((ch) => ch.bytes > 0).length >= 1, `connection ${c.id}: a channel moved bytes`);
        }
        checkProgress(p, { connections: 4, channels: 2, bytes: BIG, elapsedMs: r.elapsedMs });
        const files = events.filter((e) => e.type === 'file');
        assert.equal(files.length, 1);
        assert.equal(files[0].type === 'file' && files[0].state, 'done');
        fs.rmSync(back);
      } finally {
        await s.close();
      }
    },
  );

  test(
    '1000 small files in nested folders (-r) over 4 connections, both ways: trees identical, every connection carries files',
    { timeout: 90_000 },
    async (t) => {
      const srcRoot = path.join(local, 'many');
      let seed = 7;
      const rnd = () => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed;
      };
      let n = 0;
      let bytes = 0;
      for (let a = 0; a < 10; a++) {
        for (let b = 0; b < 10; b++) {
          const dir = path.join(srcRoot, `d${a}`, `e${b}`);
          fs.mkdirSync(dir, { recursive: true });
          for (let c = 0; c < 10; c++) {
            const size = n === 0 ? 0 : rnd() % 8192;
            const buf = Buffer.alloc(size);
            for (let i = 0; i < size; i++) buf[i] = rnd() & 0xff;
            fs.writeFileSync(path.join(dir, `f${c}.dat`), buf);
            bytes += size;
            n++;
          }
        }
      }
      assert.equal(n, 1000);
      const want = await treeOf(srcRoot);

      const events: EngineEvent[] = [];
      const s = await open(events, { connections: 4, channels: 1 });
      try {
        const up = await within(
          'put -r 1000 files',
          60_000,
          runTransfer(
            s,
            { id: 'many-up', direction: 'put', sources: [srcRoot], dest: server.root, recursive: true },
            { onEvent: (e) => events.push(e), server: learnedOf(s) },
          ),
        );
        t.diagnostic(`put -r 1000 files: ${up.elapsedMs} ms`);
        assert.deepEqual(up.failed, []);
        assert.equal(up.files, 1000);
        assert.equal(up.bytes, bytes);
        assert.deepEqual(await treeOf(path.join(server.root, 'many')), want, 'remote tree equals the source');
        const pu = progressOf(events, 'many-up');
        assert.deepEqual(busyConnections(pu), [0, 1, 2, 3], 'every connection carried files up');
        assert.equal(pu.at(-1)!.filesDone, 1000);
        assert.equal(pu.at(-1)!.filesTotal, 1000);

        const back = path.join(local, 'many-back');
        fs.mkdirSync(back);
        const down = await within(
          'get -r 1000 files',
          60_000,
          runTransfer(
            s,
            {
              id: 'many-down',
              direction: 'get',
              sources: [path.join(server.root, 'many')],
              dest: back,
              recursive: true,
            },
            { onEvent: (e) => events.push(e), server: learnedOf(s) },
          ),
        );
        t.diagnostic(`get -r 1000 files: ${down.elapsedMs} ms`);
        assert.deepEqual(down.failed, []);
        assert.equal(down.files, 1000);
        assert.deepEqual(await treeOf(path.join(back, 'many')), want, 'downloaded tree equals the source');
        const pd = progressOf(events, 'many-down');
        assert.deepEqual(busyConnections(pd), [0, 1, 2, 3], 'every connection carried files down');
        assert.equal(events.filter((e) => e.type === 'file' && e.state === 'done').length, 2000);
      } finally {
        await s.close();
      }
    },
  );
});
