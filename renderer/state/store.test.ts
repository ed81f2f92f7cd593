import test from 'node:test';
import assert from 'node:assert/strict';
import type { Job } from '../../app/common/model/job';
import type { HostKeyPrompt } from '../../app/common/ipc/contract';
import { ok } from '../../app/common/ipc/result';
import { createFakeBridge } from './testing/fakeBridge';
import { AppStore } from './store';
import { filterJobIds, initialAppState, reduceApp, LOG_LIMIT } from './appState';
import { RateSeries } from './series';
import { hostKeyView, seenText } from './hostKeyModel';
import { newSiteForm, siteToForm, validateSiteForm } from './siteForm';
import { buildSiteTree } from './siteTree';
import { resolveTheme } from './theme';

function job(id: string, patch: Partial<Job> = {}): Job {
  return {
    id,
    batchId: 'b1',
    siteId: 's1',
    direction: 'upload',
    source: `/local/${id}`,
    dest: '/remote',
    name: id,
    state: 'queued',
    bytesDone: 0,
    bytesTotal: 100,
    filesDone: 0,
    filesTotal: 1,
    rate: 0,
    createdAt: 1,
    ...patch,
  };
}

test('the store loads the initial state through the bridge and replays deltas with the shared reducer', async () => {
  const bridge = createFakeBridge({ jobs: [job('j1'), job('j2')] });
  const store = new AppStore(bridge);
  let notified = 0;
  store.subscribe(() => notified++);
  await store.start();
  assert.deepEqual(store.getSnapshot().queue.order, ['j1', 'j2']);
  assert.ok(notified > 0);

  bridge.emit('queue.delta', {
    events: [{ type: 'updated', id: 'j1', patch: { state: 'running', bytesDone: 50, rate: 10 } }],
  });
  assert.equal(store.getSnapshot().queue.byId.j1.state, 'running');
  const before = store.getSnapshot();
  // An illegal transition (queued -> done is fine, but done -> running is not) leaves the state untouched.
  bridge.emit('queue.delta', { events: [{ type: 'updated', id: 'j1', patch: { state: 'done', bytesDone: 100 } }] });
  bridge.emit('queue.delta', { events: [{ type: 'updated', id: 'j1', patch: { state: 'running' } }] });
  assert.equal(store.getSnapshot().queue.byId.j1.state, 'done');
  assert.notEqual(store.getSnapshot(), before);
  assert.equal(
    store.getSnapshot().queue.byId.j2,
    before.queue.byId.j2,
    'untouched jobs keep their identity (rows stay memoized)',
  );

  store.stop();
  bridge.emit('queue.delta', { events: [{ type: 'removed', ids: ['j2'] }] });
  assert.ok(store.getSnapshot().queue.byId.j2, 'no updates after stop');
});

test('deltas that race with the initial snapshot are replayed on top of it', async () => {
  const bridge = createFakeBridge();
  bridge.handle('queue.snapshot', async () => {
    // The engine emits a delta while the snapshot answer is still on its way (the snapshot predates it).
    bridge.emit('queue.delta', { events: [{ type: 'added', jobs: [job('late')] }] });
    return ok({ jobs: [job('early')] });
  });
  const store = new AppStore(bridge);
  await store.start();
  assert.deepEqual(store.getSnapshot().queue.order, ['early', 'late']);
});

test('prompts queue up, de-duplicate and close', () => {
  const prompt: HostKeyPrompt = {
    promptId: 'p1',
    siteId: 's1',
    host: 'h',
    port: 22,
    kind: 'unknown',
    presented: { keyType: 'ssh-ed25519', fingerprint: 'SHA256:abc' },
  };
  let s = reduceApp(initialAppState, { type: 'event', event: 'hostKey.prompt', payload: prompt });
  s = reduceApp(s, { type: 'event', event: 'hostKey.prompt', payload: prompt });
  assert.equal(s.hostKeyPrompts.length, 1);
  s = reduceApp(s, {
    type: 'event',
    event: 'conflict.prompt',
    payload: { promptId: 'c1', jobId: 'j', target: '/x', direction: 'upload' },
  });
  assert.equal(s.conflictPrompts.length, 1);
  s = reduceApp(s, { type: 'promptAnswered', promptId: 'p1' });
  assert.equal(s.hostKeyPrompts.length, 0);
  s = reduceApp(s, { type: 'event', event: 'prompt.closed', payload: { promptId: 'c1' } });
  assert.equal(s.conflictPrompts.length, 0);
  assert.equal(reduceApp(s, { type: 'promptAnswered', promptId: 'zzz' }), s, 'unknown prompt: same state');
});

