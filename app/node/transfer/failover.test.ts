/**
 * Connection loss during parallel transfers, against a private OpenSSH sshd: one of four connections is
 * killed (its per-connection sshd process tree gets SIGKILL) mid-transfer and the job completes on the
 * others with identical bytes; the connection running the final verification dies and the file is still
 * committed; every connection dies and the job fails with CONNECTION_LOST at once, nothing under the final name.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { SluiceError } from '../errors';
import type { ConnectionPool } from '../ssh/connectionPool';
import type { EngineEvent, TransferReport, TransferRequest } from './types';
import { childPids, commandLine, parentPid } from '../../../e2e/fixtures/platformTools';
import {
  SSHD_PATH,
  sha256File,
  startSshd,
  tempFilesUnder,
  waitUntil,
  within,
  writeRandomFile,
  type SshdServer,
  openBounded,
  trustedServerHooks,
} from '../test/helpers';
import { runTransfer } from './run';

/** The file both ways: big enough that a connection can be killed while it moves. */
const BIG = 300 * 1024 * 1024;
const hasSshd = fs.existsSync(SSHD_PATH);
type Progress = Extract<EngineEvent, { type: 'progress' }>;

/** The fixture: sshd, a folder with a known_hosts trusting it, and the source file with its SHA-256. */
let server: SshdServer;
let src: string;
let srcSha: string;
let local: string;
let knownHosts: string;

trustedServerHooks(
  () => startSshd(),
  'sluice-fail-',
  async (t) => {
    ({ server, dir: local, knownHosts } = t);
    src = path.join(local, 'big.src');
    writeRandomFile(src, BIG);
    srcSha = await sha256File(src);
  },
  !hasSshd && 'no sshd',
);

/** A session whose events, and those of the transfers run with {@link Observed.onEvent}, can be awaited. */
interface Observed {
  pool: ConnectionPool;
  events: EngineEvent[];
  /** The sink to give each transfer: its events join the pool's in `events`. */
  onEvent: (e: EngineEvent) => void;
  /** Resolves with the first event (seen or future) matching `pred`. */
  next<E extends EngineEvent>(pred: (e: EngineEvent) => e is E, ms?: number): Promise<E>;
}

async function open(
  connections: number,
  o: {
    port?: number;
    knownHosts?: string;
    keepaliveIntervalMs?: number;
    keepaliveCountMax?: number;
    rateLimit?: number;
  } = {},
): Promise<Observed> {
  const events: EngineEvent[] = [];
  const waiters = new Set<{ pred: (e: EngineEvent) => boolean; resolve: (e: EngineEvent) => void }>();
  const onEvent = (e: EngineEvent): void => {
    events.push(e);
    for (const w of [...waiters])
      if (w.pred(e)) {
        waiters.delete(w);
        w.resolve(e);
      }
  };
  const connectionPool = await openBounded({
    host: server.host,
    port: o.port ?? server.port,
    username: server.user,
    auth: { identityFiles: [server.clientKeyPath], useAgent: false, env: {}, home: local },
    hostKeyMode: 'strict',
    knownHostsPaths: { readPaths: [o.knownHosts ?? knownHosts], writePath: o.knownHosts ?? knownHosts },
    connections,
    channels: 2,
    keepaliveIntervalMs: o.keepaliveIntervalMs ?? 1_000,
    keepaliveCountMax: o.keepaliveCountMax ?? 3,
    rateLimit: o.rateLimit,
    onEvent: (e) => onEvent(e),
  });
  return {
    pool: connectionPool,
    events,
    onEvent,
    next<E extends EngineEvent>(pred: (e: EngineEvent) => e is E, ms = 30_000): Promise<E> {
      const seen = events.find(pred);
      if (seen) return Promise.resolve(seen as E);
      return within(
        'engine event',
        ms,
        new Promise<E>((resolve) => waiters.add({ pred, resolve: resolve as (e: EngineEvent) => void })),
      );
    },
  };
}

function isMidway(jobId: string, total: number) {
  return (e: EngineEvent): e is Progress =>
    e.type === 'progress' && e.jobId === jobId && e.bytesDone > 0 && e.bytesDone < total * 0.6;
}

