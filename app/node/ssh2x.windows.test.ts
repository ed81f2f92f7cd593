import test from 'node:test';
import assert from 'node:assert/strict';
import type { SFTPWrapper } from 'ssh2';
import { channelWindows } from './ssh2x';

const channel = (o: Record<string, unknown>) => o as unknown as SFTPWrapper;

test("channelWindows reads ssh2's flow-control fields: data queued for WINDOW_ADJUST, windows both ways", () => {
  const [idle, waiting, queued, closed, bare] = channelWindows([
    channel({
      outgoing: { window: 1 << 20, state: 'open' },
      incoming: { window: 2 << 20 },
      _waitWindow: false,
      _buffer: [],
    }),
    channel({
      outgoing: { window: 0, state: 'open' },
      incoming: { window: 100, maxWindow: 8 << 20 },
      _waitWindow: true,
      _buffer: [],
    }),
    channel({
      outgoing: { window: 10, state: 'open' },
      incoming: { window: 0 },
      _waitWindow: false,
      _buffer: [Buffer.alloc(1)],
    }),
    channel({
      outgoing: { window: 0, state: 'closed' },
      incoming: { window: 0 },
      _waitWindow: true,
      _buffer: [Buffer.alloc(1)],
    }),
    channel({}),
  ]);
  assert.deepEqual(idle, { outgoing: 1 << 20, waitingForWindow: false, incoming: 2 << 20, incomingMax: 2 << 20 });
  assert.deepEqual(waiting, { outgoing: 0, waitingForWindow: true, incoming: 100, incomingMax: 8 << 20 });
  assert.equal(queued.waitingForWindow, true);
  assert.equal(closed.waitingForWindow, false, 'a closed channel waits for nothing');
  assert.deepEqual(bare, { outgoing: 0, waitingForWindow: false, incoming: 0, incomingMax: 2 << 20 });
});
