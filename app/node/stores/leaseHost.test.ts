/**
 * The lease's same-host check when a host is renamed (#30 item 11): a Mac's name follows its network, so a lease left
 * by a crashed run under `MacBook-Pro.local` must still be seen as this machine's under `MacBook-Pro-2.local` (its pid
 * is gone: taken over at once, not after the heartbeat timeout). Hosts compare by machine ID (sys/machineId.ts).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { hostLabel, machineId, sameHost } from '../sys/machineId';
import { LeaseStore } from './lease';
import { QueueStore } from './queueStore';

const ID = 'a1b2c3d4e5f60718';

test('host labels: the machine id decides; without ids on both sides, the name', () => {
  assert.ok(sameHost(`MacBook-Pro.local [${ID}]`, `MacBook-Pro-2.local [${ID}]`));
  assert.ok(!sameHost(`box [${ID}]`, 'box [0000000000000000]'), 'two machines with one name');
  assert.ok(sameHost('box', `box [${ID}]`), 'a lease written by an older build');
  assert.ok(!sameHost('old', `new [${ID}]`));
  assert.equal(hostLabel('h', ID), `h [${ID}]`);
  assert.equal(hostLabel('h', null), 'h');
  if (process.platform === 'linux') assert.match(machineId() ?? '', /^[0-9a-f]{16}$/, 'Linux has /etc/machine-id');
});

test("a dead run's lease under this machine's old name is taken over at once", async (t) => {
  const store = QueueStore.open({ file: ':memory:', now: () => 1000 });
  t.after(() => store.close());
  const [job] = store.jobs.addBatch([{ target: { siteId: 's' }, direction: 'upload', source: '/a', dest: '/in' }]);
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.on('close', resolve));
  const dead = { pid: child.pid!, host: `MacBook-Pro.local [${ID}]`, startedAt: 1 };
  assert.ok(store.leases.acquire(job.id, dead).ok);
  const renamed = new LeaseStore(store.q, { hostname: `MacBook-Pro-2.local [${ID}]`, now: () => 2000 });
  const holder = renamed.holder(job.id)!;
  assert.equal(renamed.isStale(holder), true, 'same machine, pid gone: stale now, not in 30 s');
  const elsewhere = new LeaseStore(store.q, { hostname: 'MacBook-Pro-2.local [0000000000000000]', now: () => 2000 });
  assert.equal(elsewhere.isStale(holder), false, 'another machine cannot see that pid: only the heartbeat timeout');
});
