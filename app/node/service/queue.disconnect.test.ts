/**
 * What a user's Disconnect does to the site's transfers (#29.3), against the fake engine (test/serviceHarness.ts): by
 * default the running and queued jobs pause and resume when the user connects the site again (a job the user had
 * paused stays paused); with `transfers: 'cancel'` they are cancelled and their partial files removed through the
 * connection before it closes.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { acceptHostKey, harness, until } from '../test/serviceHarness';

test('disconnect pauses the running and queued jobs; connecting again resumes them, not the one the user paused', async (t) => {
  const h = await harness(t);
  await acceptHostKey(h);
  h.engine.behaviour = () => 'hold';
  const enqueue = async (source: string) => {
    const r = await h.service.invoke('queue.enqueue', {
      siteId: h.siteId,
      direction: 'upload',
      sources: [source],
      dest: '/r',
    });
    assert.ok(r.ok, JSON.stringify(r));
    return r.value.jobIds[0];
  };
  const mine = await enqueue('/l/mine');
  await until(h, () => h.engine.isHeld('/l/mine'), 'mine running');
  assert.ok((await h.service.invoke('queue.pause', { jobId: mine })).ok);
  const running = await enqueue('/l/running');
  await until(h, () => h.engine.isHeld('/l/running'), 'running');
  const state = (id: string) => h.service.jobs().find((j) => j.id === id)?.state;

  assert.ok((await h.service.invoke('session.disconnect', { siteId: h.siteId })).ok);
  await until(h, () => state(running) === 'paused', 'paused by the disconnect');
  assert.equal(state(mine), 'paused');

  h.engine.behaviour = () => 'ok';
  assert.ok((await h.service.invoke('session.connect', { siteId: h.siteId })).ok);
  await until(h, () => state(running) === 'done', 'resumed on connect and done');
  assert.equal(state(mine), 'paused', 'the job the user paused stays paused');
});

test('disconnect with transfers: cancel cancels them and removes their partial files through the connection', async (t) => {
  const h = await harness(t);
  await acceptHostKey(h);
  h.engine.behaviour = () => 'hold';
  const r = await h.service.invoke('queue.enqueue', {
    siteId: h.siteId,
    direction: 'upload',
    sources: ['/l/a'],
    dest: '/r',
  });
  assert.ok(r.ok);
  await until(h, () => h.engine.isHeld('/l/a'), 'running');
  assert.ok((await h.service.invoke('session.disconnect', { siteId: h.siteId, transfers: 'cancel' })).ok);
  assert.equal(h.service.jobs()[0].state, 'cancelled');
  const bad = await h.service.invoke('session.disconnect', { siteId: h.siteId, transfers: 'drop' as never });
  assert.equal(bad.ok ? '' : bad.error.code, 'INVALID_REQUEST');
});
