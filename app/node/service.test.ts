/**
 * Service tests against a fake engine: sites and secrets, host-key prompts (with a real known_hosts file),
 * the queue's concurrency, pause/resume/cancel/retry, conflict prompts with "for all", progress and logs.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemorySecretStore } from './stores/sites';
import { jobsInOrder } from '../common/queue/reducer';
import { acceptHostKey, ed25519Blob, harness, reopen, until } from './test/serviceHarness';
import { globalRateLimit } from './sftp/rateLimit';
import { DEFAULT_LAYOUT } from '../common/model/layout';
import { DEFAULT_TRANSFERS } from '../common/model/transferDefaults';

test('sites: passwords go to the SecretStore only; validation and unknown channels fail as data', async (t) => {
  const secrets = new MemorySecretStore();
  const h = await harness(t, { secrets });
  const saved = await h.service.invoke('sites.save', {
    site: { name: 'P', folder: 'Work', host: 'h', port: 22, user: 'u', authMethod: 'password' },
    password: 'hunter2',
  });
  assert.ok(saved.ok);
  assert.equal(await secrets.get(saved.value.id), 'hunter2');
  const list = await h.service.invoke('sites.list', undefined);
  assert.ok(list.ok);
  assert.ok(!JSON.stringify(list.value).includes('hunter2'));
  assert.equal(list.value.sites.find((s) => s.id === saved.value.id)?.hasPassword, true);
  assert.deepEqual(list.value.folders, ['Work']);

  const dup = await h.service.invoke('sites.duplicate', { siteId: saved.value.id });
  assert.ok(dup.ok);
  assert.equal(dup.value.name, 'P (copy)');
  assert.ok((await h.service.invoke('sites.delete', { siteId: saved.value.id })).ok);
  assert.equal(await secrets.get(saved.value.id), undefined);

  const bad = await h.service.invoke('sites.save', {
    site: { name: '', folder: '', host: 'h', port: 22, user: 'u', authMethod: 'agent' },
  });
  assert.equal(bad.ok ? '' : bad.error.code, 'INVALID_REQUEST');
  const unknown = await h.service.invoke('nope.nope', {});
  assert.equal(unknown.ok ? '' : unknown.error.code, 'UNKNOWN_CHANNEL');
  assert.ok(!h.events.some((e) => JSON.stringify(e.payload).includes('hunter2')), 'no event carries the password');
});

test('sites: an insecure secret store refuses passwords until the user agrees', async (t) => {
  const secrets = new MemorySecretStore();
  secrets.status = () => ({ backend: 'basic_text', secure: false });
  const h = await harness(t, { secrets });
  const site = { name: 'P', folder: '', host: 'h', port: 22, user: 'u', authMethod: 'password' as const };
  const refused = await h.service.invoke('sites.save', { site, password: 'pw' });
  assert.equal(refused.ok ? '' : refused.error.code, 'INSECURE_SECRET_STORAGE');
  const listed = await h.service.invoke('sites.list', undefined);
  assert.ok(listed.ok);
  assert.ok(!listed.value.sites.some((x) => x.name === 'P'), 'nothing saved when the password is refused');
  const settings = await h.service.invoke('settings.set', { allowInsecureSecretStorage: true, theme: 'dark' });
  assert.ok(settings.ok);
  assert.deepEqual(settings.value, {
    theme: 'dark',
    allowInsecureSecretStorage: true,
    secretStorage: { backend: 'basic_text', secure: false },
    speedLimit: 0,
    layout: DEFAULT_LAYOUT,
    transfers: DEFAULT_TRANSFERS,
  });
  assert.ok((await h.service.invoke('sites.save', { site, password: 'pw' })).ok);
});

test('host key: unknown key is asked once, accept-save writes known_hosts, the next connect does not ask', async (t) => {
  const h = await harness(t);
  const prompt = h.next('hostKey.prompt');
  const connecting = h.service.invoke('session.connect', { siteId: h.siteId });
  const p = await prompt;
  assert.equal(p.kind, 'unknown');
  assert.equal(p.presented.keyType, 'ssh-ed25519');
  assert.match(p.presented.fingerprint, /^SHA256:/);
  const closed = h.next('prompt.closed', (c) => c.promptId === p.promptId);
  assert.ok((await h.service.invoke('hostKey.answer', { promptId: p.promptId, answer: 'accept-save' })).ok);
  await closed;
  const res = await connecting;
  assert.ok(res.ok);
  assert.equal(res.value.state, 'connected');
  assert.equal(res.value.cipher, 'aes128-gcm@openssh.com');
  assert.equal(res.value.home, '/home/u');
  assert.match(fs.readFileSync(h.knownHosts, 'utf8'), /\[127\.0\.0\.1\]:2222 ssh-ed25519 /);

  assert.ok((await h.service.invoke('session.disconnect', { siteId: h.siteId })).ok);
  const prompts = h.events.filter((e) => e.name === 'hostKey.prompt').length;
  assert.ok((await h.service.invoke('session.connect', { siteId: h.siteId })).ok);
  assert.equal(h.events.filter((e) => e.name === 'hostKey.prompt').length, prompts, 'no second prompt');
  const listing = await h.service.invoke('remote.list', { siteId: h.siteId, path: '~' });
  assert.ok(listing.ok);
  assert.equal(listing.value.path, '/home/u');
});

test('host key: reject fails the connect; a changed key fails and shows the red prompt with the old key', async (t) => {
  const h = await harness(t);
  const prompt = h.next('hostKey.prompt');
  const connecting = h.service.invoke('session.connect', { siteId: h.siteId });
  await h.service.invoke('hostKey.answer', { promptId: (await prompt).promptId, answer: 'reject' });
  const res = await connecting;
  assert.equal(res.ok ? '' : res.error.code, 'HOSTKEY_REJECTED');
  assert.ok(!fs.existsSync(h.knownHosts) || fs.readFileSync(h.knownHosts, 'utf8') === '');

  fs.writeFileSync(h.knownHosts, `[127.0.0.1]:2222 ssh-ed25519 ${ed25519Blob(9).toString('base64')}\n`);
  const red = h.next('hostKey.prompt', (p) => p.kind === 'changed');
  const changed = await h.service.invoke('session.connect', { siteId: h.siteId });
  assert.equal(changed.ok ? '' : changed.error.code, 'HOSTKEY_CHANGED');
  const p = await red;
  assert.equal(p.previous?.length, 1);
  assert.notEqual(p.previous?.[0].fingerprint, p.presented.fingerprint);
  assert.ok((await h.service.invoke('hostKey.answer', { promptId: p.promptId, answer: 'accept-save' })).ok);
  assert.match(
    fs.readFileSync(h.knownHosts, 'utf8'),
    /^\[127\.0\.0\.1\]:2222 ssh-ed25519 \S+\n$/,
    'accepting a changed key changes nothing',
  );
  const status = await h.service.invoke('session.list', undefined);
  assert.ok(status.ok);
  assert.equal(status.value[0].state, 'failed');
});

test('queue: bounded concurrency per site, all jobs done, renderer replay equals the engine state', async (t) => {
  const h = await harness(t, { jobsPerSite: 2 });
  await acceptHostKey(h);
  h.engine.behaviour = () => 'hold';
  const sources = Array.from({ length: 6 }, (_, i) => `/l/f${i}`);
  // Six drops: six batches, each its own engine transfer (one drop of many files is one transfer:
  // service/queue.test.ts).
  const jobIds: string[] = [];
  for (const source of sources) {
    const res = await h.service.invoke('queue.enqueue', {
      siteId: h.siteId,
      direction: 'upload',
      sources: [source],
      dest: '/r',
    });
    assert.ok(res.ok);
    jobIds.push(...res.value.jobIds);
  }
  assert.equal(jobIds.length, 6);
  for (const s of sources) {
    await until(h, () => h.engine.isHeld(s), `${s} started`);
    assert.ok(h.engine.running <= 2);
    h.engine.release(s);
  }
  await until(h, () => h.service.jobs().every((j) => j.state === 'done'), 'all done');
  assert.equal(h.engine.maxRunning, 2);
  assert.deepEqual(jobsInOrder(h.replayed()), h.service.jobs());
  const snap = await h.service.invoke('queue.snapshot', undefined);
  assert.ok(snap.ok);
  assert.deepEqual(
    snap.value.jobs.map((j) => j.name),
    ['f0', 'f1', 'f2', 'f3', 'f4', 'f5'],
  );
  assert.ok((await h.service.invoke('queue.clearFinished', undefined)).ok);
  assert.equal(h.service.jobs().length, 0);
  assert.equal(h.replayed().order.length, 0);
});

test('queue: pause aborts and resume re-runs; cancel; retry after failure', async (t) => {
  const h = await harness(t);
  await acceptHostKey(h);
  let attempt = 0;
  h.engine.behaviour = (s) =>
    s === '/l/p' ? (attempt++ === 0 ? 'hold' : 'ok') : s === '/l/bad' ? (attempt >= 99 ? 'ok' : 'fail') : 'hold';
  // Three drops (a drop of several files is one transfer, paused as a whole: service/queue.test.ts).
  const ids: string[] = [];
  for (const source of ['/l/p', '/l/c', '/l/bad']) {
    const r = await h.service.invoke('queue.enqueue', {
      siteId: h.siteId,
      direction: 'upload',
      sources: [source],
      dest: '/r',
    });
    assert.ok(r.ok);
    ids.push(...r.value.jobIds);
  }
  const [p, c, bad] = ids;
  await until(h, () => h.engine.isHeld('/l/p') && h.engine.isHeld('/l/c'), 'held');
  assert.ok((await h.service.invoke('queue.pause', { jobId: p })).ok);
  await until(h, () => h.service.jobs()[0].state === 'paused', 'paused');
  const bad1 = await h.service.invoke('queue.resume', { jobId: c });
  assert.equal(bad1.ok ? '' : bad1.error.code, 'INVALID_STATE', 'only a paused job resumes');
  assert.ok((await h.service.invoke('queue.resume', { jobId: p })).ok);
  await until(h, () => h.service.jobs()[0].state === 'done', 'resumed job done');

  assert.ok((await h.service.invoke('queue.cancel', { jobId: c })).ok);
  await until(h, () => h.service.jobs()[1].state === 'cancelled', 'cancelled');

  await until(h, () => h.service.jobs()[2].state === 'failed', 'failed');
  assert.equal(h.service.jobs()[2].error?.code, 'PERMISSION_DENIED');
  attempt = 99;
  assert.ok((await h.service.invoke('queue.retry', { jobId: bad })).ok);
  await until(h, () => h.service.jobs()[2].state === 'done', 'retried job done');
  assert.deepEqual(jobsInOrder(h.replayed()), h.service.jobs());
});

test('queue: a failed connect fails the queued jobs of the site once, without reconnecting per job', async (t) => {
  const h = await harness(t);
  const prompt = h.next('hostKey.prompt');
  const r = await h.service.invoke('queue.enqueue', {
    siteId: h.siteId,
    direction: 'download',
    sources: ['/r/a', '/r/b', '/r/c'],
    dest: '/l',
  });
  assert.ok(r.ok);
  await h.service.invoke('hostKey.answer', { promptId: (await prompt).promptId, answer: 'reject' });
  await until(h, () => h.service.jobs().every((j) => j.state === 'failed'), 'all failed');
  assert.equal(h.service.jobs()[2].error?.code, 'HOSTKEY_REJECTED');
  assert.equal(h.engine.opened.length, 1, 'one connection attempt for the whole site');
});

test('conflicts: one dialog at a time per batch, "for all" answers the rest', async (t) => {
  const h = await harness(t);
  await acceptHostKey(h);
  h.engine.behaviour = () => 'conflict';
  const first = h.next('conflict.prompt');
  const r = await h.service.invoke('queue.enqueue', {
    siteId: h.siteId,
    direction: 'upload',
    sources: ['/l/x', '/l/y', '/l/z'],
    dest: '/r',
  });
  assert.ok(r.ok);
  const p = await first;
  assert.equal(p.target, '/r/x');
  assert.deepEqual(p.existing, { size: 9, mtimeMs: 2 });
  assert.ok((await h.service.invoke('conflict.answer', { promptId: p.promptId, choice: 'skip', forAll: true })).ok);
  await until(h, () => h.service.jobs().every((j) => j.state === 'done'), 'all done');
  assert.deepEqual(h.engine.conflictAnswers, ['skip', 'skip', 'skip']);
  assert.equal(h.events.filter((e) => e.name === 'conflict.prompt').length, 1);
  const stale = await h.service.invoke('conflict.answer', { promptId: p.promptId, choice: 'skip', forAll: false });
  assert.equal(stale.ok ? '' : stale.error.code, 'NOT_FOUND');
});

test('progress samples sum per connection; log lines are redacted', async (t) => {
  const h = await harness(t, { site: { authMethod: 'password' } });
  const prompt = h.next('hostKey.prompt');
  const connecting = h.service.invoke('session.connect', { siteId: h.siteId, password: 's3cret-pw' });
  await h.service.invoke('hostKey.answer', { promptId: (await prompt).promptId, answer: 'accept-once' });
  assert.ok((await connecting).ok);
  assert.equal(h.engine.opened[0].auth.password, 's3cret-pw');
  const logs = h.events.filter((e) => e.name === 'log').map((e) => JSON.stringify(e.payload));
  assert.ok(
    logs.some((l) => l.includes('auth ok with ***')),
    logs.join('\n'),
  );
  assert.ok(!logs.some((l) => l.includes('s3cret-pw')));

  h.engine.behaviour = () => 'hold';
  const sample = h.next('progress', (p) => p.samples[0].rate > 0);
  const r = await h.service.invoke('queue.enqueue', {
    siteId: h.siteId,
    direction: 'upload',
    sources: ['/l/a'],
    dest: '/r',
  });
  assert.ok(r.ok);
  const s = (await sample).samples[0];
  assert.equal(s.rate, 10);
  assert.deepEqual(
    s.connections,
    [
      { id: 1, rate: 6 },
      { id: 2, rate: 4 },
    ],
    'connection numbers from 1, as the pool status',
  );
  assert.deepEqual(
    s.bottleneck,
    { verdict: 'server', detail: 'replies take 80 ms, a round trip 1.0 ms' },
    "the graph gets the run's verdict",
  );
  await until(h, () => h.engine.isHeld('/l/a'), 'held');
  const zero = h.next('progress', (p) => p.samples[0].rate === 0);
  h.engine.release('/l/a');
  await zero;
});

test('local browsing: list, mkdir, rename refuses to overwrite, remove', async (t) => {
  const h = await harness(t);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-local-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'a.txt'), 'abc');
  assert.ok((await h.service.invoke('local.mkdir', { path: path.join(dir, 'sub') })).ok);
  const list = await h.service.invoke('local.list', { path: dir });
  assert.ok(list.ok);
  assert.deepEqual(list.value.entries.map((e) => [e.name, e.type, e.type === 'file' ? e.size : 0]).sort(), [
    ['a.txt', 'file', 3],
    ['sub', 'dir', 0],
  ]);
  const clash = await h.service.invoke('local.rename', { from: path.join(dir, 'a.txt'), to: path.join(dir, 'sub') });
  assert.equal(clash.ok ? '' : clash.error.code, 'EXISTS');
  assert.ok(
    (await h.service.invoke('local.rename', { from: path.join(dir, 'a.txt'), to: path.join(dir, 'b.txt') })).ok,
  );
  assert.ok((await h.service.invoke('local.remove', { path: path.join(dir, 'b.txt') })).ok);
  const missing = await h.service.invoke('local.list', { path: path.join(dir, 'nope') });
  assert.equal(missing.ok ? '' : missing.error.code, 'LOCAL_IO');
  const home = await h.service.invoke('local.home', undefined);
  assert.ok(home.ok && home.value === os.homedir());
  const notConnected = await h.service.invoke('remote.list', { siteId: h.siteId, path: '/' });
  assert.equal(notConnected.ok ? '' : notConnected.error.code, 'NOT_CONNECTED');
});

test('local.remove and local.rename act only on entries of folders the local pane listed', async (t) => {
  const h = await harness(t);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-local-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const shown = path.join(dir, 'shown');
  const hidden = path.join(dir, 'hidden');
  fs.mkdirSync(shown);
  fs.mkdirSync(path.join(hidden, 'deep'), { recursive: true });
  fs.writeFileSync(path.join(shown, 'a.txt'), 'a');
  fs.writeFileSync(path.join(hidden, 'keep.txt'), 'keep');
  assert.ok((await h.service.invoke('local.list', { path: shown })).ok);
  const refused = [
    await h.service.invoke('local.remove', { path: hidden, recursive: true }),
    await h.service.invoke('local.remove', { path: path.join(hidden, 'keep.txt') }),
    await h.service.invoke('local.remove', { path: path.join(shown, '..', 'hidden', 'keep.txt') }),
    await h.service.invoke('local.remove', { path: '/', recursive: true }),
    await h.service.invoke('local.rename', { from: path.join(hidden, 'keep.txt'), to: path.join(shown, 'stolen.txt') }),
    await h.service.invoke('local.rename', { from: path.join(shown, 'a.txt'), to: path.join(hidden, 'deep', 'a.txt') }),
  ];
  for (const r of refused) assert.equal(r.ok ? '' : r.error.code, 'INVALID_REQUEST', JSON.stringify(r));
  assert.match(
    refused[0].ok ? '' : refused[0].error.message,
    /Cannot remove .*hidden: it is not in a folder the local pane has listed/,
  );
  assert.equal(fs.readFileSync(path.join(hidden, 'keep.txt'), 'utf8'), 'keep');
  assert.deepEqual(fs.readdirSync(shown), ['a.txt']);
  assert.ok(
    (await h.service.invoke('local.rename', { from: path.join(shown, 'a.txt'), to: path.join(shown, 'b.txt') })).ok,
  );
  assert.ok((await h.service.invoke('local.remove', { path: path.join(shown, 'b.txt') })).ok);
  assert.deepEqual(fs.readdirSync(shown), []);
});

test('site ciphers are validated and passed to the engine', async (t) => {
  const h = await harness(t, { site: { ciphers: ['aes256-gcm@openssh.com', 'aes128-ctr'] } });
  await acceptHostKey(h);
  assert.deepEqual(h.engine.opened[0].algorithms?.cipher, ['aes256-gcm@openssh.com', 'aes128-ctr']);
  const bad = await h.service.invoke('sites.save', {
    site: {
      id: h.siteId,
      name: 'Lab',
      folder: '',
      host: '127.0.0.1',
      port: 2222,
      user: 'u',
      authMethod: 'agent',
      ciphers: ['rot13'],
    },
  });
  assert.ok(bad.ok);
  assert.ok((await h.service.invoke('session.disconnect', { siteId: h.siteId })).ok);
  const res = await h.service.invoke('session.connect', { siteId: h.siteId });
  assert.equal(res.ok ? '' : res.error.code, 'USAGE');
  assert.match(res.ok ? '' : res.error.message, /rot13/);
  assert.equal(h.engine.opened.length, 1, 'the engine was not asked to connect with an unknown cipher');
});

test('quick connect: an unsaved site is found for this run only, never listed; after a restart its id says what happened', async (t) => {
  const h = await harness(t);
  const quick = await h.service.invoke('sites.quick', { target: 'deploy@files.example.org:2222' });
  assert.ok(quick.ok);
  assert.deepEqual(
    [quick.value.host, quick.value.port, quick.value.user, quick.value.quick],
    ['files.example.org', 2222, 'deploy', true],
  );
  const listed = await h.service.invoke('sites.list', undefined);
  assert.ok(
    listed.ok && !listed.value.sites.some((x) => x.id === quick.value.id || x.host === 'files.example.org'),
    'not a saved site',
  );
  const bad = await h.service.invoke('sites.quick', { target: 'host:0' });
  assert.equal(bad.ok ? '' : bad.error.code, 'USAGE');
  const again = await reopen(h);
  const gone = await again.service.invoke('session.connect', { siteId: quick.value.id });
  assert.match(gone.ok ? '' : gone.error.message, /This quick connection ended when Sluice quit/);
});

test('layout: the splitters and folds are kept in settings across a restart; a wrong one is refused', async (t) => {
  const h = await harness(t);
  const layout = { bottomHeight: 400, sideWidth: 300, graphShare: 0.3, graphCollapsed: true, logCollapsed: false };
  assert.ok((await h.service.invoke('settings.set', { layout })).ok);
  const refused = await h.service.invoke('settings.set', { layout: { ...layout, graphShare: 2 } });
  assert.equal(refused.ok ? '' : refused.error.code, 'INVALID_REQUEST');
  const again = await reopen(h);
  const got = await again.service.invoke('settings.get', undefined);
  assert.deepEqual(got.ok && got.value.layout, layout);
});

test("speed limits: the global one is kept in settings and applied to the process; a site's reaches its engine, at connect and when saved", async (t) => {
  const h = await harness(t);
  const set = await h.service.invoke('settings.set', { speedLimit: 10 * 1048576 });
  assert.ok(set.ok);
  assert.equal(set.value.speedLimit, 10 * 1048576);
  assert.equal(globalRateLimit().bytesPerSecond, 10 * 1048576);
  const refused = await h.service.invoke('settings.set', { speedLimit: 12 });
  assert.equal(refused.ok, false, 'a limit under 1 KiB/s other than 0 is refused');
  const again = await reopen(h);
  const got = await again.service.invoke('settings.get', undefined);
  assert.ok(got.ok);
  assert.equal(got.value.speedLimit, 10 * 1048576, 'kept across a restart');
  assert.ok((await again.service.invoke('settings.set', { speedLimit: 0 })).ok);
  assert.equal(globalRateLimit().bytesPerSecond, 0);

  const list = await again.service.invoke('sites.list', undefined);
  assert.ok(list.ok);
  const site = list.value.sites.find((s) => s.id === again.siteId)!;
  const { hasPassword: _hp, id, createdAt: _c, updatedAt: _u, ...input } = site;
  assert.ok((await again.service.invoke('sites.save', { site: { ...input, id, speedLimit: 2 * 1048576 } })).ok);
  await acceptHostKey(again);
  assert.equal(again.engine.opened.at(-1)?.rateLimit, 2 * 1048576, "the engine opens with the site's limit");
  assert.ok((await again.service.invoke('sites.save', { site: { ...input, id, speedLimit: 4 * 1048576 } })).ok);
  assert.deepEqual(again.engine.rateLimits.slice(-1), [4 * 1048576], 'a saved change reaches the open engine');
});

test("the session status carries the engine's pool once connected, and drops it on disconnect", async (t) => {
  const h = await harness(t);
  await acceptHostKey(h);
  const list = await h.service.invoke('session.list', undefined);
  assert.ok(list.ok);
  const s = list.value.find((x) => x.siteId === h.siteId);
  assert.deepEqual(s?.pool, { connections: 1, channels: 1, links: [{ connection: 1, up: true, channels: 1 }] });
  assert.equal(s?.connectionsUp, 1);
  const down = h.next('session.status', (x) => x.state === 'disconnected');
  assert.ok((await h.service.invoke('session.disconnect', { siteId: h.siteId })).ok);
  assert.equal((await down).pool, undefined, 'no pool shown for a closed session');
});
