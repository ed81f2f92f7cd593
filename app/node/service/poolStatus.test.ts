/**
 * The status bar's pool from the engine's layout (poolStatus.ts): planned connections listed up or down, live ones
 * with their channels, and the comparison that keeps an unchanged pool from sending a status again.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import type { PoolLayout } from '../engine/engine';
import { linksUp, poolStatus, samePool } from './poolStatus';

const layout = (up: PoolLayout['up'], connections = 2, channels = 4): PoolLayout => ({
  authMethod: 'publickey',
  connections,
  channels,
  channelWindow: 1 << 21,
  up,
  rttMs: 0.234,
});

test('every planned connection is listed by number, up with its channels or down', () => {
  const p = poolStatus(layout([{ connection: 2, channels: 3 }]));
  assert.deepEqual(p, {
    connections: 2,
    channels: 4,
    rttMs: 0.2,
    links: [
      { connection: 1, up: false, channels: 0 },
      { connection: 2, up: true, channels: 3 },
    ],
  });
  assert.equal(linksUp(p), 1);
});

test('a live connection beyond the plan (a replacement) is listed too', () => {
  const p = poolStatus(
    layout([
      { connection: 1, channels: 4 },
      { connection: 3, channels: 4 },
    ]),
  );
  assert.deepEqual(
    p.links.map((l) => [l.connection, l.up]),
    [
      [1, true],
      [2, false],
      [3, true],
    ],
  );
  assert.equal(linksUp(p), 2);
});

test('samePool: equal layouts are the same; a channel more or a connection down is a change', () => {
  const a = poolStatus(
    layout([
      { connection: 1, channels: 1 },
      { connection: 2, channels: 4 },
    ]),
  );
  assert.ok(
    samePool(
      a,
      poolStatus(
        layout([
          { connection: 1, channels: 1 },
          { connection: 2, channels: 4 },
        ]),
      ),
    ),
  );
  assert.ok(
    !samePool(
      a,
      poolStatus(
        layout([
          { connection: 1, channels: 2 },
          { connection: 2, channels: 4 },
        ]),
      ),
    ),
  );
  assert.ok(!samePool(a, poolStatus(layout([{ connection: 1, channels: 1 }]))));
  assert.ok(!samePool(a, undefined));
  assert.ok(samePool(undefined, undefined));
});
