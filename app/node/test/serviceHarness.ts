/**
 * TEST ONLY: the service (app/node/service.ts) over a fake engine behind the real set-up, with a temp data folder,
 * every event recorded and the queue deltas replayed as a renderer would. Used by service.test.ts and
 * service/queue.test.ts; `reopen` closes a service and opens a new one on the same data folder (an app restart).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SluiceService, type Engine, type EngineOptions, type ServiceOptions } from '../service';
import { poolOptionsFor } from '../engine/setup';
import type { PoolEvent, PoolOptions } from '../ssh/connectionPool';
import { MemorySecretStore, type SecretStore } from '../stores/sites';
import type { EventName, EventPayloads } from '../../common/ipc/contract';
import { applyQueueEvents, emptyQueue, type QueueState } from '../../common/queue/reducer';
import type { SiteInput } from '../../common/model/site';
import type { ConflictFiles, EventSink, JournalledFile, TransferReport, TransferRequest } from '../transfer/types';

export const WAIT_MS = 5000;

/** SSH wire encoding of an ed25519 public key (RFC 8709 §4) with the given fill byte. */
export function ed25519Blob(fill: number): Buffer {
  const str = (b: Buffer): Buffer => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  return Buffer.concat([str(Buffer.from('ssh-ed25519')), str(Buffer.alloc(32, fill))]);
}

/**
 * What the fake engine does with a source: finish it, fail it, hold it until released, ask a conflict, skip it, or
 * skip it as committed by an earlier run of its job (`earlier`).
 */
export type Behaviour = 'ok' | 'fail' | 'hold' | 'conflict' | 'skip' | 'earlier';

/** What the fake engine was opened with: the set-up's resolved options, with the service's event listener. */
export type Opened = PoolOptions & { onEvent: (e: PoolEvent) => void };

/**
 * A fake engine behind the real set-up (engine/setup.ts: known_hosts, host-key policy, algorithms, identities): a
 * transfer takes its sources in turn, each following `behaviour(source)` and ending with a `file` event (to the
 * transfer's own `onEvent`, as the engine's transfers send them; the pool's events go to the opened `onEvent`); `hold`
 * waits for `release(source)` or abort. `opened` holds the resolved options of every connect that got past the
 * set-up; `requests` every transfer asked for; `removed` every remote path removed. With the request's journal it
 * plans each file (`fileSize` bytes), and a held file that starts from zero records its first half as durable, with
 * a partial copy at its temporary name when a download's destination folder exists.
 */
export class FakeEngine {
  opened: Opened[] = [];
  /** The temporary name each source's journal gave it (stable per job and source: engine/journal.ts). */
  readonly tempOf = new Map<string, string>();
  /** Every setRateLimit call on an open engine (bytes/s). */
  rateLimits: number[] = [];
  requests: TransferRequest[] = [];
  hostKey = ed25519Blob(7);
  running = 0;
  maxRunning = 0;
  behaviour: (source: string) => Behaviour = () => 'ok';
  conflictAnswers: string[] = [];
  /** What a `conflict` source reports about its target and itself. */
  conflictFiles: ConflictFiles = { incoming: { size: 100, mtimeMs: 1 }, existing: { size: 9, mtimeMs: 2 } };
  /** The size every source has. */
  fileSize = 100;
  removed: string[] = [];
  /** Errors the next opens fail with (after the host key was checked), one each, in order. */
  failures: Array<{ code: string; message: string }> = [];
  private readonly holds = new Map<string, () => void>();

  factory = async (options: EngineOptions): Promise<Engine> => {
    const o = { ...(await poolOptionsFor(options)), onEvent: options.onEvent! };
    this.opened.push(o);
    const check = await o.hostKeys.verify(o.host, o.port, this.hostKey);
    if (!check.accepted) throw Object.assign(new Error(check.message), { code: check.code });
    const failure = this.failures.shift();
    if (failure) throw Object.assign(new Error(failure.message), { code: failure.code });
    o.onEvent({ type: 'connection', id: 0, state: 'up' });
    o.onEvent({ type: 'log', level: 'info', message: `auth ok with ${o.auth.password ?? 'no password'}` });
    return this.engine();
  };

  release(source: string): void {
    this.holds.get(source)?.();
  }

  isHeld(source: string): boolean {
    return this.holds.has(source);
  }

