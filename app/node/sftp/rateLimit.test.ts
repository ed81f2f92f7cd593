/**
 * Speed limits: the shared token bucket on an injected clock (no sleeping), the per-thread gate over several
 * buckets, and two worker threads taking from the same buckets at once.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { SluiceError } from '../errors';
import {
  MAX_WAIT_MS,
  RATE_LIMIT_BURST_MS,
  RateBucket,
  RateGate,
  globalRateLimit,
  setGlobalRateLimit,
} from './rateLimit';

const KiB = 1024;
const MiB = 1024 * 1024;

/** A clock the test moves: ms → ns. */
function fakeClock(): { clock: () => bigint; advance(ms: number): void } {
  let ns = 1_000_000_000_000n;
  return {
    clock: () => ns,
    advance: (ms) => {
      ns += BigInt(Math.round(ms * 1e6));
    },
  };
}

/** Takes `chunk`-byte requests through `gate` while it has tokens; @returns the bytes taken */
function drain(gate: RateGate, chunk: number): number {
  let taken = 0;
  while (gate.ready()) {
    gate.charge(chunk);
    taken += chunk;
  }
  return taken;
}

describe('RateBucket', () => {
  test('unlimited: always ready, nothing charged or counted', () => {
    const b = new RateBucket({ clock: fakeClock().clock });
    const gate = new RateGate([b]);
    for (let i = 0; i < 1000; i++) {
      assert.ok(gate.ready());
      gate.charge(MiB);
    }
    assert.deepEqual(b.stats(), { bytesPerSecond: 0, grantedBytes: 0, waits: 0, changes: 0 });
    assert.equal(b.limited, false);
  });

  test('limited: a full bucket gives the burst plus one request, then exactly the rate over 10 s', () => {
    const c = fakeClock();
    const rate = MiB;
    const chunk = 32 * KiB;
    const b = new RateBucket({ bytesPerSecond: rate, clock: c.clock });
    const gate = new RateGate([b]);
    const burst = (rate * RATE_LIMIT_BURST_MS) / 1000;
    const first = drain(gate, chunk);
    assert.ok(first >= burst && first <= burst + chunk, `first burst ${first}`);
    let total = first;
    for (let ms = 1; ms <= 10_000; ms++) {
      c.advance(1);
      total += drain(gate, chunk);
      // Never more than the rate since the start, plus the burst and the one request that may overdraw it.
      assert.ok(total <= (rate * ms) / 1000 + burst + chunk, `${total} bytes after ${ms} ms`);
    }
    assert.ok(total >= rate * 10 + burst - chunk, `only ${total} bytes in 10 s`);
    assert.equal(b.stats().grantedBytes, total);
  });

  test('a request larger than the burst passes on a non-empty bucket and its debt is waited out', () => {
    const c = fakeClock();
    const b = new RateBucket({ bytesPerSecond: 100 * KiB, clock: c.clock });
    const gate = new RateGate([b]);
    assert.ok(gate.ready());
    gate.charge(200 * KiB); // 2 s of the rate; the bucket holds 100 ms
    assert.equal(gate.ready(), false);
    assert.equal(Math.round(b.waitNs() / 1e6), 2000 - RATE_LIMIT_BURST_MS);
    c.advance(2000 - RATE_LIMIT_BURST_MS - 1);
    assert.equal(gate.ready(), false);
    c.advance(1);
    assert.ok(gate.ready());
  });

  test('setRate: tokens carry over (at most a new full bucket), a debt is repaid at the new rate, 0 lifts the limit', () => {
    const c = fakeClock();
    const b = new RateBucket({ bytesPerSecond: MiB, clock: c.clock });
    b.charge(MiB); // 1 s of debt minus the 100 ms burst: 900 ms to wait
    assert.equal(Math.round(b.waitNs() / 1e6), 900);
    b.setRate(2 * MiB); // the same bytes at twice the rate: tokens = -0.9 MiB, waited out at 2 MiB/s
    assert.equal(Math.round(b.waitNs() / 1e6), 450);
    b.setRate(MiB / 2);
    assert.equal(Math.round(b.waitNs() / 1e6), 1800);
    b.setRate(0);
    assert.equal(b.waitNs(), 0);
    assert.equal(b.limited, false);
    b.setRate(10 * MiB); // from unlimited: a full bucket
    assert.equal(b.waitNs(), 0);
    assert.equal(drain(new RateGate([b]), 64 * KiB), 1024 * KiB + 64 * KiB);
    c.advance(10_000); // idle: tokens are capped at the bucket's size...
    b.setRate(KiB); // ...and at the new, smaller bucket's size after a change
    assert.equal(drain(new RateGate([b]), 64), 128);
    assert.deepEqual(
      { ...b.stats(), grantedBytes: undefined },
      { bytesPerSecond: KiB, grantedBytes: undefined, waits: 0, changes: 6 },
    );
    assert.throws(
      () => b.setRate(-1),
      (e: unknown) => e instanceof SluiceError && e.code === 'USAGE',
    );
    assert.throws(
      () => b.setRate(Number.NaN),
      (e: unknown) => e instanceof SluiceError && e.code === 'USAGE',
    );
  });

  test("another thread's view of the same memory sees the limit and the charges", () => {
    const c = fakeClock();
    const a = new RateBucket({ bytesPerSecond: MiB, clock: c.clock });
    const view = new RateBucket({ buffer: a.buffer, clock: c.clock });
    assert.equal(view.bytesPerSecond, MiB);
    view.charge(MiB);
    assert.ok(a.waitNs() > 0);
    assert.equal(a.stats().grantedBytes, MiB);
    view.setRate(0);
    assert.equal(a.limited, false);
  });

  test('the process-wide bucket: one per process, set with setGlobalRateLimit', () => {
    assert.equal(globalRateLimit(), globalRateLimit());
    setGlobalRateLimit(5 * MiB);
    assert.equal(globalRateLimit().bytesPerSecond, 5 * MiB);
    setGlobalRateLimit(0);
    assert.equal(globalRateLimit().limited, false);
  });
});

