/**
 * Scheduler unit tests with fake lanes (no SSH): work stealing, priority order, re-queue on connection
 * loss with bounded attempts, and the "every connection is gone" stop.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SluiceError } from '../errors';
import type { WorkerConnection } from '../ssh/connection';
import type { Lane } from '../ssh/connectionPool';
import { Scheduler, type Task } from './scheduler';

/** A lane on a fake connection whose `closed` flag the test flips. */
interface FakeLane extends Lane {
  name: string;
  kill(): void;
}

function fakeLane(name: string, channel = 0, shared?: { closed: boolean; id: number }): FakeLane {
  const conn = shared ?? { closed: false, id: 0 };
  return {
    name,
    conn: conn as unknown as WorkerConnection,
    channel,
    kill: () => {
      conn.closed = true;
    },
  };
}

/** A promise with its resolver, to release a task from the outside. */
function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => {
    open = r;
  });
  return { promise, open };
}

/** Resolves within `ms` or rejects naming `what` (every wait in these tests is bounded). */
function within<T>(what: string, ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** A task that records where it ran and how it ended. */
interface Probe extends Task {
  runs: string[];
  failures: SluiceError[];
  done: boolean;
}

/**
 * Two lanes, one kept busy so that a victim task runs on the other first; its first attempt loses its connection
 * (`kill` marks the lane's connection closed, at once or later) and throws CONNECTION_LOST. Returns once drained.
 */
async function runVictimBesideBusyLane(kill: (lane: FakeLane) => void): Promise<Probe> {
  const s = new Scheduler([fakeLane('a'), fakeLane('b')], 1);
  const bRunning = gate();
  const bRelease = gate();
  s.push(
    probeTask(async () => {
      bRunning.open();
      await bRelease.promise;
    }),
  );
  await bRunning.promise;
  const victim = probeTask(async (lane, attempt) => {
    if (attempt === 1) {
      kill(lane);
      throw new SluiceError('CONNECTION_LOST', `connection to ${lane.name} was lost`);
    }
  });
  s.push(victim);
  s.end();
  await within(
    'victim first run',
    5_000,
    (async () => {
      while (victim.runs.length < 1) await new Promise((r) => setImmediate(r));
    })(),
  );
  bRelease.open();
  await within('drain', 5_000, s.drained);
  return victim;
}

function probeTask(body: (lane: FakeLane, attempt: number) => Promise<void>, priority?: number): Probe {
  const t: Probe = {
    priority,
    runs: [],
    failures: [],
    done: false,
    run: async (lane) => {
      const l = lane as FakeLane;
      t.runs.push(l.name);
      await body(l, t.runs.length);
      t.done = true;
    },
    fail: (e) => {
      t.failures.push(e);
    },
  };
  return t;
}

describe('Scheduler', () => {
  test('refuses to start without lanes (CONNECTION_LOST)', () => {
    assert.throws(
      () => new Scheduler([], 4),
      (e: unknown) => e instanceof SluiceError && e.code === 'CONNECTION_LOST',
    );
  });

  test('work stealing: a slow lane does fewer tasks, the fast one takes the rest', async () => {
    const fast = fakeLane('fast');
    const slow = fakeLane('slow');
    const s = new Scheduler([fast, slow], 1);
    const total = 20;
    const allOthersDone = gate();
    let finished = 0;
    const tasks = Array.from({ length: total }, () =>
      probeTask(async (lane) => {
        // The slow lane's task completes only after every other task did: it is "slow" without timers.
        if (lane.name === 'slow') await allOthersDone.promise;
        else await Promise.resolve();
        if (++finished === total - 1) allOthersDone.open();
      }),
    );
    for (const t of tasks) s.push(t);
    s.end();
    await within('drain', 5_000, s.drained);
    const bySlow = tasks.filter((t) => t.runs[0] === 'slow').length;
    const byFast = tasks.filter((t) => t.runs[0] === 'fast').length;
    assert.equal(bySlow, 1, 'the slow lane keeps its one task');
    assert.equal(byFast, total - 1, 'the fast lane steals every other task');
    assert.ok(tasks.every((t) => t.done && t.failures.length === 0));
  });

  test('the first tasks spread over every connection, then every channel, before a lane gets a second', async () => {
    const c0 = { closed: false, id: 0 };
    const c1 = { closed: false, id: 1 };
    const lanes = [
      fakeLane('c0ch0', 0, c0),
      fakeLane('c0ch1', 1, c0),
      fakeLane('c1ch0', 0, c1),
      fakeLane('c1ch1', 1, c1),
    ];
    const s = new Scheduler(lanes, 4);
    const release = gate();
    const tasks = Array.from({ length: 8 }, () => probeTask(() => release.promise));
    for (const t of tasks) s.push(t);
    s.end();
    await new Promise((r) => setImmediate(r));
    const where = tasks.map((t) => t.runs[0]);
    assert.deepEqual(where.slice(0, 2).sort(), ['c0ch0', 'c1ch0'], 'the first two tasks go to two connections');
    assert.deepEqual(where.slice(0, 4).sort(), ['c0ch0', 'c0ch1', 'c1ch0', 'c1ch1'], 'the first four cover every lane');
    assert.deepEqual(where.slice(4).sort(), ['c0ch0', 'c0ch1', 'c1ch0', 'c1ch1'], 'the next four too');
    release.open();
    await within('drain', 5_000, s.drained);
  });

  test('perLane bounds the tasks running at once on each lane', async () => {
    const lanes = [fakeLane('a'), fakeLane('b')];
    const s = new Scheduler(lanes, 3);
    let running = 0;
    let peak = 0;
    const release = gate();
    const tasks = Array.from({ length: 12 }, () =>
      probeTask(async () => {
        running++;
        peak = Math.max(peak, running);
        await release.promise;
        running--;
      }),
    );
    for (const t of tasks) s.push(t);
    s.end();
    // Let every lane loop take what it may, then check the bound before releasing.
    await new Promise((r) => setImmediate(r));
    assert.equal(running, 6, '2 lanes × 3 per lane run at once');
    release.open();
    await within('drain', 5_000, s.drained);
    assert.equal(peak, 6);
    assert.ok(tasks.every((t) => t.done));
  });

  test('priority: lower priority values run first, FIFO among equals', async () => {
    const lane = fakeLane('only');
    const s = new Scheduler([lane], 1);
    const order: string[] = [];
    const blocker = gate();
    s.push(probeTask(() => blocker.promise)); // occupies the lane while the others queue up
    const spec: Array<[string, number]> = [
      ['p1-a', 1],
      ['p1-b', 1],
      ['p0-a', 0],
      ['p2', 2],
      ['p0-b', 0],
      ['none', 0.5],
    ];
    for (const [name, p] of spec)
      s.push(
        probeTask(async () => {
          order.push(name);
        }, p),
      );
    s.end();
    blocker.open();
    await within('drain', 5_000, s.drained);
    assert.deepEqual(order, ['p0-a', 'p0-b', 'none', 'p1-a', 'p1-b', 'p2']);
  });

  test('a task whose connection died is re-queued and completes on another lane', async () => {
    const victim = await runVictimBesideBusyLane((lane) => lane.kill());
    assert.equal(victim.runs.length, 2);
    assert.notEqual(victim.runs[0], victim.runs[1], 'the retry runs on the other lane');
    assert.ok(victim.done);
    assert.equal(victim.failures.length, 0);
  });

  test('re-queues are bounded: a task that loses its connection every time fails after maxAttempts', async () => {
    const lanes = ['a', 'b', 'c', 'd', 'e'].map((n) => fakeLane(n));
    const s = new Scheduler(lanes, 1, 3);
    const doomed = probeTask(async (lane) => {
      lane.kill();
      throw new SluiceError('CONNECTION_LOST', `connection ${lane.name} lost`);
    });
    s.push(doomed);
    s.end();
    await within('drain', 5_000, s.drained);
    assert.equal(doomed.runs.length, 3, `ran ${doomed.runs.join(',')}`);
    assert.equal(new Set(doomed.runs).size, 3, 'each attempt on a different (live) lane');
    assert.equal(doomed.failures.length, 1);
    assert.equal(doomed.failures[0].code, 'CONNECTION_LOST');
  });

  test('an error that is not a connection loss fails the task at once (no retry)', async () => {
    const s = new Scheduler([fakeLane('a'), fakeLane('b')], 1);
    const bad = probeTask(async () => {
      throw new SluiceError('PERMISSION_DENIED', 'nope');
    });
    const plain = probeTask(async () => {
      throw new Error('boom');
    });
    s.push(bad);
    s.push(plain);
    s.end();
    await within('drain', 5_000, s.drained);
    assert.equal(bad.runs.length, 1);
    assert.deepEqual(
      bad.failures.map((e) => e.code),
      ['PERMISSION_DENIED'],
    );
    assert.equal(plain.runs.length, 1);
    assert.deepEqual(
      plain.failures.map((e) => e.code),
      ['REMOTE_FAILURE'],
      'non-Sluice errors are wrapped',
    );
  });

  test('a CONNECTION_LOST reported before the connection is marked closed is still retried elsewhere', async () => {
    // The worker can reject a pending call before the coordinator has seen the 'closed' message
    // (ssh2 emits 'error' before 'close'); the task must not be failed for good because of that order.
    // marked closed only after the failure arrives
    const victim = await runVictimBesideBusyLane((lane) => setImmediate(() => lane.kill()));
    assert.equal(victim.failures.length, 0, `failed: ${victim.failures.map((e) => e.message).join('; ')}`);
    assert.ok(victim.done);
    assert.equal(victim.runs.length, 2);
    assert.notEqual(victim.runs[0], victim.runs[1], 'not retried on the connection that reported the loss');
  });

  test('all lanes dead: queued tasks fail with CONNECTION_LOST and the scheduler drains', async () => {
    const conn = { closed: false, id: 0 };
    // Two channels of one connection, two tasks per lane.
    const lanes = [fakeLane('ch0', 0, conn), fakeLane('ch1', 1, conn)];
    const s = new Scheduler(lanes, 2);
    const started = gate();
    let running = 0;
    const killer = gate();
    const tasks = Array.from({ length: 10 }, () =>
      probeTask(async (lane) => {
        if (++running === 4) started.open();
        await killer.promise;
        lane.kill();
        throw new SluiceError('CONNECTION_LOST', 'connection lost');
      }),
    );
    for (const t of tasks) s.push(t);
    s.end();
    await within('4 tasks running', 5_000, started.promise);
    killer.open();
    await within('drain after every lane died', 5_000, s.drained);
    for (const t of tasks) {
      assert.equal(t.done, false);
      assert.equal(t.failures.length, 1, 'each task fails exactly once');
      assert.equal(t.failures[0].code, 'CONNECTION_LOST');
    }
    // Later pushes fail at once.
    const late = probeTask(async () => undefined);
    s.push(late);
    assert.equal(late.runs.length, 0);
    assert.equal(late.failures[0]?.code, 'CONNECTION_LOST');
  });

  test('a lane whose connection closed while idle does not swallow new work', async () => {
    const a = fakeLane('a');
    const b = fakeLane('b');
    const s = new Scheduler([a, b], 1);
    a.kill(); // both loops are idle in take(); a's connection is gone before any work arrives
    const t = probeTask(async (lane) => {
      if (lane.conn.closed) throw new SluiceError('CONNECTION_LOST', `${lane.name} is closed`);
    });
    s.push(t);
    s.end();
    await within('drain', 5_000, s.drained);
    assert.ok(t.done, `runs: ${t.runs.join(',')}, failures: ${t.failures.map((e) => e.message).join('; ')}`);
    assert.equal(t.runs.at(-1), 'b');
  });

  test('stop() fails queued tasks, lets running ones finish, and refuses new ones', async () => {
    const s = new Scheduler([fakeLane('a')], 1);
    const release = gate();
    const running = probeTask(() => release.promise);
    const queued = probeTask(async () => undefined);
    s.push(running);
    s.push(queued);
    await within(
      'first task to start',
      5_000,
      (async () => {
        while (running.runs.length < 1) await new Promise((r) => setImmediate(r));
      })(),
    );
    s.stop(new SluiceError('ABORTED', 'stopped'));
    assert.deepEqual(
      queued.failures.map((e) => e.code),
      ['ABORTED'],
    );
    const late = probeTask(async () => undefined);
    s.push(late);
    assert.deepEqual(
      late.failures.map((e) => e.code),
      ['ABORTED'],
    );
    release.open();
    await within('drain', 5_000, s.drained);
    assert.ok(running.done);
    assert.equal(queued.runs.length, 0);
  });
});

describe('heavy tasks and lanes that join later', () => {
  test('a lane runs at most two heavy tasks at a time; a lane added later takes the queued heavy work', async () => {
    const first = fakeLane('first');
    const s = new Scheduler([first], 8);
    const where: string[] = [];
    const gates = [gate(), gate(), gate(), gate()];
    for (let i = 0; i < 4; i++) {
      s.push({
        heavy: true,
        run: async (lane) => {
          where.push((lane as FakeLane).name);
          await gates[i].promise;
        },
        fail: () => assert.fail('no task fails'),
      });
    }
    // Light work still flows on the busy lane.
    let light = 0;
    s.push({
      run: async () => {
        light++;
      },
      fail: () => assert.fail('no task fails'),
    });
    await within(
      'first heavy tasks start',
      1000,
      (async () => {
        while (where.length < 2 || light < 1) await new Promise((r) => setImmediate(r));
      })(),
    );
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(where, ['first', 'first'], 'two heavy tasks at most run on the first lane');
    s.addLanes([fakeLane('second', 0, { closed: false, id: 1 })]);
    await within(
      'the new lane takes the other two',
      1000,
      (async () => {
        while (where.length < 4) await new Promise((r) => setImmediate(r));
      })(),
    );
    assert.deepEqual(where.slice(2), ['second', 'second']);
    for (const g of gates) g.open();
    s.end();
    await within('drained', 1000, s.drained);
  });
});