  private engine(): Engine {
    return {
      traits: {
        negotiated: {
          kex: 'curve25519-sha256',
          serverHostKey: 'ssh-ed25519',
          cipher: 'aes128-gcm@openssh.com',
          mac: '',
        },
        extensions: {},
        maxRead: 32768,
        maxWrite: 32768,
        ordersRequests: false,
      },
      pool: {
        authMethod: 'publickey',
        connections: 1,
        channels: 1,
        channelWindow: 2 * 1024 * 1024,
        up: [{ connection: 1, channels: 1 }],
      },
      setRateLimit: (n) => {
        this.rateLimits.push(n);
      },
      list: async () => [{ name: 'a.txt', type: 'file', size: 3, mtimeMs: 1, mode: 0o644 }],
      stat: async () => ({ type: 'file', size: 9, mtimeMs: 2, mode: 0o644 }),
      realpath: async (p) => (p === '.' ? '/home/u' : p),
      readlink: async (p) => `${p}.target`,
      mkdir: async () => 'created',
      rename: async () => undefined,
      remove: async (p) => {
        this.removed.push(p);
      },
      close: async () => undefined,
      transfer: (req, call) => this.transfer(req, call?.onEvent ?? (() => undefined), call?.signal),
    };
  }

  private async transfer(req: TransferRequest, onEvent: EventSink, signal?: AbortSignal): Promise<TransferReport> {
    this.requests.push(req);
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    try {
      onEvent({
        type: 'progress',
        jobId: req.id,
        t: 1000,
        bytesDone: 50,
        bytesTotal: 100,
        filesDone: 0,
        filesTotal: 1,
        rate: 10,
        scanning: false,
        files: [],
        bottleneck: { verdict: 'server', detail: 'replies take 80 ms, a round trip 1.0 ms' },
        connections: [
          { id: 0, bytes: 50, rate: 6, inFlightBytes: 0, outstanding: 0, channels: [] },
          { id: 1, bytes: 0, rate: 4, inFlightBytes: 0, outstanding: 0, channels: [] },
        ],
      });
      const report: TransferReport = {
        files: 0,
        skipped: 0,
        bytes: 0,
        movedBytes: 0,
        failed: [],
        verify: 'size',
        elapsedMs: 1,
      };
      for (const source of req.sources) await this.one(onEvent, req, source, report, signal);
      return report;
    } finally {
      this.running--;
    }
  }

  /** A file's plan in the request's journal; a held file starting from zero records its first half as durable. */
  private async plan(
    req: TransferRequest,
    source: string,
    target: string,
    hold: boolean,
  ): Promise<JournalledFile | undefined> {
    const journal = req.journal;
    if (!journal) return undefined;
    const temp = `${req.dest}/.${path.basename(source)}.sluice-0badc0de.part`;
    const plan = await journal.planFile({ src: source, dst: target, size: this.fileSize, mtimeMs: 1 }, temp);
    this.tempOf.set(source, plan.temp);
    if (hold && !plan.committed && plan.done.length === 0) {
      if (req.direction === 'get' && fs.existsSync(req.dest)) fs.writeFileSync(plan.temp, 'partial');
      journal.recordRange(source, 0, this.fileSize / 2);
      journal.flush();
    }
    return plan;
  }

  /** One source of a transfer, reported with a `file` event and counted in `report`. */
  private async one(
    onEvent: EventSink,
    req: TransferRequest,
    source: string,
    report: TransferReport,
    signal?: AbortSignal,
  ): Promise<void> {
    const b = this.behaviour(source);
    const target = `${req.dest}/${path.basename(source)}`;
    const file = { type: 'file' as const, jobId: req.id, path: source, target, size: this.fileSize };
    const plan = await this.plan(req, source, target, b === 'hold');
    for (const [start, end] of plan?.done ?? []) report.resumedBytes = (report.resumedBytes ?? 0) + end - start;
    if (b === 'hold') {
      await new Promise<void>((resolve, reject) => {
        this.holds.set(source, resolve);
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      }).finally(() => this.holds.delete(source));
    }
    let answer = 'overwrite';
    if (b === 'conflict' && typeof req.conflict === 'function')
      this.conflictAnswers.push((answer = await req.conflict(`/r/${path.basename(source)}`, this.conflictFiles)));
    if (b === 'fail') {
      const error = {
        code: 'PERMISSION_DENIED',
        message: `OPEN ${target} (temporary .${path.basename(source)}.sluice-0badc0de.part): permission denied`,
      };
      report.failed.push({ path: source, ...error });
      onEvent({ ...file, state: 'failed', error });
    } else if (b === 'skip' || answer === 'skip') {
      report.skipped++;
      onEvent({ ...file, state: 'skipped', reason: 'the target exists' });
    } else if (b === 'earlier') {
      report.skipped++;
      onEvent({ ...file, state: 'skipped', reason: 'already copied by an earlier run of this job', earlier: true });
    } else {
      report.files++;
      report.bytes += this.fileSize;
      if (plan && req.direction === 'get') fs.rmSync(plan.temp, { force: true });
      req.journal?.fileEnded(source, 'committed');
      onEvent({ ...file, state: 'done', verify: 'size' });
    }
  }
}