test('progress samples build per-site series; the log is capped', () => {
  let s = reduceApp(initialAppState, {
    type: 'event',
    event: 'progress',
    payload: {
      samples: [
        {
          siteId: 's1',
          t: 1000,
          rate: 300,
          connections: [
            { id: 1, rate: 100 },
            { id: 2, rate: 200 },
          ],
        },
      ],
    },
  });
  s = reduceApp(s, {
    type: 'event',
    event: 'progress',
    payload: { samples: [{ siteId: 's1', t: 2000, rate: 500, connections: [{ id: 1, rate: 500 }] }] },
  });
  const data = s.series.s1.toData();
  assert.deepEqual(data.connectionIds, ['1', '2']);
  assert.deepEqual(data.columns, [
    [1, 2],
    [300, 500],
    [100, 500],
    [200, null],
  ]);
  const lines = Array.from({ length: LOG_LIMIT + 10 }, (_, i) => ({ t: i, level: 'info' as const, message: `m${i}` }));
  s = reduceApp(s, { type: 'event', event: 'log', payload: { lines } });
  assert.equal(s.log.length, LOG_LIMIT);
  assert.equal(s.log[s.log.length - 1].message, `m${LOG_LIMIT + 9}`);
});

test('the rate series keeps only the last 60 s and ignores samples from the past', () => {
  let r = RateSeries.empty(60_000);
  for (let t = 0; t <= 120_000; t += 1000) r = r.push({ t, total: t, perConnection: {} });
  assert.equal(r.samples[0].t, 60_000);
  assert.equal(r.samples.length, 61);
  assert.equal(r.push({ t: 5, total: 1, perConnection: {} }), r);
  assert.equal(r.latestTotal(), 120_000);
});

test('queue filters select by state in queue order', () => {
  let s = reduceApp(initialAppState, {
    type: 'queueResync',
    jobs: [
      job('a', { state: 'running' }),
      job('b', { state: 'done' }),
      job('c', { state: 'failed' }),
      job('d', { state: 'paused' }),
    ],
    since: [],
  });
  assert.deepEqual(filterJobIds(s.queue, 'active'), ['a', 'd']);
  assert.deepEqual(filterJobIds(s.queue, 'done'), ['b']);
  assert.deepEqual(filterJobIds(s.queue, 'failed'), ['c']);
  assert.equal(filterJobIds(s.queue, 'all'), s.queue.order);
  s = reduceApp(s, { type: 'event', event: 'queue.delta', payload: { events: [] } });
  assert.equal(filterJobIds(s.queue, 'all').length, 4);
});

test('a batch of 1,000 progress deltas over 10,000 jobs touches only those jobs (structural sharing)', () => {
  const jobs = Array.from({ length: 10_000 }, (_, i) => job(`j${i}`, { state: 'running' }));
  const before = reduceApp(initialAppState, { type: 'queueResync', jobs, since: [] });
  const events = Array.from({ length: 1000 }, (_, i) => ({
    type: 'updated' as const,
    id: `j${i * 10}`,
    patch: { bytesDone: 50, rate: 1000 },
  }));
  const after = reduceApp(before, { type: 'event', event: 'queue.delta', payload: { events } });
  assert.equal(after.queue.byId.j9990.bytesDone, 50);
  assert.equal(after.queue.order, before.queue.order, 'the order array is reused');
  let same = 0;
  for (const id of before.queue.order) if (after.queue.byId[id] === before.queue.byId[id]) same++;
  assert.equal(same, 9_000, 'the 9,000 untouched jobs keep their objects (rows do not re-render)');
  assert.equal(before.queue.byId.j0.bytesDone, job('j0').bytesDone, 'the previous state is not mutated');
});