describe('RateGate', () => {
  test('a request takes from every bucket: the emptier one decides, both are charged', () => {
    const c = fakeClock();
    const global = new RateBucket({ bytesPerSecond: 10 * MiB, clock: c.clock });
    const site = new RateBucket({ bytesPerSecond: MiB, clock: c.clock });
    const other = new RateBucket({ clock: c.clock });
    const gate = new RateGate([global, site]);
    const taken = drain(gate, 16 * KiB);
    assert.ok(taken <= MiB / 10 + 16 * KiB, `${taken} bytes past a 1 MiB/s site`);
    assert.equal(global.stats().grantedBytes, taken);
    assert.equal(site.stats().grantedBytes, taken);
    // Another site under the same global limit has its own bucket: the global one still has tokens.
    assert.ok(new RateGate([global, other]).ready());
    assert.ok(drain(new RateGate([global, other]), 16 * KiB) >= MiB - taken);
    assert.equal(gate.ready(), false, 'both empty now');
  });

  test('waiters are woken in turn, one request each while tokens last, and counted', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const c = fakeClock();
    const b = new RateBucket({ bytesPerSecond: 100 * KiB, clock: c.clock });
    const gate = new RateGate([b]);
    drain(gate, 10 * KiB); // empty
    const order: string[] = [];
    const waiter = (name: string) => {
      const fn = () => {
        if (!gate.ready()) {
          gate.onReady(fn);
          return;
        }
        gate.charge(10 * KiB);
        order.push(name);
        if (gate.ready()) return; // would take more; enough here
        gate.onReady(fn);
      };
      return fn;
    };
    const a = waiter('a');
    const w = waiter('b');
    gate.onReady(a);
    gate.onReady(a);
    gate.onReady(w);
    assert.equal(gate.waiting, 2, 'registered once each');
    assert.equal(b.stats().waits, 2, 'each registration that found the bucket empty');
    for (let i = 0; i < 4; i++) {
      c.advance(100);
      t.mock.timers.tick(MAX_WAIT_MS);
    }
    assert.deepEqual(order, ['a', 'b', 'a', 'b']);
  });

  test('take: waits for tokens, then charges; an abort rejects with ABORTED and leaves no waiter', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const c = fakeClock();
    const b = new RateBucket({ bytesPerSecond: 100 * KiB, clock: c.clock });
    const gate = new RateGate([b]);
    await gate.take(200 * KiB); // a full bucket: at once, and 1.9 s of debt
    let done = false;
    const taking = gate.take(KiB).then(() => {
      done = true;
    });
    c.advance(1800);
    t.mock.timers.tick(MAX_WAIT_MS * 8);
    await Promise.resolve();
    assert.equal(done, false, 'the debt is not paid yet');
    c.advance(100);
    t.mock.timers.tick(MAX_WAIT_MS);
    await taking;
    assert.equal(b.stats().grantedBytes, 201 * KiB);

    const abort = new AbortController();
    const aborted = gate.take(KiB, abort.signal);
    abort.abort();
    await assert.rejects(aborted, (e: unknown) => e instanceof SluiceError && e.code === 'ABORTED');
    assert.equal(gate.waiting, 0);
    await assert.rejects(
      gate.take(KiB, abort.signal),
      (e: unknown) => e instanceof SluiceError && e.code === 'ABORTED',
    );
    assert.equal(b.stats().grantedBytes, 201 * KiB, 'an aborted take charges nothing');
  });

  test('a limit lifted while requests wait lets them go at the next look (at most MAX_WAIT_MS)', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const c = fakeClock();
    const b = new RateBucket({ bytesPerSecond: KiB, clock: c.clock });
    const gate = new RateGate([b]);
    gate.charge(MiB); // 17 minutes of debt
    let woken = 0;
    gate.onReady(() => {
      woken++;
    });
    t.mock.timers.tick(MAX_WAIT_MS - 1);
    assert.equal(woken, 0);
    b.setRate(0);
    t.mock.timers.tick(1);
    assert.equal(woken, 1);
  });
});

