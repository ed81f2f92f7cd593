import test from 'node:test';
import assert from 'node:assert/strict';
import { SIG, SIGNAL_SLOTS } from '../sftp/pipeStats';
import type { WorkerConnection } from '../ssh/connection';
import { BottleneckSampler, VERDICT_INTERVAL_MS, intervalSignals } from './bottleneckSampler';
import type { ConnectionSample } from './types';

function slots(o: Partial<Record<keyof typeof SIG, number>>): Float64Array {
  const a = new Float64Array(SIGNAL_SLOTS).fill(0);
  a[SIG.tcpRttUs] = NaN;
  for (const [k, v] of Object.entries(o)) a[SIG[k as keyof typeof SIG]] = v;
  return a;
}

test("interval signals: means over the sampler ticks, Little's-law inputs, ELU, direction; TCP absent stays absent", () => {
  const prev = slots({ samples: 10, remoteSum: 100, readsDone: 5, eluActiveMs: 100, eluIdleMs: 900 });
  const now = slots({
    samples: 50,
    remoteSum: 100 + 40 * 32,
    localSum: 40 * 2,
    windowWaitTicks: 10,
    readsDone: 105,
    writesDone: 0,
    eluActiveMs: 100 + 250,
    eluIdleMs: 900 + 750,
    pingMs: 3,
    baseRttMs: 1,
    requestLimit: 64,
    receiveWindow: 2097152,
  });
  const s = intervalSignals(now, prev, 1000, 5e6)!;
  assert.equal(s.remoteMean, 32);
  assert.equal(s.localMean, 2);
  assert.equal(s.windowWait, 0.25);
  assert.equal(s.requestsDone, 100);
  assert.equal(s.elu, 0.25);
  assert.equal(s.direction, 'down');
  assert.equal(s.pingMs, 3);
  assert.equal(s.tcp, undefined);
  assert.equal(intervalSignals(prev, prev, 1000, 0), undefined, 'no tick: no interval');
});

test('the sampler gives each connection its verdict once a second and repeats it between; the transfer takes it', () => {
  let t = 0;
  const signals = slots({ samples: 1 });
  const conn = { id: 7, signals } as unknown as WorkerConnection;
  const sampler = new BottleneckSampler(
    () => [conn],
    () => t,
  );
  const sample = (bytes: number): ConnectionSample => ({
    id: 7,
    bytes,
    rate: 1e6,
    inFlightBytes: 0,
    outstanding: 0,
    channels: [],
  });
  const first = sample(0);
  assert.equal(sampler.sample([first]).verdict, 'unknown');
  assert.equal(first.bottleneck?.verdict, 'unknown');
  // One second of a busy worker thread.
  signals.set(
    slots({ samples: 41, remoteSum: 40 * 8, readsDone: 50, eluActiveMs: 980, eluIdleMs: 20, requestLimit: 64 }),
  );
  t = VERDICT_INTERVAL_MS / 2;
  assert.equal(sampler.sample([sample(1e6)]).verdict, 'unknown', 'half a second: no new verdict yet');
  t = VERDICT_INTERVAL_MS;
  const busy = sample(2e6);
  assert.equal(sampler.sample([busy]).verdict, 'client-cpu');
  assert.equal(busy.bottleneck?.verdict, 'client-cpu');
  t += 250;
  const next = sample(2.2e6);
  assert.equal(sampler.sample([next]).verdict, 'client-cpu', 'repeated between intervals');
  assert.equal(next.bottleneck?.verdict, 'client-cpu');
});

test("a speed limit the requests wait on wins over the connections' verdicts; none set, or no wait: theirs", () => {
  let t = 0;
  const signals = slots({ samples: 1 });
  const conn = { id: 1, signals } as unknown as WorkerConnection;
  const limit = { bytesPerSecond: 2e6, grantedBytes: 0, waits: 0, changes: 1 };
  const sampler = new BottleneckSampler(
    () => [conn],
    () => t,
    () => [limit, { bytesPerSecond: 0, grantedBytes: 0, waits: 0, changes: 0 }],
  );
  const sample = (rate: number): ConnectionSample => ({
    id: 1,
    bytes: rate,
    rate,
    inFlightBytes: 0,
    outstanding: 0,
    channels: [],
  });
  sampler.sample([sample(0)]);
  // A busy worker thread, but the requests waited on the limit and the rate is the limit's.
  signals.set(
    slots({ samples: 41, remoteSum: 40 * 8, readsDone: 50, eluActiveMs: 980, eluIdleMs: 20, requestLimit: 64 }),
  );
  limit.waits = 40;
  t = VERDICT_INTERVAL_MS;
  const held = sampler.sample([sample(1.95e6)]);
  assert.equal(held.verdict, 'speed-limit');
  assert.match(held.detail, /of a 1\.9 MiB\/s limit/);
  t += VERDICT_INTERVAL_MS;
  assert.equal(
    sampler.sample([sample(1.95e6)]).verdict,
    'client-cpu',
    "no request waited this interval: the connection's verdict",
  );
});