test('host-key dialog states: unknown is neutral with three answers, changed is red with Cancel only', () => {
  const base = {
    promptId: 'p',
    siteId: 's',
    host: 'example.org',
    port: 2222,
    presented: { keyType: 'ssh-ed25519', fingerprint: 'SHA256:x' },
  };
  const unknown = hostKeyView({ ...base, kind: 'unknown' });
  assert.equal(unknown.tone, 'neutral');
  assert.deepEqual(unknown.actions.map((a) => a.answer).sort(), ['accept-once', 'accept-save', 'reject']);
  assert.equal(unknown.defaultAnswer, 'reject');
  const changed = hostKeyView({
    ...base,
    kind: 'changed',
    previous: [{ keyType: 'ssh-rsa', fingerprint: 'SHA256:old' }],
  });
  assert.equal(changed.tone, 'danger');
  assert.deepEqual(
    changed.actions.map((a) => a.answer),
    ['reject'],
  );
  assert.equal(changed.defaultAnswer, 'reject');
  assert.ok(changed.showPrevious);
  assert.match(changed.explanation, /\[example\.org\]:2222/);
  assert.deepEqual(
    hostKeyView({ ...base, kind: 'revoked' }).actions.map((a) => a.answer),
    ['reject'],
  );
  assert.ok(hostKeyView({ ...base, kind: 'rotated' }).actions.some((a) => a.answer === 'accept-save'));
});

test('changed key the user may edit: Cancel stays the default, add, and replace behind the typed host name', () => {
  const base = {
    promptId: 'p',
    siteId: 's',
    host: 'example.org',
    port: 22,
    presented: { keyType: 'ssh-ed25519', fingerprint: 'SHA256:x' },
  };
  const v = hostKeyView({
    ...base,
    kind: 'changed',
    canEdit: true,
    previous: [{ keyType: 'ssh-ed25519', fingerprint: 'SHA256:old' }],
  });
  assert.deepEqual(
    v.actions.map((a) => a.answer),
    ['reject', 'add', 'replace'],
  );
  assert.equal(v.defaultAnswer, 'reject');
  assert.deepEqual(
    v.actions.filter((a) => a.confirmHost).map((a) => a.answer),
    ['replace'],
  );
  assert.doesNotMatch(v.explanation, /ssh-keygen -R/);
  assert.equal(seenText(null), 'unknown');
  assert.equal(seenText(Date.UTC(2026, 0, 2, 3, 4, 5), { locale: 'de-DE', timeZone: 'UTC' }), '02.01.2026, 03:04');
});

test('the site form validates every field and builds a contract request', () => {
  const bad = validateSiteForm({
    ...newSiteForm(),
    name: ' ',
    host: 'a b',
    port: '70000',
    user: '',
    connections: '0',
    ciphers: [],
  });
  assert.equal(bad.ok, false);
  if (!bad.ok)
    assert.deepEqual(Object.keys(bad.errors).sort(), ['ciphers', 'connections', 'host', 'name', 'port', 'user']);
  if (!bad.ok) assert.match(bad.errors.ciphers ?? '', /at least one cipher/, 'a list with nothing enabled is refused');
  const keyless = validateSiteForm({ ...newSiteForm(), name: 'n', host: 'h', user: 'u', authMethod: 'key' });
  assert.ok(!keyless.ok && keyless.errors.keyPath);
  const good = validateSiteForm({
    ...newSiteForm('Work//Prod/'),
    name: ' Prod ',
    host: 'prod.example',
    port: '',
    user: 'deploy',
    authMethod: 'password',
    password: 'pw',
    connections: '4',
    channels: '2',
    ciphers: ['aes128-gcm@openssh.com', 'chacha20-poly1305@openssh.com'],
    hostKeyAlgorithms: ['ssh-ed25519'],
  });
  assert.ok(good.ok);
  if (good.ok) {
    assert.deepEqual(good.site, {
      name: 'Prod',
      folder: 'Work/Prod',
      host: 'prod.example',
      port: 22,
      user: 'deploy',
      authMethod: 'password',
      connections: 4,
      channels: 2,
      ciphers: ['aes128-gcm@openssh.com', 'chacha20-poly1305@openssh.com'],
      hostKeyAlgorithms: ['ssh-ed25519'],
    });
    assert.equal(good.password, 'pw');
  }
  const site = {
    id: 's1',
    name: 'A',
    folder: '',
    host: 'h',
    port: 2222,
    user: 'u',
    authMethod: 'password' as const,
    createdAt: 1,
    updatedAt: 1,
  };
  assert.deepEqual(siteToForm({ ...site, kex: ['curve25519-sha256'] }).kex, ['curve25519-sha256']);
  assert.equal(siteToForm(site).kex, null, 'no list: the defaults');
  const edit = validateSiteForm(siteToForm(site));
  assert.ok(
    edit.ok && edit.site.id === 's1' && edit.password === undefined,
    'empty password on edit keeps the stored one',
  );
  const forget = validateSiteForm({ ...siteToForm(site), forgetPassword: true });
  assert.ok(forget.ok && forget.password === null);
});

