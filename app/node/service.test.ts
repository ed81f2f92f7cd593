/**
 * Service tests against a fake engine: sites and secrets, host-key prompts (with a real known_hosts file),
 * the queue's concurrency, pause/resume/cancel/retry, conflict prompts with "for all", progress and logs.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SluiceService, type Engine, type EngineOptions } from './service';
import { sessionOptionsFor } from './engine/setup';
import type { SessionOptions } from './ssh/session';
import { MemorySecretStore, type SecretStore } from './stores/sites';
import type { EventName, EventPayloads } from '../common/ipc/contract';
import { applyQueueEvents, emptyQueue, jobsInOrder, type QueueState } from '../common/queue/reducer';
import type { SiteInput } from '../common/model/site';
import type { EngineEvent, TransferReport, TransferRequest } from './transfer/types';

const WAIT_MS = 5000;

/** SSH wire encoding of an ed25519 public key (RFC 8709 §4) with the given fill byte. */
function ed25519Blob(fill: number): Buffer {
  const str = (b: Buffer): Buffer => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  return Buffer.concat([str(Buffer.from('ssh-ed25519')), str(Buffer.alloc(32, fill))]);
}

type Behaviour = 'ok' | 'fail' | 'hold' | 'conflict';

/** What the fake engine was opened with: the set-up's resolved options, with the service's event listener. */
type Opened = SessionOptions & { onEvent: (e: EngineEvent) => void };

/**
 * A fake engine behind the real set-up (engine/setup.ts: known_hosts, host-key policy, algorithms, identities):
 * transfers follow `behaviour(source)`; `hold` waits for `release(source)` or abort. `opened` holds the resolved
 * options of every connect that got past the set-up.
 */
class FakeEngine {
  opened: Opened[] = [];
  hostKey = ed25519Blob(7);
  running = 0;
  maxRunning = 0;
  behaviour: (source: string) => Behaviour = () => 'ok';
  conflictAnswers: string[] = [];
  private readonly holds = new Map<string, () => void>();

  factory = async (options: EngineOptions): Promise<Engine> => {
    const o = { ...(await sessionOptionsFor(options)), onEvent: options.onEvent! };
    this.opened.push(o);
    const check = await o.hostKeys.verify(o.host, o.port, this.hostKey);
    if (!check.accepted) throw Object.assign(new Error(check.message), { code: check.code });
    o.onEvent({ type: 'connection', id: 0, state: 'up' });
    o.onEvent({ type: 'log', level: 'info', message: `auth ok with ${o.auth.password ?? 'no password'}` });
    return this.session(o);
  };

  release(source: string): void {
    this.holds.get(source)?.();
  }

  isHeld(source: string): boolean {
    return this.holds.has(source);
  }

  private session(o: Opened): Engine {
    return {
      traits: {
        negotiated: { kex: 'curve25519-sha256', serverHostKey: 'ssh-ed25519', cipher: 'aes128-gcm@openssh.com', mac: '' },
        extensions: {}, maxRead: 32768, maxWrite: 32768, ordersRequests: false,
      },
      pool: { authMethod: 'publickey', connections: 1, channels: 1, channelWindow: 2 * 1024 * 1024, up: [{ connection: 1, channels: 1 }] },
      list: async () => [{ name: 'a.txt', type: 'file', size: 3, mtimeMs: 1, mode: 0o644 }],
      stat: async () => ({ type: 'file', size: 9, mtimeMs: 2, mode: 0o644 }),
      realpath: async (p) => (p === '.' ? '/home/u' : p),
      mkdir: async () => 'created',
      rename: async () => undefined,
      remove: async () => undefined,
      close: async () => undefined,
      setRateLimit: () => undefined,
      transfer: (req, signal) => this.transfer(o, req, signal),
    };
  }

  private async transfer(o: Opened, req: TransferRequest, signal?: AbortSignal): Promise<TransferReport> {
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    try {
      const source = req.sources[0];
      o.onEvent({
        type: 'progress', jobId: req.id, t: 1000, bytesDone: 50, bytesTotal: 100, filesDone: 0, filesTotal: 1, rate: 10,
        scanning: false, files: [],
        connections: [{ id: 0, bytes: 50, rate: 6, inFlightBytes: 0, outstanding: 0, channels: [] }, { id: 1, bytes: 0, rate: 4, inFlightBytes: 0, outstanding: 0, channels: [] }],
      });
      const b = this.behaviour(source);
      if (b === 'hold') {
        await new Promise<void>((resolve, reject) => {
          this.holds.set(source, resolve);
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        }).finally(() => this.holds.delete(source));
      }
      if (b === 'conflict' && typeof req.conflict === 'function') this.conflictAnswers.push(await req.conflict(`/r/${path.basename(source)}`, { incoming: { size: 100, mtimeMs: 1 }, existing: { size: 9, mtimeMs: 2 } }));
      if (b === 'fail') return { files: 0, skipped: 0, bytes: 0, failed: [{ path: source, code: 'PERMISSION_DENIED', message: 'permission denied' }], verify: 'size', elapsedMs: 1 };
      return { files: 1, skipped: 0, bytes: 100, failed: [], verify: 'size', elapsedMs: 1 };
    } finally {
      this.running--;
    }
  }
}