/**
 * A worker that, at each step of the shared clock, takes `chunk`-byte requests while its gate allows (both workers
 * wake together on the step and race), then says it is done with that step. Step -1 ends it.
 */
const TAKER = `
const { workerData, parentPort } = require('node:worker_threads');
const { RateBucket, RateGate } = require(${JSON.stringify(require.resolve('./rateLimit'))});
const clockNs = new BigInt64Array(workerData.clock);
const ctl = new Int32Array(workerData.ctl);
const clock = () => Atomics.load(clockNs, 0);
const gate = new RateGate(workerData.buckets.map((buffer) => new RateBucket({ buffer, clock })));
let taken = 0;
for (let step = 0; ; ) {
  Atomics.wait(ctl, 0, step);
  step = Atomics.load(ctl, 0);
  if (step < 0) break;
  while (gate.ready()) { gate.charge(workerData.chunk); taken += workerData.chunk; }
  Atomics.store(ctl, 1 + workerData.index, step);
  Atomics.notify(ctl, 1 + workerData.index);
}
parentPort.postMessage(taken);
`;

test('two worker threads taking at once never exceed the global or a site budget', async () => {
  const clockBuf = new SharedArrayBuffer(8);
  const clockNs = new BigInt64Array(clockBuf);
  clockNs[0] = 5_000_000_000n;
  const clock = () => Atomics.load(clockNs, 0);
  const ctl = new Int32Array(new SharedArrayBuffer(12)); // step (-1: stop), step done by worker 0, by worker 1
  const chunk = 64 * KiB;
  const global = new RateBucket({ bytesPerSecond: 10 * MiB, clock });
  const siteA = new RateBucket({ bytesPerSecond: 4 * MiB, clock });
  const siteB = new RateBucket({ clock });
  const workers = [
    [global, siteA],
    [global, siteB],
  ].map(
    (buckets, index) =>
      new Worker(TAKER, {
        eval: true,
        workerData: { clock: clockBuf, ctl: ctl.buffer, buckets: buckets.map((b) => b.buffer), chunk, index },
      }),
  );
  const results = workers.map(
    (w) =>
      new Promise<number>((resolve, reject) => {
        w.once('message', resolve);
        w.once('error', reject);
      }),
  );
  const bound = (rate: number, ms: number, takers: number) =>
    (rate * (ms + RATE_LIMIT_BURST_MS)) / 1000 + takers * chunk;
  const steps = 3000; // 3 s of the shared clock, 1 ms a step
  try {
    for (let step = 1; step <= steps; step++) {
      Atomics.add(clockNs, 0, 1_000_000n);
      Atomics.store(ctl, 0, step);
      Atomics.notify(ctl, 0);
      for (const seen of [1, 2]) {
        // Each worker has drained the buckets at this time at least once.
        for (let v = Atomics.load(ctl, seen); v < step; v = Atomics.load(ctl, seen)) Atomics.wait(ctl, seen, v, 1000);
      }
      const g = global.stats().grantedBytes;
      assert.ok(g <= bound(10 * MiB, step, 2), `global: ${g} bytes after ${step} ms`);
      assert.ok(
        siteA.stats().grantedBytes <= bound(4 * MiB, step, 1),
        `site A: ${siteA.stats().grantedBytes} bytes after ${step} ms`,
      );
    }
  } finally {
    Atomics.store(ctl, 0, -1);
    Atomics.notify(ctl, 0);
  }
  const [a, b] = await Promise.all(results);
  assert.ok(a > 0 && b > 0, `both threads took: ${a}, ${b}`);
  assert.equal(global.stats().grantedBytes, a + b, 'every request charged the global bucket');
  assert.equal(siteA.stats().grantedBytes, a);
  assert.ok(a + b >= 10 * MiB * 3 - chunk, `the global budget was used: ${a + b} bytes in 3 s`);
});

