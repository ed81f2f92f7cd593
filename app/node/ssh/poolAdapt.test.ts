/** The adaptive pool's decisions: sampler readings in, grow / shed / undo / hold out, every climb bounded. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Bottleneck } from '../../common/stats/bottleneck';
import { ADAPT_TUNE, PoolAdapter, moreLanesHelp, type AdaptDecision } from './poolAdapt';

const server: Bottleneck = { verdict: 'server', detail: 'replies take 80 ms, a round trip 0.4 ms' };
const cpu: Bottleneck = { verdict: 'client-cpu', detail: 'busy 97%' };
const fullLink: Bottleneck = { verdict: 'link', detail: 'bandwidth-bound: a round trip takes 90 ms behind our data' };
const rttBound: Bottleneck = { verdict: 'link', detail: 'RTT-bound: all 640 requests in flight, each a round trip' };

/**
 * Feeds the adapter 250 ms samples for `ms`: the rate each sample adds is `rateOf(lanes)` bytes/s and the verdict
 * `verdictOf(lanes)`; a decision is applied at once (as the pool would), `capOf` bounding what the pool reaches.
 */
function run(
  a: PoolAdapter,
  ms: number,
  rateOf: (lanes: number, t: number) => number,
  verdictOf: (lanes: number, t: number) => Bottleneck,
  o: { remaining?: (bytes: number) => number | undefined; capOf?: (asked: number) => number } = {},
): AdaptDecision[] {
  const out: AdaptDecision[] = [];
  let bytes = 0;
  for (let t = 0; t <= ms; t += 250) {
    if (t > 0) bytes += (rateOf(a.lanes, t) * 250) / 1000;
    const d = a.observe({ t, bytes, bottleneck: verdictOf(a.lanes, t), remainingBytes: o.remaining?.(bytes) });
    if (!d) continue;
    out.push(d);
    if (d.kind !== 'keep' && o.capOf) a.applied(o.capOf(d.to));
  }
  return out;
}

const MB = 1e6;

test('server-bound, the rate growing with lanes up to 8: 1 → 2, then faster (it scaled) → 8 → 32, undone to 8', () => {
  const a = new PoolAdapter(1);
  const d = run(
    a,
    30_000,
    (n) => Math.min(n, 8) * 10 * MB,
    () => server,
  );
  const grows = d.filter((x) => x.kind === 'grow').map((x) => x.to);
  assert.deepEqual(grows.slice(0, 3), [2, 8, 32]);
  const undo = d.find((x) => x.kind === 'undo');
  assert.ok(undo, 'the step that did not pay is undone');
  assert.equal(undo.to, 8);
  assert.equal(a.lanes, 8);
  assert.match(undo.why, /32 lanes 80\.0 MB\/s against 80\.0 MB\/s with 8 \(\+0 %\): back to 8/);
  assert.ok(a.stepsTaken <= ADAPT_TUNE.maxSteps);
  // Having found the ceiling it holds there, trying past it again only after retryAfterMs (and undoing that too).
  const after = d.slice(d.indexOf(undo) + 1).filter((x) => x.kind !== 'keep');
  for (const x of after) assert.ok(x.kind === 'undo' ? x.to === 8 : x.to > 8, `${x.kind} ${x.to}`);
  assert.ok(after.length <= 2 * Math.ceil(30_000 / ADAPT_TUNE.retryAfterMs));
});

test('nothing happens before startAfterMs, nor when the rest of the transfer is shorter than a step', () => {
  const early = run(
    new PoolAdapter(1),
    ADAPT_TUNE.startAfterMs - 250,
    () => 10 * MB,
    () => server,
  );
  assert.deepEqual(early, []);
  const nearlyDone = run(
    new PoolAdapter(1),
    10_000,
    () => 10 * MB,
    () => server,
    { remaining: () => 5 * MB },
  );
  assert.deepEqual(nearlyDone, [], '5 MB left at 10 MB/s is 0.5 s: not worth a step');
});

test('a full link, the disk or an unknown limit never add lanes; an RTT-bound link does', () => {
  for (const b of [
    fullLink,
    { verdict: 'local-disk', detail: '' },
    { verdict: 'unknown', detail: '' },
  ] as Bottleneck[]) {
    assert.equal(moreLanesHelp(b), false, b.verdict);
    assert.deepEqual(
      run(
        new PoolAdapter(4),
        10_000,
        () => 50 * MB,
        () => b,
      ),
      [],
    );
  }
  assert.equal(moreLanesHelp(rttBound), true);
  assert.equal(moreLanesHelp({ verdict: 'window', detail: 'sender waited' }), true);
});

