/**
 * A session that loses every connection is re-established by the service (service/sessions.ts over
 * service/reconnect.ts): its status says `reconnecting` with the attempt, the host key is checked again, a listing
 * that failed on the dropped connection runs once more, and running jobs go back in line and resume from their
 * journal once the session is back. Fake engine first, then a real sshd whose connections are killed.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SSHD_PATH } from '../../../e2e/fixtures/sshd';
import type { SessionStatus } from '../../common/ipc/contract';
import type { JobState } from '../../common/model/job';
import { openEngine, type Engine, type EngineFactory } from '../engine/engine';
import { SluiceError } from '../errors';
import { acceptHostKey, ed25519Blob, harness, until } from './serviceHarness';
import { connectAccepting, setupSshd, waitJobs } from './sshdService';

/** A status as a line: the state, and while reconnecting the attempt and why. Consecutive repeats are one line. */
function statusLines(statuses: readonly SessionStatus[]): string[] {
  const lines = statuses.map((s) =>
    s.state === 'reconnecting' ? `reconnecting ${s.attempt}: ${s.error?.code} ${s.error?.message}` : s.state,
  );
  return lines.filter((l, i) => l !== lines[i - 1]);
}

/** The states a job went through, from the queue deltas (consecutive repeats are one). */
function jobStates(events: ReadonlyArray<{ name: string; payload: unknown }>, jobId: string): JobState[] {
  const out: JobState[] = [];
  for (const e of events) {
    if (e.name !== 'queue.delta') continue;
    for (const d of (e.payload as { events: Array<{ type: string; id?: string; patch?: { state?: JobState } }> })
      .events) {
      const state = d.type === 'updated' && d.id === jobId ? d.patch?.state : undefined;
      if (state && state !== out.at(-1)) out.push(state);
    }
  }
  return out;
}

test('a session that loses every connection reconnects with backoff: reconnecting (attempt 1), (attempt 2), connected; browsing works again', async (t) => {
  const h = await harness(t);
  await acceptHostKey(h);
  h.engine.failures.push({ code: 'CONNECTION_LOST', message: 'connection refused by 127.0.0.1:2222' });
  const back = h
    .next('session.status', (st) => st.state === 'reconnecting')
    .then(() => h.next('session.status', (st) => st.state === 'connected'));
  const from = h.events.length;
  h.engine.opened[0].onEvent({ type: 'connection', id: 0, state: 'down', reason: 'read ECONNRESET' });
  await back;
  const statuses = h.events
    .slice(from)
    .filter((e) => e.name === 'session.status')
    .map((e) => e.payload as SessionStatus);
  assert.deepEqual(statusLines(statuses), [
    'reconnecting 1: CONNECTION_LOST read ECONNRESET',
    'reconnecting 2: CONNECTION_LOST connection refused by 127.0.0.1:2222',
    'connected',
  ]);
  assert.equal(statuses.at(-1)?.attempt, undefined, 'a connected status carries no attempt');
  assert.equal(statuses.at(-1)?.error, undefined);
  assert.equal(h.engine.opened.length, 3, 'each attempt set up a fresh engine (known_hosts read, host key checked)');
  const listing = await h.service.invoke('remote.list', { siteId: h.siteId, path: '/r' });
  assert.ok(listing.ok, JSON.stringify(listing));
  assert.deepEqual(
    listing.value.entries.map((e) => e.name),
    ['a.txt'],
  );
});

test('a reconnect that meets a changed host key stops at once: the red prompt, the session failed, its jobs paused', async (t) => {
  const h = await harness(t);
  await acceptHostKey(h);
  h.engine.behaviour = () => 'hold';
  const job = await h.service.invoke('queue.enqueue', {
    siteId: h.siteId,
    direction: 'upload',
    sources: ['/l/a'],
    dest: '/r',
  });
  assert.ok(job.ok);
  await until(h, () => h.engine.isHeld('/l/a'), 'the upload running');
  h.engine.hostKey = ed25519Blob(9);
  const red = h.next('hostKey.prompt', (p) => p.kind === 'changed');
  const failed = h.next('session.status', (st) => st.state === 'failed');
  h.engine.opened[0].onEvent({ type: 'connection', id: 0, state: 'down', reason: 'read ECONNRESET' });
  await red;
  assert.equal((await failed).error?.code, 'HOSTKEY_CHANGED');
  assert.equal(h.engine.opened.length, 2, 'no attempt after the changed key');
  const [jobId] = job.value.jobIds;
  await until(h, () => h.service.jobs().find((j) => j.id === jobId)?.state === 'paused', 'the job paused');
  assert.ok(!jobStates(h.events, jobId).includes('failed'), 'the job was never failed by the lost connection');
});

test('a running job goes back in line when every connection is lost, and runs again once the session is back', async (t) => {
  const h = await harness(t);
  await acceptHostKey(h);
  h.engine.behaviour = () => 'hold';
  const job = await h.service.invoke('queue.enqueue', {
    siteId: h.siteId,
    direction: 'upload',
    sources: ['/l/a'],
    dest: '/r',
  });
  assert.ok(job.ok);
  const [jobId] = job.value.jobIds;
  await until(h, () => h.engine.isHeld('/l/a'), 'the upload running');
  h.engine.behaviour = () => 'ok';
  h.engine.opened[0].onEvent({ type: 'connection', id: 0, state: 'down', reason: 'read ECONNRESET' });
  await until(h, () => h.service.jobs().find((j) => j.id === jobId)?.state === 'done', 'the job done');
  assert.deepEqual(jobStates(h.events, jobId), ['running', 'queued', 'running', 'done']);
  assert.equal(h.engine.requests.length, 2, 'the transfer ran again');
  assert.equal(h.engine.opened.length, 2, 'on the re-established session');
});