/** A worker that charges `n` requests of `bytes` as fast as it can once the start flag is set. */
const CHARGER = `
const { workerData, parentPort } = require('node:worker_threads');
const { RateBucket } = require(${JSON.stringify(require.resolve('./rateLimit'))});
const clockNs = new BigInt64Array(workerData.clock);
const start = new Int32Array(workerData.start);
const bucket = new RateBucket({ buffer: workerData.bucket, clock: () => Atomics.load(clockNs, 0) });
Atomics.add(start, 1, 1);
Atomics.notify(start, 1);
Atomics.wait(start, 0, 0);
for (let i = 0; i < workerData.n; i++) bucket.charge(workerData.bytes);
parentPort.postMessage('done');
`;

test('two worker threads charging one bucket at once lose no charge', async () => {
  const clockBuf = new SharedArrayBuffer(8);
  const clockNs = new BigInt64Array(clockBuf);
  clockNs[0] = 5_000_000_000n;
  const start = new Int32Array(new SharedArrayBuffer(8)); // go, workers ready
  const rate = 1e9; // 1 ns per byte
  const bucket = new RateBucket({ bytesPerSecond: rate, clock: () => Atomics.load(clockNs, 0) });
  const n = 200_000;
  const bytes = 1000;
  const workers = [0, 1].map(
    () =>
      new Worker(CHARGER, {
        eval: true,
        workerData: { clock: clockBuf, start: start.buffer, bucket: bucket.buffer, n, bytes },
      }),
  );
  const done = workers.map(
    (w) =>
      new Promise((resolve, reject) => {
        w.once('message', resolve);
        w.once('error', reject);
      }),
  );
  for (let v = Atomics.load(start, 1); v < 2; v = Atomics.load(start, 1)) Atomics.wait(start, 1, v, 1000);
  Atomics.store(start, 0, 1);
  Atomics.notify(start, 0);
  await Promise.all(done);
  // The clock stood still: the bucket is exactly every charge's time ahead, less the burst.
  assert.equal(bucket.waitNs(), 2 * n * bytes - RATE_LIMIT_BURST_MS * 1e6);
  assert.equal(bucket.stats().grantedBytes, 2 * n * bytes);
});
