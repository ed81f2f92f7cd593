import test from 'node:test';
import assert from 'node:assert/strict';
import {
  BottleneckTracker,
  classifyInterval,
  limiterVerdict,
  idleRttMs,
  limitedByText,
  replyLatencyMs,
  transferBottleneck,
  type Bottleneck,
  type IntervalSignals,
} from './bottleneck';

/** A healthy second on a fast link: 8 of 64 requests waiting, answered in 4 ms (a few round trips). */
function signals(o: Partial<IntervalSignals> = {}): IntervalSignals {
  return {
    intervalMs: 1000,
    bytes: 50e6,
    requestsDone: 2000,
    remoteMean: 8,
    localMean: 0.5,
    requestLimit: 64,
    windowWait: 0,
    receiveWindowBytes: 16 * 1048576,
    elu: 0.4,
    pingMs: 1,
    baseRttMs: 1,
    direction: 'down',
    ...o,
  };
}

test('idle: nothing moved and nothing waited', () => {
  assert.equal(
    classifyInterval(signals({ bytes: 0, remoteMean: 0, localMean: 0, requestsDone: 0 })).verdict,
    'unknown',
  );
});

test('client-cpu: the worker thread busy nearly all the time wins over everything else', () => {
  const b = classifyInterval(signals({ elu: 0.97, windowWait: 0.9, localMean: 20 }));
  assert.equal(b.verdict, 'client-cpu');
  assert.match(b.detail, /97%/);
  assert.notEqual(classifyInterval(signals({ elu: 0.85 })).verdict, 'client-cpu');
});

test("window: data queued for the peer's WINDOW_ADJUST most of the time", () => {
  assert.equal(classifyInterval(signals({ windowWait: 0.7, direction: 'up' })).verdict, 'window');
  assert.notEqual(classifyInterval(signals({ windowWait: 0.3, direction: 'up' })).verdict, 'window');
});

test('window: a download moving one receive window per round trip', () => {
  // 2 MiB window, 100 ms RTT: at most 20 MiB/s; moving that much is window-bound.
  const s = signals({
    bytes: 20 * 1048576,
    receiveWindowBytes: 2 * 1048576,
    pingMs: 100,
    baseRttMs: 100,
    requestsDone: 80,
    remoteMean: 8,
  });
  assert.equal(classifyInterval(s).verdict, 'window');
  // The same rate with 16 MiB windows is not.
  assert.notEqual(classifyInterval({ ...s, receiveWindowBytes: 16 * 1048576 }).verdict, 'window');
});

test("window: TCP says the peer's receive window held the sender", () => {
  const b = classifyInterval(signals({ tcp: { rttMs: 1, cwndBytes: 1e6, retransmits: 0, rwndLimited: 0.8 } }));
  assert.equal(b.verdict, 'window');
  assert.match(b.detail, /TCP/);
});

test("local-disk: most of the requests' time goes to local reads and writes", () => {
  assert.equal(classifyInterval(signals({ localMean: 40, remoteMean: 10 })).verdict, 'local-disk');
  assert.notEqual(classifyInterval(signals({ localMean: 4, remoteMean: 10 })).verdict, 'local-disk');
});

test('server: replies far slower than a keepalive round trip', () => {
  // 64 requests waiting, 640 answered/s: 100 ms each, while a keepalive takes 1 ms.
  const s = signals({ remoteMean: 64, requestsDone: 640, pingMs: 1, baseRttMs: 1 });
  assert.equal(replyLatencyMs(s), 100);
  const b = classifyInterval(s);
  assert.equal(b.verdict, 'server');
  assert.match(b.detail, /100 ms/);
});

test('link, bandwidth-bound: the keepalive queues behind our data', () => {
  // Replies take 200 ms and so does the keepalive (it waits behind the same bytes); idle RTT 1 ms.
  const s = signals({ remoteMean: 64, requestsDone: 320, pingMs: 180, baseRttMs: 1 });
  const b = classifyInterval(s);
  assert.equal(b.verdict, 'link');
  assert.match(b.detail, /bandwidth-bound/);
});

test("through a proxy or jump host, TCP_INFO's round trip (to the next hop) does not replace the SSH one", () => {
  // Toxiproxy on loopback adding 25 ms each way: TCP sees 0.02 ms to the proxy, SSH measured 50 ms end to end.
  const tcp = { rttMs: 0.02, minRttMs: 0.02, cwndBytes: 1e6, retransmits: 0 };
  assert.equal(idleRttMs({ baseRttMs: 50, tcp }), 50);
  assert.equal(
    idleRttMs({ baseRttMs: 0.3, tcp: { ...tcp, minRttMs: 0.5 } }),
    0.5,
    'a direct link: the higher of the two',
  );
  assert.equal(idleRttMs({ tcp }), 0.02, "no SSH figure: TCP's");
  // Every request slot busy, each answered in about the 52 ms the keepalive takes: RTT-bound, not a queueing link.
  const b = classifyInterval(
    signals({ remoteMean: 2, requestLimit: 2, requestsDone: 38, pingMs: 52, baseRttMs: 50, tcp, bytes: 1e6 }),
  );
  assert.equal(b.verdict, 'link');
  assert.match(b.detail, /RTT-bound/, b.detail);
});