test('disconnecting while the session reconnects stops the attempts', async (t) => {
  const h = await harness(t, {
    reconnectPolicy: { tries: 3, baseDelayMs: 60_000, maxDelayMs: 60_000, totalDelayMs: 120_000 },
  });
  await acceptHostKey(h);
  const waiting = h.next('session.status', (st) => st.state === 'reconnecting');
  h.engine.opened[0].onEvent({ type: 'connection', id: 0, state: 'down', reason: 'read ECONNRESET' });
  assert.equal((await waiting).attempt, 1);
  assert.ok((await h.service.invoke('session.disconnect', { siteId: h.siteId })).ok);
  const list = await h.service.invoke('session.list', undefined);
  assert.ok(list.ok);
  assert.deepEqual(list.value, [], 'the session is gone');
  assert.equal(h.engine.opened.length, 1, 'no attempt was made');
});

const sha256 = (file: string): string => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** A promise with its resolve function (Node 20 has no Promise.withResolvers). */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

test(
  'real sshd: killed connections come back (attempt 2 after a failed one), a listing caught by the loss is answered, an upload resumes',
  { skip: fs.existsSync(SSHD_PATH) ? false : `${SSHD_PATH} not installed`, timeout: 120_000 },
  async (t) => {
    let opens = 0;
    let held = false;
    const atGate = deferred();
    const gate = deferred();
    /** The real engine; the first reconnect attempt fails, and the first listing of `held` waits at the gate. */
    const engine: EngineFactory = async (o) => {
      if (++opens === 2)
        throw new SluiceError('CONNECTION_LOST', 'connection refused (the test fails the first attempt)');
      const real = await openEngine(o);
      return Object.assign(Object.create(real) as Engine, {
        list: async (p: string) => {
          if (p.endsWith('/held') && !held) {
            held = true;
            atGate.resolve();
            await gate.promise;
          }
          return real.list(p);
        },
      });
    };
    const c = await setupSshd(t, {
      engine,
      site: { speedLimit: 8 * 1048576 },
      reconnectPolicy: { tries: 4, baseDelayMs: 50, maxDelayMs: 200, totalDelayMs: 5000 },
    });
    await connectAccepting(c);
    const local = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-svc-local-'));
    t.after(async () => fs.rmSync(local, { recursive: true, force: true }));
    fs.mkdirSync(path.join(c.server.root, 'held'));
    fs.writeFileSync(path.join(c.server.root, 'held', 'x.txt'), 'x');
    const big = path.join(local, 'big.bin');
    fs.writeFileSync(big, randomBytes(24 * 1048576));

    const statuses: SessionStatus[] = [];
    const events: Array<{ name: string; payload: unknown }> = [];
    c.service.subscribe((name, payload) => {
      events.push({ name, payload });
      if (name === 'session.status') statuses.push(payload as SessionStatus);
    });
    const moving = c.next('queue.delta', (d) =>
      d.events.some((e) => e.type === 'updated' && (e.patch.bytesDone ?? 0) >= 2 * 1048576),
    );
    const up = await c.service.invoke('queue.enqueue', {
      siteId: c.siteId,
      direction: 'upload',
      sources: [big],
      dest: c.server.root,
    });
    assert.ok(up.ok);
    await moving;
    const listing = c.service.invoke('remote.list', { siteId: c.siteId, path: path.join(c.server.root, 'held') });
    await atGate.promise;

    const lost = c.next('session.status', (st) => st.state === 'reconnecting');
    assert.ok((await c.server.killSessions()) >= 1, 'connections were cut');
    await lost;
    gate.resolve();
    const listed = await listing;
    assert.ok(listed.ok, JSON.stringify(listed));
    assert.deepEqual(
      listed.value.entries.map((e) => e.name),
      ['x.txt'],
      'the listing that failed on the dropped connection was answered after the reconnect',
    );

    await waitJobs(c, up.value.jobIds, 'done');
    assert.equal(sha256(path.join(c.server.root, 'big.bin')), sha256(big));
    assert.deepEqual(
      jobStates(events, up.value.jobIds[0]),
      ['running', 'queued', 'running', 'done'],
      'the upload went back in line at the loss (not failed) and ran again once the session was back',
    );
    const lines = statusLines(statuses.filter((s) => s.state !== 'connected' || s === statuses.at(-1)));
    assert.deepEqual(
      lines.map((l) => l.replace(/:.*/, '')),
      ['reconnecting 1', 'reconnecting 2', 'connected'],
    );
    assert.match(lines[1], /reconnecting 2: CONNECTION_LOST connection refused \(the test fails the first attempt\)/);
    assert.equal(opens, 3, 'the first connect, the failed attempt, the one that came back');

    const after = await c.service.invoke('remote.list', { siteId: c.siteId, path: c.server.root });
    assert.ok(after.ok);
    assert.deepEqual(after.value.entries.map((e) => e.name).sort(), ['big.bin', 'held']);
  },
);