export interface Harness {
  service: SluiceService;
  engine: FakeEngine;
  /** The data folder. */
  home: string;
  knownHosts: string;
  events: Array<{ name: EventName; payload: unknown }>;
  /** The renderer's view: every queue delta replayed through the shared reducer. */
  replayed(): QueueState;
  next<E extends EventName>(name: E, pred?: (p: EventPayloads[E]) => boolean): Promise<EventPayloads[E]>;
  siteId: string;
}

export interface HarnessOptions {
  secrets?: SecretStore;
  jobsPerSite?: number;
  site?: Partial<SiteInput>;
  queueTimings?: ServiceOptions['queueTimings'];
  /** How a lost session reconnects; default {@link FAST_RECONNECT}. */
  reconnectPolicy?: ServiceOptions['reconnectPolicy'];
}

/** Reconnect attempts a few ms apart, so tests do not wait out the product's backoff. */
export const FAST_RECONNECT = { tries: 4, baseDelayMs: 5, maxDelayMs: 20, totalDelayMs: 1000 };

/** Every service opened per data folder, closed by the test's cleanup. */
const servicesOf = new Map<string, SluiceService[]>();

/** A service on `home` (its site `siteId`, saved already or saved now). */
async function open(home: string, engine: FakeEngine, opts: HarnessOptions, siteId?: string): Promise<Harness> {
  const knownHosts = path.join(home, 'known_hosts');
  const service = new SluiceService({
    home,
    secrets: opts.secrets ?? new MemorySecretStore(),
    knownHostsPath: knownHosts,
    engine: engine.factory,
    jobsPerSite: opts.jobsPerSite,
    env: {},
    queueTimings: opts.queueTimings,
    reconnectPolicy: opts.reconnectPolicy ?? FAST_RECONNECT,
  });
  servicesOf.set(home, [...(servicesOf.get(home) ?? []), service]);
  const events: Harness['events'] = [];
  let queue: QueueState = applyQueueEvents(emptyQueue, [{ type: 'snapshot', jobs: service.jobs() }]);
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
  if (siteId === undefined) {
    const saved = await service.invoke('sites.save', {
      site: { name: 'Lab', folder: '', host: '127.0.0.1', port: 2222, user: 'u', authMethod: 'agent', ...opts.site },
    });
    assert.ok(saved.ok);
    siteId = saved.value.id;
  }
  return {
    service,
    engine,
    home,
    knownHosts,
    events,
    siteId,
    replayed: () => queue,
    next: (name, pred = () => true) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${name}`)), WAIT_MS);
        waiters.add({
          name,
          pred: pred as (p: never) => boolean,
          resolve: (p) => {
            clearTimeout(timer);
            resolve(p as never);
          },
        });
      }),
  };
}

/** A service over a fake engine in a fresh data folder with one saved site; closed and removed after the test. */
export async function harness(
  t: { after: (fn: () => Promise<void> | void) => void },
  opts: HarnessOptions = {},
): Promise<Harness> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-svc-'));
  t.after(async () => {
    for (const s of servicesOf.get(dir) ?? []) await s.close();
    servicesOf.delete(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return open(dir, new FakeEngine(), opts);
}

/** Closes `h`'s service and opens a new one on the same data folder and engine (an app restart). */
export async function reopen(h: Harness, opts: HarnessOptions = {}): Promise<Harness> {
  await h.service.close();
  return open(h.home, h.engine, opts, h.siteId);
}

/** Waits until `cond()` holds, re-checking after every service event; bounded by WAIT_MS. */
export async function until(h: Harness, cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise<void>((resolve) => {
      const done = (): void => {
        unsubscribe();
        clearImmediate(tick);
        resolve();
      };
      const unsubscribe = h.service.subscribe(done);
      const tick = setImmediate(done);
    });
  }
}

/** Connects the harness's site, accepting (and saving) the fake server's unknown host key. */
export async function acceptHostKey(h: Harness): Promise<void> {
  const prompt = h.next('hostKey.prompt');
  const connecting = h.service.invoke('session.connect', { siteId: h.siteId });
  const p = await prompt;
  assert.ok((await h.service.invoke('hostKey.answer', { promptId: p.promptId, answer: 'accept-save' })).ok);
  const res = await connecting;
  assert.ok(res.ok, JSON.stringify(res));
}