test("this computer's CPU sheds lanes: kept when the rate holds, undone when it falls", () => {
  // 8 lanes where the plan gave 2: the 6 added may go.
  const holds = new PoolAdapter(8, 40, 0, 2);
  const d1 = run(
    holds,
    6000,
    () => 100 * MB,
    (n) => (n > 2 ? cpu : server),
  );
  assert.equal(d1[0].kind, 'shed');
  assert.equal(d1[0].to, 5, 'half of the 6 lanes added above the plan');
  assert.equal(d1[1].kind, 'keep');
  const falls = new PoolAdapter(8, 40, 0, 2);
  const d2 = run(
    falls,
    6000,
    (n) => n * 10 * MB,
    () => cpu,
  );
  assert.deepEqual(
    d2.map((x) => [x.kind, x.to]),
    [
      ['shed', 5],
      ['undo', 8],
    ],
  );
  assert.equal(falls.lanes, 8);
  const planned = run(
    new PoolAdapter(4, 40, 0, 4),
    6000,
    () => 100 * MB,
    () => cpu,
  );
  assert.deepEqual(planned, [], 'the lanes of the plan are never shed');
  // A shed kept at 5 lanes: a server verdict right after does not grow back past 5 before retryAfterMs.
  const settled = new PoolAdapter(8, 40, 0, 2);
  const d3 = run(
    settled,
    ADAPT_TUNE.retryAfterMs,
    () => 100 * MB,
    (_n, t) => (t < 2000 ? cpu : server),
  );
  assert.deepEqual(
    d3.map((x) => [x.kind, x.to]),
    [
      ['shed', 5],
      ['keep', 5],
    ],
  );
});

test('the session limit: a pool that cannot grow past it is never asked to again', () => {
  const a = new PoolAdapter(2, 40);
  // The pool reaches 4 lanes at most (one connection, the server refuses the 5th channel).
  const d = run(
    a,
    20_000,
    (n) => n * 10 * MB,
    () => server,
    { capOf: (asked) => Math.min(asked, 4) },
  );
  assert.ok(a.lanes <= 4);
  assert.deepEqual(
    d.filter((x) => x.kind === 'grow').map((x) => x.to),
    [4, 16],
    'the step to 16 reached no more than 4: 4 became the most',
  );
  assert.equal(d.filter((x) => x.kind === 'grow' && x.from >= 4).length, 1);
});

test('every climb is bounded: at most maxSteps steps however long the transfer runs', () => {
  const a = new PoolAdapter(1, 1000);
  // A rate that keeps rewarding lanes and then punishing them, forever.
  const d = run(
    a,
    600_000,
    (n, t) => (Math.floor(t / 3000) % 2 ? 1 / n : n) * MB,
    () => server,
  );
  assert.ok(a.stepsTaken <= ADAPT_TUNE.maxSteps, `${a.stepsTaken} steps`);
  assert.ok(d.filter((x) => x.kind !== 'keep').length <= ADAPT_TUNE.maxSteps);
  assert.ok(a.lanes <= 1000);
});

test('a bandwidth cap raised mid-transfer: the ceiling found under the cap is forgotten and the climb resumes', () => {
  const a = new PoolAdapter(1);
  // Under the cap (20 MB/s) 2 lanes fill it; from 12 s on the cap is 80 MB/s and each lane gives 10 MB/s.
  const capAt = (t: number) => (t < 12_000 ? 20 : 80) * MB;
  const d = run(
    a,
    40_000,
    (n, t) => Math.min(capAt(t), n * 10 * MB),
    (n, t) => (n * 10 * MB > capAt(t) ? fullLink : server),
  );
  const firstUndo = d.findIndex((x) => x.kind === 'undo');
  assert.ok(firstUndo >= 0 && d[firstUndo].to === 2, 'undone to 2 under the 20 MB/s cap');
  assert.ok(
    d.slice(firstUndo + 1).some((x) => x.kind === 'grow' && x.to > 2),
    'grows again after the cap rose',
  );
  assert.ok(a.lanes >= 8, `${a.lanes} lanes at the end`);
});

test('a full link: one more connection is tried, kept where the cap is per connection, undone where it is shared', () => {
  const perFlow = new PoolAdapter(4, 40, 4);
  const d1 = run(
    perFlow,
    4000,
    (n) => (n / 4) * 20 * MB,
    () => fullLink,
  );
  assert.equal(d1[0].via, 'connection');
  assert.deepEqual(
    d1.slice(0, 2).map((x) => [x.kind, x.to]),
    [
      ['grow', 8],
      ['keep', 8],
    ],
  );
  const shared = new PoolAdapter(4, 40, 4);
  const d2 = run(
    shared,
    ADAPT_TUNE.retryAfterMs,
    () => 20 * MB,
    () => fullLink,
  );
  assert.deepEqual(
    d2.map((x) => [x.kind, x.to]),
    [
      ['grow', 8],
      ['undo', 4],
    ],
  );
  assert.deepEqual(
    run(
      new PoolAdapter(4, 40, 0),
      4000,
      () => 20 * MB,
      () => fullLink,
    ),
    [],
    'no connection may be added: nothing to try',
  );
});
