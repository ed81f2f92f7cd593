/** The pool plan: one pure decision of connections and channels from the RTT, the cores and the user's choice. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AUTO_TUNE, planPool } from './poolPlan';

const fast = AUTO_TUNE.rttMs - 1;
const slow = 50;

test('before the RTT is known and on a fast link: 1 connection × 1 channel (2 for a segmented put)', () => {
  assert.deepEqual(planPool({ cores: 2 }), { connections: 1, channelsPerConnection: 1, slowLink: false });
  assert.deepEqual(planPool({ cores: 8, rttMs: fast }), { connections: 1, channelsPerConnection: 1, slowLink: false });
  assert.equal(
    planPool({ cores: 2, rttMs: fast, segmentedPut: true }).channelsPerConnection,
    AUTO_TUNE.segmentedPutChannels,
  );
});

test("on a slow link: OpenSSH's 10 sessions as channels (9 with a session kept for exec), 1 connection on 2 cores, 2 on more", () => {
  assert.deepEqual(planPool({ cores: 2, rttMs: slow }), { connections: 1, channelsPerConnection: 10, slowLink: true });
  assert.deepEqual(planPool({ cores: 8, rttMs: slow }), { connections: 2, channelsPerConnection: 10, slowLink: true });
  assert.equal(planPool({ cores: 2, rttMs: slow, reserveExecChannel: true }).channelsPerConnection, 9);
});

test('--connections N keeps the planned channels per connection (it gave N × 1 before)', () => {
  assert.deepEqual(planPool({ cores: 2, rttMs: slow, connections: 2 }), {
    connections: 2,
    channelsPerConnection: 10,
    slowLink: true,
  });
  assert.deepEqual(planPool({ cores: 2, rttMs: fast, connections: 3 }), {
    connections: 3,
    channelsPerConnection: 1,
    slowLink: false,
  });
  assert.equal(
    planPool({ cores: 2, rttMs: fast, connections: 2, segmentedPut: true }).channelsPerConnection,
    1,
    'explicit connections: one channel each on a fast link',
  );
});

test('--channels M is kept as given, and alone it keeps one connection', () => {
  assert.deepEqual(planPool({ cores: 8, rttMs: slow, channels: 4 }), {
    connections: 1,
    channelsPerConnection: 4,
    slowLink: true,
  });
  assert.deepEqual(planPool({ cores: 8, rttMs: slow, channels: 4, connections: 3 }), {
    connections: 3,
    channelsPerConnection: 4,
    slowLink: true,
  });
});
