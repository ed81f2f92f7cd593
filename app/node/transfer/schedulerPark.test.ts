/**
 * Parked lanes (the adaptive pool shed them, ssh/poolGrowth.ts): no new task starts on them, running ones finish, they
 * take work again when given back, and a parked lane of a lost connection still counts towards "every connection is
 * gone".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SluiceError } from '../errors';
import type { WorkerConnection } from '../ssh/connection';
import type { Lane } from '../ssh/connectionPool';
import { Scheduler } from './scheduler';

function lane(channel: number, conn = { closed: false, id: 0 }): Lane {
  return { conn: conn as unknown as WorkerConnection, channel };
}

function within<T>(what: string, ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

const tick = () => new Promise((r) => setImmediate(r));

test('a parked lane starts no new task; given back (a new lane object for the same channel) it works again', async () => {
  const s = new Scheduler([lane(0), lane(1)], 1);
  s.parkLanes([lane(1)]);
  const ran: number[] = [];
  for (let i = 0; i < 6; i++) s.push({ run: async (l) => void ran.push(l.channel), fail: () => undefined });
  for (let i = 0; i < 5; i++) await tick();
  assert.deepEqual([...new Set(ran)], [0], 'only the lane not parked ran tasks');
  s.addLanes([lane(1)]);
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  // One task per lane at a time, two held tasks: both lanes must run one.
  const on = new Set<number>();
  for (let i = 0; i < 2; i++)
    s.push({
      run: async (l) => {
        on.add(l.channel);
        await held;
      },
      fail: () => undefined,
    });
  for (let i = 0; i < 10 && on.size < 2; i++) await tick();
  assert.deepEqual([...on].sort(), [0, 1], 'the lane given back took a task');
  release();
  s.end();
  await within('drained', 2000, s.drained);
});

test('the last lane is never parked, and a parked lane ends with the job', async () => {
  const s = new Scheduler([lane(0), lane(1)], 2);
  s.parkLanes([lane(0), lane(1)]);
  let done = 0;
  for (let i = 0; i < 4; i++) s.push({ run: async () => void done++, fail: () => undefined });
  s.end();
  await within('drained with lanes parked', 2000, s.drained);
  assert.equal(done, 4);
});

test('every connection lost while a lane is parked: the queued tasks fail, nothing hangs', async () => {
  const conn = { closed: false, id: 0 };
  const s = new Scheduler([lane(0, conn), lane(1, conn)], 1);
  s.parkLanes([lane(1, conn)]);
  const failures: SluiceError[] = [];
  s.push({
    run: async () => {
      conn.closed = true;
      throw new SluiceError('CONNECTION_LOST', 'gone');
    },
    fail: (e) => void failures.push(e),
  });
  s.push({ run: async () => undefined, fail: (e) => void failures.push(e) });
  s.end();
  await within('drained after the loss', 2000, s.drained);
  assert.equal(failures.length, 2);
  assert.ok(failures.every((e) => e.code === 'CONNECTION_LOST'));
});
