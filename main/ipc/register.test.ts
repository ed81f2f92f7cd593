import test from 'node:test';
import assert from 'node:assert/strict';
import { FakeWebContents, installElectronMock } from '../test/mockElectron';
import type { EventName, EventPayloads } from '../../app/common/ipc/contract';
import type { ServiceListener } from '../../app/node/service';

installElectronMock();
const { EventCoalescer } = require('./coalescer') as typeof import('./coalescer');
const { attachWindow } = require('./register') as typeof import('./register');

function fakeTimers(): {
  timers: { setTimeout: (fn: () => void) => number; clearTimeout: () => void };
  fire: () => void;
  pending: () => number;
} {
  let queued: Array<() => void> = [];
  return {
    timers: {
      setTimeout: (fn) => {
        queued.push(fn);
        return queued.length;
      },
      clearTimeout: () => {
        queued = [];
      },
    },
    fire: () => {
      const q = queued;
      queued = [];
      q.forEach((f) => f());
    },
    pending: () => queued.length,
  };
}

test('progress and queue deltas are coalesced into one batch per interval', () => {
  const sent: Array<{ event: EventName; payload: unknown }> = [];
  const ft = fakeTimers();
  const c = new EventCoalescer((event, payload) => sent.push({ event, payload }), 100, ft.timers);
  for (let i = 1; i <= 50; i++) {
    c.push('queue.delta', { events: [{ type: 'updated', id: 'j', patch: { bytesDone: i } }] });
    c.push('progress', { samples: [{ siteId: 's', t: i, rate: i, connections: [] }] });
    c.push('log', { lines: [{ t: i, level: 'info', message: `l${i}` }] });
  }
  assert.equal(sent.length, 0, 'nothing sent before the interval');
  assert.equal(ft.pending(), 1, 'one timer for the whole burst');
  ft.fire();
  assert.deepEqual(
    sent.map((s) => s.event),
    ['queue.delta', 'progress', 'log'],
  );
  assert.deepEqual((sent[0].payload as EventPayloads['queue.delta']).events, [
    { type: 'updated', id: 'j', patch: { bytesDone: 50 } },
  ]);
  assert.equal((sent[1].payload as EventPayloads['progress']).samples.length, 50);
  assert.equal((sent[2].payload as EventPayloads['log']).lines.length, 50);
});

test('prompts go out at once, after what was buffered; a snapshot supersedes buffered deltas', () => {
  const sent: EventName[] = [];
  const ft = fakeTimers();
  const c = new EventCoalescer((event) => sent.push(event), 100, ft.timers);
  c.push('queue.delta', { events: [{ type: 'removed', ids: ['x'] }] });
  c.push('hostKey.prompt', {
    promptId: 'p',
    siteId: 's',
    host: 'h',
    port: 22,
    kind: 'unknown',
    presented: { keyType: 'ssh-ed25519', fingerprint: 'SHA256:x' },
  });
  assert.deepEqual(sent, ['queue.delta', 'hostKey.prompt']);
  c.push('queue.delta', { events: [{ type: 'removed', ids: ['y'] }] });
  c.push('queue.snapshot', { jobs: [] });
  assert.deepEqual(sent, ['queue.delta', 'hostKey.prompt', 'queue.snapshot']);
  assert.equal(ft.pending(), 0);
});

test('attachWindow sends a snapshot on load, forwards events on sluice:event:* and detaches on destroy', () => {
  const listeners = new Set<ServiceListener>();
  const service = {
    subscribe: (l: ServiceListener) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    jobs: () => [],
  };
  const wc = new FakeWebContents();
  attachWindow(service as never, wc as never);
  wc.emit('did-finish-load');
  assert.deepEqual(wc.sent, [{ channel: 'sluice:event:queue.snapshot', payload: { jobs: [] } }]);
  for (const l of listeners)
    l('session.status', { siteId: 's', siteName: 'S', state: 'connected', connectionsUp: 1, connections: 1 });
  assert.equal(wc.sent[1].channel, 'sluice:event:session.status');
  wc.emit('destroyed');
  assert.equal(listeners.size, 0);
});