interface Harness {
  service: SluiceService;
  engine: FakeEngine;
  knownHosts: string;
  events: Array<{ name: EventName; payload: unknown }>;
  /** The renderer's view: every queue delta replayed through the shared reducer. */
  replayed(): QueueState;
  next<E extends EventName>(name: E, pred?: (p: EventPayloads[E]) => boolean): Promise<EventPayloads[E]>;
  siteId: string;
}

async function harness(t: { after: (fn: () => Promise<void> | void) => void }, opts: { secrets?: SecretStore; jobsPerSite?: number; site?: Partial<SiteInput> } = {}): Promise<Harness> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-svc-'));
  const knownHosts = path.join(dir, 'known_hosts');
  const engine = new FakeEngine();
  const service = new SluiceService({ home: dir, secrets: opts.secrets ?? new MemorySecretStore(), knownHostsPath: knownHosts, engine: engine.factory, jobsPerSite: opts.jobsPerSite, env: {} });
  const events: Harness['events'] = [];
  let queue: QueueState = emptyQueue;
  const waiters = new Set<{ name: EventName; pred: (p: never) => boolean; resolve: (p: unknown) => void }>();
  service.subscribe((name, payload) => {
    events.push({ name, payload });
    if (name === 'queue.delta') queue = applyQueueEvents(queue, (payload as EventPayloads['queue.delta']).events);
    for (const w of [...waiters]) {
      if (w.name === name && w.pred(payload as never)) {
        waiters.delete(w);
        w.resolve(payload);
      }
    }
  });
  t.after(async () => {
    await service.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const saved = await service.invoke('sites.save', { site: { name: 'Lab', folder: '', host: '127.0.0.1', port: 2222, user: 'u', authMethod: 'agent', ...opts.site } });
  assert.ok(saved.ok);
  return {
    service, engine, knownHosts, events, siteId: saved.value.id,
    replayed: () => queue,
    next: (name, pred = () => true) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${name}`)), WAIT_MS);
      waiters.add({ name, pred: pred as (p: never) => boolean, resolve: (p) => { clearTimeout(timer); resolve(p as never); } });
    }),
  };
}

/** Waits until `cond()` holds, re-checking after every service event; bounded by WAIT_MS. */
async function until(h: Harness, cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise<void>((resolve) => {
      const done = (): void => { unsubscribe(); clearImmediate(tick); resolve(); };
      const unsubscribe = h.service.subscribe(done);
      const tick = setImmediate(done);
    });
  }
}

async function acceptHostKey(h: Harness): Promise<void> {
  const prompt = h.next('hostKey.prompt');
  const connecting = h.service.invoke('session.connect', { siteId: h.siteId });
  const p = await prompt;
  assert.ok((await h.service.invoke('hostKey.answer', { promptId: p.promptId, answer: 'accept-save' })).ok);
  const res = await connecting;
  assert.ok(res.ok, JSON.stringify(res));
}

test('sites: passwords go to the SecretStore only; validation and unknown channels fail as data', async (t) => {
  const secrets = new MemorySecretStore();
  const h = await harness(t, { secrets });
  const saved = await h.service.invoke('sites.save', { site: { name: 'P', folder: 'Work', host: 'h', port: 22, user: 'u', authMethod: 'password' }, password: 'hunter2' });
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

  const bad = await h.service.invoke('sites.save', { site: { name: '', folder: '', host: 'h', port: 22, user: 'u', authMethod: 'agent' } });
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
  assert.deepEqual(settings.value, { theme: 'dark', allowInsecureSecretStorage: true, secretStorage: { backend: 'basic_text', secure: false } });
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
  assert.match(fs.readFileSync(h.knownHosts, 'utf8'), /^\[127\.0\.0\.1\]:2222 ssh-ed25519 \S+\n$/, 'accepting a changed key changes nothing');
  const status = await h.service.invoke('session.list', undefined);
  assert.ok(status.ok);
  assert.equal(status.value[0].state, 'failed');
});

test('queue: bounded concurrency per site, all jobs done, renderer replay equals the engine state', async (t) => {
  const h = await harness(t, { jobsPerSite: 2 });
  await acceptHostKey(h);
  h.engine.behaviour = () => 'hold';
  const sources = Array.from({ length: 6 }, (_, i) => `/l/f${i}`);
  const res = await h.service.invoke('queue.enqueue', { siteId: h.siteId, direction: 'upload', sources, dest: '/r' });
  assert.ok(res.ok);
  assert.equal(res.value.jobIds.length, 6);
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
  assert.deepEqual(snap.value.jobs.map((j) => j.name), ['f0', 'f1', 'f2', 'f3', 'f4', 'f5']);
  assert.ok((await h.service.invoke('queue.clearFinished', undefined)).ok);
  assert.equal(h.service.jobs().length, 0);
  assert.equal(h.replayed().order.length, 0);
});

test('queue: pause aborts and resume re-runs; cancel; retry after failure', async (t) => {
  const h = await harness(t);
  await acceptHostKey(h);
  let attempt = 0;
  h.engine.behaviour = (s) => (s === '/l/p' ? (attempt++ === 0 ? 'hold' : 'ok') : s === '/l/bad' ? (attempt >= 99 ? 'ok' : 'fail') : 'hold');
  const r = await h.service.invoke('queue.enqueue', { siteId: h.siteId, direction: 'upload', sources: ['/l/p', '/l/c', '/l/bad'], dest: '/r' });
  assert.ok(r.ok);
  const [p, c, bad] = r.value.jobIds;
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
  const r = await h.service.invoke('queue.enqueue', { siteId: h.siteId, direction: 'download', sources: ['/r/a', '/r/b', '/r/c'], dest: '/l' });
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
  const r = await h.service.invoke('queue.enqueue', { siteId: h.siteId, direction: 'upload', sources: ['/l/x', '/l/y', '/l/z'], dest: '/r' });
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
  assert.ok(logs.some((l) => l.includes('auth ok with ***')), logs.join('\n'));
  assert.ok(!logs.some((l) => l.includes('s3cret-pw')));

  h.engine.behaviour = () => 'hold';
  const sample = h.next('progress', (p) => p.samples[0].rate > 0);
  const r = await h.service.invoke('queue.enqueue', { siteId: h.siteId, direction: 'upload', sources: ['/l/a'], dest: '/r' });
  assert.ok(r.ok);
  const s = (await sample).samples[0];
  assert.equal(s.rate, 10);
  assert.deepEqual(s.connections, [{ id: 0, rate: 6 }, { id: 1, rate: 4 }]);
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
  assert.deepEqual(list.value.entries.map((e) => [e.name, e.type, e.type === 'file' ? e.size : 0]).sort(), [['a.txt', 'file', 3], ['sub', 'dir', 0]]);
  const clash = await h.service.invoke('local.rename', { from: path.join(dir, 'a.txt'), to: path.join(dir, 'sub') });
  assert.equal(clash.ok ? '' : clash.error.code, 'EXISTS');
  assert.ok((await h.service.invoke('local.rename', { from: path.join(dir, 'a.txt'), to: path.join(dir, 'b.txt') })).ok);
  assert.ok((await h.service.invoke('local.remove', { path: path.join(dir, 'b.txt') })).ok);
  const missing = await h.service.invoke('local.list', { path: path.join(dir, 'nope') });
  assert.equal(missing.ok ? '' : missing.error.code, 'LOCAL_IO');
  const home = await h.service.invoke('local.home', undefined);
  assert.ok(home.ok && home.value === os.homedir());
  const notConnected = await h.service.invoke('remote.list', { siteId: h.siteId, path: '/' });
  assert.equal(notConnected.ok ? '' : notConnected.error.code, 'NOT_CONNECTED');
});

test('site ciphers are validated and passed to the engine', async (t) => {
  const h = await harness(t, { site: { ciphers: ['aes256-gcm@openssh.com', 'aes128-ctr'] } });
  await acceptHostKey(h);
  assert.deepEqual(h.engine.opened[0].algorithms?.cipher, ['aes256-gcm@openssh.com', 'aes128-ctr']);
  const bad = await h.service.invoke('sites.save', { site: { id: h.siteId, name: 'Lab', folder: '', host: '127.0.0.1', port: 2222, user: 'u', authMethod: 'agent', ciphers: ['rot13'] } });
  assert.ok(bad.ok);
  assert.ok((await h.service.invoke('session.disconnect', { siteId: h.siteId })).ok);
  const res = await h.service.invoke('session.connect', { siteId: h.siteId });
  assert.equal(res.ok ? '' : res.error.code, 'USAGE');
  assert.match(res.ok ? '' : res.error.message, /rot13/);
  assert.equal(h.engine.opened.length, 1, 'the engine was not asked to connect with an unknown cipher');
});

test('when every connection drops the session is reported lost and the next connect opens a new one', async (t) => {
  const h = await harness(t);
  await acceptHostKey(h);
  const lost = h.next('session.status', (st) => st.state === 'disconnected');
  h.engine.opened[0].onEvent({ type: 'connection', id: 0, state: 'down', reason: 'read ECONNRESET' });
  const st = await lost;
  assert.deepEqual(st.error, { code: 'CONNECTION_LOST', message: 'read ECONNRESET' });
  const notConnected = await h.service.invoke('remote.list', { siteId: h.siteId, path: '/' });
  assert.equal(notConnected.ok ? '' : notConnected.error.code, 'NOT_CONNECTED');
  const again = await h.service.invoke('session.connect', { siteId: h.siteId });
  assert.ok(again.ok);
  assert.equal(again.value.state, 'connected');
  assert.equal(again.value.error, undefined);
  assert.equal(h.engine.opened.length, 2);
});