test('the site form checks and keeps a jump host list (ProxyJump syntax)', () => {
  const base = { ...newSiteForm(), name: 'n', host: 'h', user: 'u' };
  const bad = validateSiteForm({ ...base, jumpHost: 'alice@bastion:99999' });
  assert.ok(!bad.ok && /port/.test(bad.errors.jumpHost ?? ''), 'a bad port in a hop is named');
  assert.ok(!validateSiteForm({ ...base, jumpHost: 'a,,b' }).ok);
  const good = validateSiteForm({ ...base, jumpHost: ' alice@bastion:2222, [::1]:22 ' });
  assert.ok(good.ok && good.site.jumpHost === 'alice@bastion:2222, [::1]:22');
  const none = validateSiteForm({ ...base, jumpHost: '' });
  assert.ok(none.ok && !('jumpHost' in none.site), 'empty: the site has no jump host of its own');
  const site = {
    id: 's1',
    name: 'A',
    folder: '',
    host: 'h',
    port: 22,
    user: 'u',
    authMethod: 'agent' as const,
    jumpHost: 'none',
    createdAt: 1,
    updatedAt: 1,
  };
  assert.equal(siteToForm(site).jumpHost, 'none');
});

test("a jump host's host-key dialog says it is the jump host, and ssh-keygen -R names the host alone", () => {
  const prompt = {
    promptId: 'p',
    siteId: 's',
    host: 'bastion',
    port: 2222,
    jumpHost: true,
    presented: { keyType: 'ssh-ed25519', fingerprint: 'SHA256:x' },
  };
  assert.match(hostKeyView({ ...prompt, kind: 'unknown' }).explanation, /the jump host \[bastion\]:2222/);
  const changed = hostKeyView({ ...prompt, kind: 'changed' }).explanation;
  assert.match(changed, /ssh-keygen -R \[bastion\]:2222\)/);
});

test('site tree nests folders, creates missing parents and sorts by name', () => {
  const mk = (id: string, name: string, folder: string) => ({
    id,
    name,
    folder,
    host: 'h',
    port: 22,
    user: 'u',
    authMethod: 'agent' as const,
    createdAt: 0,
    updatedAt: 0,
    hasPassword: false,
  });
  const root = buildSiteTree({
    folders: ['Empty'],
    sites: [mk('1', 'b', 'Work/Prod'), mk('2', 'a', 'Work/Prod'), mk('3', 'top', '')],
  });
  assert.deepEqual(
    root.folders.map((f) => f.name),
    ['Empty', 'Work'],
  );
  assert.deepEqual(
    root.folders[1].folders[0].sites.map((s) => s.name),
    ['a', 'b'],
  );
  assert.equal(root.folders[1].folders[0].path, 'Work/Prod');
  assert.deepEqual(
    root.sites.map((s) => s.id),
    ['3'],
  );
});

test('theme: system follows the OS', () => {
  assert.equal(resolveTheme('system', true), 'dark');
  assert.equal(resolveTheme('system', false), 'light');
  assert.equal(resolveTheme('light', true), 'light');
});

test('host keys learned from a trusted server become one dismissable notice', () => {
  const payload = {
    siteId: 's1',
    host: '127.0.0.1',
    port: 2222,
    file: '/home/u/.ssh/known_hosts',
    keys: [{ keyType: 'ecdsa-sha2-nistp256', fingerprint: 'SHA256:abc' }],
  };
  let s = reduceApp(initialAppState, { type: 'event', event: 'hostKey.learned', payload });
  assert.equal(s.notices.length, 1);
  assert.equal(
    s.notices[0].text,
    '127.0.0.1:2222 announced 1 new host key (ecdsa-sha2-nistp256); saved to known_hosts.',
  );
  assert.match(s.notices[0].details ?? '', /SHA256:abc/);
  assert.match(s.notices[0].details ?? '', /\/home\/u\/\.ssh\/known_hosts/);
  assert.equal(
    reduceApp(s, { type: 'event', event: 'hostKey.learned', payload }),
    s,
    'the same keys again: no second notice',
  );
  s = reduceApp(s, { type: 'noticeDismissed', id: s.notices[0].id });
  assert.equal(s.notices.length, 0);
});