test("link, not window: an upload over a full link runs out of the server's window too (its adjustments queue)", () => {
  const b = classifyInterval(
    signals({ direction: 'up', windowWait: 0.9, remoteMean: 30, requestsDone: 16, pingMs: 300, baseRttMs: 2 }),
  );
  assert.equal(b.verdict, 'link');
  // The same window wait with a keepalive at the idle RTT: the window is the limit.
  assert.equal(
    classifyInterval(
      signals({ direction: 'up', windowWait: 0.9, remoteMean: 30, requestsDone: 16, pingMs: 31, baseRttMs: 30 }),
    ).verdict,
    'window',
  );
});

test('link, RTT-bound: every request slot busy, replies in one round trip', () => {
  const s = signals({ remoteMean: 62, requestsDone: 620, pingMs: 100, baseRttMs: 100 });
  const b = classifyInterval(s);
  assert.equal(b.verdict, 'link');
  assert.match(b.detail, /RTT-bound/);
});

test('link: TCP retransmissions', () => {
  const b = classifyInterval(signals({ tcp: { rttMs: 1, cwndBytes: 65536, retransmits: 12 } }));
  assert.equal(b.verdict, 'link');
  assert.match(b.detail, /12 TCP retransmissions/);
});

test('unknown: requests not kept outstanding (a speed limit, few files)', () => {
  assert.equal(classifyInterval(signals({ remoteMean: 0.2, localMean: 0 })).verdict, 'unknown');
  // Fast replies, free slots, no queueing: nothing to blame.
  assert.equal(classifyInterval(signals({ remoteMean: 10, requestsDone: 10000 })).verdict, 'unknown');
});

test('tracker: the first verdict shows at once, a new one only after winning twice in a row', () => {
  const t = new BottleneckTracker();
  const v = (verdict: Bottleneck['verdict']): Bottleneck => ({ verdict, detail: verdict });
  assert.equal(t.update(v('unknown')).verdict, 'unknown');
  assert.equal(t.update(v('link')).verdict, 'link');
  assert.equal(t.update(v('server')).verdict, 'link', 'one interval does not switch');
  assert.equal(t.update(v('link')).verdict, 'link');
  assert.equal(t.update(v('server')).verdict, 'link');
  assert.equal(t.update(v('server')).verdict, 'server', 'two in a row do');
  assert.equal(t.update(v('unknown')).verdict, 'server', 'a single idle interval keeps the verdict');
});

test('transfer verdict: the verdict carrying the most bytes; unknown when none has one', () => {
  const c = (verdict: Bottleneck['verdict'], rate: number) => ({
    bottleneck: { verdict, detail: `${verdict} detail` },
    rate,
  });
  assert.equal(transferBottleneck([c('link', 10), c('server', 30), c('link', 15)]).verdict, 'server');
  assert.equal(transferBottleneck([c('unknown', 100), c('local-disk', 1)]).verdict, 'local-disk');
  assert.equal(transferBottleneck([c('unknown', 100)]).verdict, 'unknown');
  assert.equal(transferBottleneck([]).verdict, 'unknown');
  assert.equal(limitedByText({ verdict: 'window', detail: 'x' }), 'limited by: the SSH channel window (x)');
});

test('a speed limit that requests waited on, at most of its rate, is the verdict: "your speed limit"', () => {
  const MiB = 1048576;
  const held = limiterVerdict({ bytesPerSecond: 4 * MiB, waits: 12, rate: 3.9 * MiB });
  assert.deepEqual(held, { verdict: 'speed-limit', detail: '3.9 MiB/s of a 4.0 MiB/s limit' });
  assert.equal(limitedByText(held!), 'limited by: your speed limit (3.9 MiB/s of a 4.0 MiB/s limit)');
  assert.equal(limiterVerdict({ bytesPerSecond: 4 * MiB, waits: 0, rate: 4 * MiB }), undefined, 'nobody waited on it');
  assert.equal(
    limiterVerdict({ bytesPerSecond: 4 * MiB, waits: 3, rate: 1 * MiB }),
    undefined,
    'something else holds the rate far below it',
  );
  assert.equal(limiterVerdict({ bytesPerSecond: 0, waits: 3, rate: 1 * MiB }), undefined, 'no limit');
});

test('without TCP data (Windows) a link or window verdict says so instead of passing for a measurement', () => {
  const noTcp = classifyInterval(signals({ remoteMean: 64, requestsDone: 320, pingMs: 180, baseRttMs: 1 }));
  assert.equal(noTcp.verdict, 'link');
  assert.ok(noTcp.detail.endsWith('; no TCP data on this system: judged from SSH timings alone'), noTcp.detail);
  const window = classifyInterval(
    signals({ direction: 'up', windowWait: 0.9, remoteMean: 30, requestsDone: 16, pingMs: 31, baseRttMs: 30 }),
  );
  assert.match(window.detail, /no TCP data on this system/);
  const withTcp = classifyInterval(signals({ tcp: { rttMs: 1, cwndBytes: 65536, retransmits: 12 } }));
  assert.doesNotMatch(withTcp.detail, /no TCP data/);
  const server = classifyInterval(signals({ remoteMean: 64, requestsDone: 640, pingMs: 1, baseRttMs: 1 }));
  assert.doesNotMatch(server.detail, /no TCP data/, 'the server verdict needs no TCP data');
});