function isDown(e: EngineEvent): e is Extract<EngineEvent, { type: 'connection' }> {
  return e.type === 'connection' && e.state === 'down';
}

function descendants(pid: number): number[] {
  const out: number[] = [];
  const queue = [pid];
  while (queue.length && out.length < 1000) {
    const kids = childPids(queue.shift()!);
    out.push(...kids);
    queue.push(...kids);
  }
  return out;
}

/** SIGKILLs one per-connection sshd (a child of the listener) and everything under it; returns its PID. */
function killConnectionProcess(connectionPid: number): number {
  for (const p of [connectionPid, ...descendants(connectionPid)]) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  return connectionPid;
}

/** The per-connection sshd (direct child of the listener) that `pid` runs under. */
function connectionProcessOf(pid: number): number {
  let p = pid;
  for (let i = 0; i < 64 && p > 1; i++) {
    const parent = parentPid(p);
    if (parent === server.pid) return p;
    p = parent;
  }
  throw new Error(`process ${pid} is not under sshd ${server.pid}`);
}

function job(
  id: string,
  direction: 'get' | 'put',
  source: string,
  dest: string,
  verify: 'size' | 'sha256' = 'size',
): TransferRequest {
  return { id, direction, sources: [source], dest, recursive: false, verify };
}

describe('failover on OpenSSH', { skip: hasSshd ? false : `${SSHD_PATH} not installed` }, () => {
  for (const direction of ['get', 'put'] as const) {
    test(
      `${direction}: one of four connections killed mid-transfer, the others finish the file with identical bytes`,
      { timeout: 90_000 },
      async () => {
        const o = await open(4);
        try {
          // Connections of earlier tests may take a moment to go away.
          await waitUntil('one sshd process per connection', () => childPids(server.pid).length === 4, 10_000);
          const remote = path.join(server.root, `one-${direction}.bin`);
          if (direction === 'get') fs.copyFileSync(src, remote);
          const target = direction === 'get' ? path.join(local, 'one.back') : remote;
          const running = runTransfer(
            o.pool,
            job(`kill1-${direction}`, direction, direction === 'get' ? remote : src, target),
            { onEvent: o.onEvent },
          );
          running.catch(() => undefined);
          await o.next(isMidway(`kill1-${direction}`, BIG));
          const victim = childPids(server.pid)[1];
          killConnectionProcess(victim);
          const down = await o.next(isDown, 15_000);
          const r = await within('transfer after the kill', 60_000, running);
          assert.deepEqual(r.failed, []);
          assert.equal(r.files, 1);
          assert.equal(r.bytes, BIG, 'bytes of the lost attempts are not counted twice');
          assert.equal(await sha256File(target), srcSha, 'identical bytes');
          assert.equal(o.events.filter(isDown).length, 1, `one connection down (${down.reason})`);
          assert.equal(o.pool.connections.length, 3);
          assert.ok(!o.pool.connections.some((c) => c.id === down.id), 'the lost connection is no longer live');
          assert.deepEqual(tempFilesUnder(direction === 'get' ? local : server.root), []);
          const last = o.events
            .filter((e): e is Progress => e.type === 'progress' && e.jobId === `kill1-${direction}`)
            .at(-1)!;
          assert.ok(
            last.connections.filter((c) => c.id !== down.id && c.bytes > 0).length >= 2,
            'the others carried the rest',
          );
          fs.rmSync(target);
        } finally {
          await o.pool.close();
        }
      },
    );
  }

  test(
    'the connection running the final SHA-256 check dies: the check is redone elsewhere and the file is committed',
    { timeout: 90_000 },
    async (t) => {
      const t0 = Date.now();
      const o = await open(4);
      try {
        const remote = path.join(server.root, 'verify.bin');
        fs.copyFileSync(src, remote);
        const target = path.join(local, 'verify.back');
        const running = runTransfer(o.pool, job('kill-verify', 'get', remote, target, 'sha256'), {
          onEvent: o.onEvent,
        });
        running.catch(() => undefined);
        // The remote half of the check runs `sha256sum` through an exec channel of the committing connection.
        // Wait for the sha256sum process itself, not the `bash -c` around it: killing the shell while its
        // startup files run can leave their locks behind (e.g. pyenv's rehash lock) and slow the retry down.
        const hasher = await waitUntil(
          'sha256sum to run on the server',
          () => descendants(server.pid).find((p) => /^sha256sum /.test(commandLine(p))),
          60_000,
        );
        t.diagnostic(`sha256sum seen after ${Date.now() - t0} ms`);
        killConnectionProcess(connectionProcessOf(hasher));
        await o.next(isDown, 15_000);
        t.diagnostic(`connection down after ${Date.now() - t0} ms`);
        const r = await within('transfer after the kill', 60_000, running);
        t.diagnostic(`job done after ${Date.now() - t0} ms`);
        assert.deepEqual(r.failed, []);
        assert.equal(r.files, 1, 'the file is committed, not silently dropped');
        assert.equal(r.verify, 'sha256-remote');
        assert.equal(await sha256File(target), srcSha);
        assert.deepEqual(tempFilesUnder(local), []);
        fs.rmSync(target);
      } finally {
        await o.pool.close();
      }
    },
  );

  for (const direction of ['get', 'put'] as const) {
    test(
      `${direction}: every connection dies mid-transfer: CONNECTION_LOST at once, nothing under the final name`,
      { timeout: 60_000 },
      async () => {
        const o = await open(4);
        try {
          const remote = path.join(server.root, `all-${direction}.bin`);
          if (direction === 'get') fs.copyFileSync(src, remote);
          const target = direction === 'get' ? path.join(local, 'all.back') : remote;
          const running = runTransfer(
            o.pool,
            job(`killall-${direction}`, direction, direction === 'get' ? remote : src, target),
            { onEvent: o.onEvent },
          );
          running.catch(() => undefined);
          await o.next(isMidway(`killall-${direction}`, BIG));
          await waitUntil('one sshd process per connection', () => childPids(server.pid).length === 4, 10_000);
          const killedAt = Date.now();
          assert.equal(await server.killSessions(), 4);
          let outcome: TransferReport | SluiceError;
          try {
            outcome = await within('job to fail', 15_000, running);
          } catch (e) {
            if (!(e instanceof SluiceError)) throw e;
            outcome = e;
          }
          const ms = Date.now() - killedAt;
          assert.ok(ms < 10_000, `failed after ${ms} ms`);
          if (outcome instanceof SluiceError) {
            assert.equal(outcome.code, 'CONNECTION_LOST', outcome.message);
          } else {
            assert.equal(outcome.files, 0);
            assert.equal(outcome.failed.length, 1);
            assert.equal(outcome.failed[0].code, 'CONNECTION_LOST', outcome.failed[0].message);
            const fileEvents = o.events.filter((e) => e.type === 'file');
            assert.equal(fileEvents.length, 1);
            assert.equal(fileEvents[0].type === 'file' && fileEvents[0].state, 'failed');
          }
          assert.equal(fs.existsSync(target), false, 'nothing under the final name');
          if (direction === 'get') assert.deepEqual(tempFilesUnder(local), [], 'the local temporary file is removed');
          // The job may fail on the workers' errors a moment before the last 'closed' message arrives.
          await waitUntil('four connections reported down', () => o.events.filter(isDown).length === 4, 10_000);
          assert.equal(o.pool.connections.length, 0);
          await assert.rejects(
            o.pool.stat('/'),
            (e: unknown) => e instanceof SluiceError && e.code === 'CONNECTION_LOST',
          );
        } finally {
          await o.pool.close();
          for (const f of tempFilesUnder(server.root)) fs.rmSync(f);
        }
      },
    );
  }

  describe('a connection that stalls (TCP open, nothing moves) mid-download', () => {
    let sw: net.Server;
    let switchPort: number;
    const pairs: Array<[net.Socket, net.Socket]> = [];
    let outcome: {
      report?: TransferReport;
      error?: unknown;
      down: Array<Extract<EngineEvent, { type: 'connection' }>>;
      frozenAfterMs: number;
      doneAfterMs: number;
    };

    before(async () => {
      // A TCP relay in front of sshd whose connections can be frozen one by one.
      sw = net.createServer((inbound) => {
        const outbound = net.connect({ host: '127.0.0.1', port: server.port });
        for (const x of [inbound, outbound]) x.on('error', () => undefined);
        inbound.pipe(outbound).pipe(inbound);
        inbound.on('close', () => outbound.destroy());
        outbound.on('close', () => inbound.destroy());
        pairs.push([inbound, outbound]);
      });
      await new Promise<void>((r) => sw.listen(0, '127.0.0.1', () => r()));
      switchPort = (sw.address() as net.AddressInfo).port;
      const kh = path.join(local, 'known_hosts.switch');
      fs.writeFileSync(kh, `${server.knownHostsLine(switchPort)}\n`);

      // 100 MiB/s: the first 60 % takes ~1.8 s, so a progress sample (every few hundred ms) lands before it even
      // when timers run late on a loaded machine (unthrottled, the download could pass 60 % before the first sample).
      const o = await open(4, {
        port: switchPort,
        knownHosts: kh,
        keepaliveIntervalMs: 1_000,
        keepaliveCountMax: 2,
        rateLimit: 100 * 1024 * 1024,
      });
      const remote = path.join(server.root, 'stall.bin');
      fs.copyFileSync(src, remote);
      const target = path.join(local, 'stall.back');
      try {
        const running = runTransfer(o.pool, job('stall', 'get', remote, target, 'size'), { onEvent: o.onEvent });
        running.catch(() => undefined);
        // A transfer that ends (or fails) before its midway fails here at once, with what it said.
        await Promise.race([
          o.next(isMidway('stall', BIG), 60_000),
          running.then((r) => {
            throw new Error(`the download ended before its midway: ${JSON.stringify(r)}`);
          }),
        ]).catch((e: unknown) => {
          const seen = o.events
            .filter((ev) => ev.type !== 'progress')
            .map((ev) => JSON.stringify(ev))
            .join('\n');
          throw new Error(`${e instanceof Error ? e.message : String(e)}\nevents other than progress:\n${seen}`);
        });
        assert.equal(pairs.length, 4);
        const [inbound, outbound] = pairs[1];
        inbound.unpipe(outbound);
        outbound.unpipe(inbound);
        inbound.pause();
        outbound.pause();
        const frozenAt = Date.now();
        const down = await o.next(isDown, 20_000);
        const frozenAfterMs = Date.now() - frozenAt;
        let report: TransferReport | undefined;
        let error: unknown;
        try {
          report = await within('transfer after the stall', 60_000, running);
        } catch (e) {
          error = e;
        }
        outcome = { report, error, down: [down], frozenAfterMs, doneAfterMs: Date.now() - frozenAt };
        if (report) outcome.down = o.events.filter(isDown);
        if (report && report.failed.length === 0) {
          assert.equal(await sha256File(target), srcSha);
          fs.rmSync(target);
        }
      } finally {
        await o.pool.close();
      }
    });

    after(async () => {
      for (const pair of pairs) for (const x of pair) x.destroy();
      await new Promise<void>((r) => sw?.close(() => r()));
    });

    test('keepalive drops it and the other connections finish the file (identical bytes)', (t) => {
      t.diagnostic(
        `stall detected after ${outcome.frozenAfterMs} ms, job done ${outcome.doneAfterMs} ms after the freeze`,
      );
      assert.equal(outcome.error, undefined, String(outcome.error));
      assert.deepEqual(outcome.report!.failed, []);
      assert.equal(outcome.report!.files, 1);
      assert.equal(outcome.report!.bytes, BIG);
      assert.equal(outcome.down.length, 1, 'exactly the frozen connection went down');
      assert.ok(outcome.frozenAfterMs < 10_000, `stall noticed after ${outcome.frozenAfterMs} ms with 1 s keepalives`);
    });

    test('the loss is reported as a stall, not as a connect timeout', () => {
      // ssh2 tags its "Keepalive timeout" error with the level of a connect timeout; the worker's own
      // SFTP-reply watchdog may notice first.
      assert.match(outcome.down[0].reason ?? '', /stall|keepalive|stopped answering/i);
      assert.doesNotMatch(outcome.down[0].reason ?? '', /timed out connecting/);
    });
  });
});
