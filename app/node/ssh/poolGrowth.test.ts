/**
 * The adaptive pool's driver on a fake pool: steps carried out as channels, connections and parked lanes; a refused
 * channel open is the server's session limit (remembered for the host, asked past never again, no error).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { WorkerConnection } from './connection';
import { ADAPT_TUNE } from './poolAdapt';
import { PoolGrowth, type GrowablePool, type GrowthLane } from './poolGrowth';
import { sessionLimitOf } from './sessionLimits';

interface FakeConn {
  id: number;
  channels: number;
  closed: boolean;
  asked: number[];
  addChannels(n: number): Promise<void>;
}

/** A pool over a server refusing channels past `maxSessions` per connection; records what it was told. */
function fakePool(maxSessions: number, first = 1) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-growth-'));
  const conns: FakeConn[] = [];
  const conn = (channels: number): FakeConn => {
    const c: FakeConn = {
      id: conns.length,
      channels,
      closed: false,
      asked: [],
      addChannels: async (n) => {
        c.asked.push(n);
        const room = maxSessions - c.channels;
        if (room <= 0) throw new Error('open failed: administratively prohibited');
        c.channels += Math.min(room, n);
      },
    };
    conns.push(c);
    return c;
  };
  conn(first);
  const told: Array<{ kind: 'announce' | 'park'; lanes: string[] }> = [];
  const logs: string[] = [];
  const names = (lanes: GrowthLane[]) => lanes.map((l) => `${l.conn.id}:${l.channel}`);
  const pool: GrowablePool = {
    host: '127.0.0.1',
    port: 2222,
    dataDir,
    plannedLanes: () => 1,
    liveConnections: () => conns as unknown as WorkerConnection[],
    openConnection: async (n) => conn(Math.min(n, maxSessions)) as unknown as WorkerConnection,
    announce: (lanes) => void told.push({ kind: 'announce', lanes: names(lanes) }),
    park: (lanes) => void told.push({ kind: 'park', lanes: names(lanes) }),
    log: (m) => void logs.push(m),
  };
  return { pool, conns, told, logs, dataDir };
}

const server = { verdict: 'server' as const, detail: 'replies take 80 ms, a round trip 0.4 ms' };
const settle = () => new Promise((r) => setImmediate(r));

/** Feeds `g` 250 ms samples at `rateOf(active lanes)` for `ms` (steps run between samples, as on a real pool). */
async function feed(g: PoolGrowth, owner: object, ms: number, rateOf: (lanes: number) => number): Promise<void> {
  let bytes = 0;
  for (let t = 0; t <= ms; t += 250) {
    bytes += (rateOf(g.activeLanes()) * 250) / 1000;
    g.observe(owner, { t, bytes, bottleneck: server });
    await settle();
  }
}

test('a server refusing the 5th channel: 4 per connection remembered for the host, then a second connection', async () => {
  const f = fakePool(4);
  const g = new PoolGrowth(f.pool, { maxConnections: 2, reserveExecChannel: false });
  const owner = {};
  await feed(g, owner, 20_000, (n) => n * 10e6);
  assert.equal(sessionLimitOf(f.dataDir, '127.0.0.1', 2222), 4);
  assert.equal(f.conns.length, 2, 'a second connection took the lanes the first could not');
  assert.ok(
    f.conns.every((c) => c.channels <= 4),
    f.conns.map((c) => c.channels).join(),
  );
  // Asked 1, then 6 more (the rate had doubled: the climb quickens) of which 2 opened: never asked again.
  assert.deepEqual(f.conns[0].asked, [1, 6]);
  assert.ok(
    f.logs.some((l) => /refused SFTP channel 5 on connection 1: its session limit is 4 per connection/.test(l)),
  );
  assert.ok(!f.logs.some((l) => /failed/.test(l)), f.logs.join('\n'));
  assert.equal(g.activeLanes(), 8);
  // The next pool for this host starts knowing the limit (one fewer with a session kept for an exec).
  assert.equal(new PoolGrowth(f.pool, { maxConnections: 2, reserveExecChannel: false }).channelCap(), 4);
  assert.equal(new PoolGrowth(f.pool, { maxConnections: 2, reserveExecChannel: true }).channelCap(), 3);
});

test("shedding parks the newest lanes; the transfer's end gives them back; another transfer is not measured", async () => {
  const f = fakePool(16, 8);
  const g = new PoolGrowth(f.pool, { maxConnections: 1, reserveExecChannel: false });
  const owner = {};
  let bytes = 0;
  for (let t = 0; t <= ADAPT_TUNE.startAfterMs + 250; t += 250) {
    bytes += 25e6;
    g.observe(owner, { t, bytes, bottleneck: { verdict: 'client-cpu', detail: 'busy 97%' } });
    g.observe({}, { t, bytes: 0, bottleneck: server });
    await settle();
  }
  assert.deepEqual(f.told, [{ kind: 'park', lanes: ['0:4', '0:5', '0:6', '0:7'] }]);
  assert.equal(g.activeLanes(), 4);
  assert.ok(g.isParked({ conn: f.conns[0] as unknown as WorkerConnection, channel: 7 }));
  g.release(owner);
  assert.deepEqual(f.told[1], { kind: 'announce', lanes: ['0:4', '0:5', '0:6', '0:7'] });
  assert.equal(g.activeLanes(), 8);
});
