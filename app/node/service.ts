/**
 * The one façade implementing the IPC contract (app/common/ipc/contract.ts) over the engine: saved sites,
 * sessions, local and remote browsing, the transfer queue, host-key and conflict prompts, settings.
 * main/ (Electron), the CLI and the e2e WebSocket harness talk only to this class:
 * `invoke(channel, payload)` answers a Result, `subscribe(listener)` receives every event.
 *
 * The queue lives in memory: jobs are kept as a {@link QueueState} changed only through the shared reducer,
 * so the events emitted are exactly what a renderer replays. Each site runs at most `jobsPerSite` jobs at
 * once; pause aborts the running transfer (its next run resumes through the engine), resume re-queues.
 */
import { preferStoredHostKeyTypes } from './ssh/openSession';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  invokeSchemas, type ConflictChoice, type EventName, type EventPayloads, type FsEntry, type HostKeyAnswer,
  type HostKeyPrompt, type InvokeChannel, type InvokeRequests, type InvokeResponses, type ProgressSample,
  type SessionStatus, type Settings, type Theme,
} from '../common/ipc/contract';
import { err, ok, type Result } from '../common/ipc/result';
import type { HostKeyVerdict } from '../common/model/hostKey';
import { canTransition, type Job, type JobState } from '../common/model/job';
import type { Site, SiteView } from '../common/model/site';
import { applyQueueEvents, emptyQueue, getJob, jobsInOrder, type JobPatch, type QueueEvent, type QueueState } from '../common/queue/reducer';
import { SluiceError, fromLocalError } from './errors';
import { buildAlgorithms } from './ssh/algorithms';
import { gatherAuth } from './ssh/auth';
import { HostKeyPolicy, learnedKeysMessage } from './ssh/hostKeys';
import { KnownHosts, defaultKnownHostsPaths, type KnownHostsPaths } from './stores/knownHosts';
import { SitesStore, type SecretStore } from './stores/sites';
import type { ConflictFiles, EngineEvent, TransferReport } from './transfer/types';
import { openEngineSession, type EngineFactory, type EngineSession } from './engine/engine';

export type { EngineFactory, EngineOpenOptions, EngineSession } from './engine/engine';

export interface ServiceOptions {
  /** Data folder (sluice.db lives here), e.g. `resolveHome()` from app/node/stores/sites.ts. */
  home: string;
  secrets: SecretStore;
  /** One known_hosts file to read and append to (tests, harness); default: OpenSSH's user + global files. */
  knownHostsPath?: string;
  /** Engine override (tests). */
  engine?: EngineFactory;
  /** Jobs running at once per site; default 4 (each job itself uses every connection of the session). */
  jobsPerSite?: number;
  /** ms allowed for connect + handshake + auth, including the time a host-key dialog stays open. Default 120000. */
  readyTimeoutMs?: number;
  /** Environment for SSH_AUTH_SOCK and known_hosts defaults; default process.env. */
  env?: NodeJS.ProcessEnv;
  clock?: () => number;
}

export type ServiceListener = <E extends EventName>(event: E, payload: EventPayloads[E]) => void;

interface SiteSession {
  site: Site;
  status: SessionStatus;
  opening?: Promise<EngineSession>;
  engine?: EngineSession;
  /** Secrets used by this session, redacted from log lines. */
  secrets: string[];
  /** Open prompts of this session, closed when the connection attempt ends. */
  prompts: Set<string>;
  /** Set while the user disconnects, so the connections going down are not reported as lost. */
  closing?: boolean;
}

interface RunningJob {
  controller: AbortController;
  /** Why the transfer is being aborted, decided by the user action. */
  stopAs?: 'paused' | 'cancelled';
  /** Last throughput sample of this job, for the per-site graph. */
  sample?: { rate: number; connections: Array<{ id: number; rate: number }> };
}

interface PendingHostKey {
  siteId: string;
  kind: HostKeyPrompt['kind'];
  resolve: (a: HostKeyAnswer) => void;
}

interface PendingConflict {
  jobId: string;
  batchId: string;
  resolve: (c: ConflictChoice) => void;
}

type Handlers = { [C in InvokeChannel]: (req: InvokeRequests[C]) => Promise<InvokeResponses[C]> };

const DEFAULT_JOBS_PER_SITE = 4;
const DEFAULT_READY_TIMEOUT_MS = 120_000;

export class SluiceService {
  private readonly store: SitesStore;
  private readonly secrets: SecretStore;
  private readonly engine: EngineFactory;
  private readonly env: NodeJS.ProcessEnv;
  private readonly clock: () => number;
  private readonly jobsPerSite: number;
  private readonly readyTimeoutMs: number;
  private readonly knownHostsPaths: KnownHostsPaths;
  /** The data folder (sluice.db, and the engine's leftovers journal). */
  private readonly home: string;
  private readonly listeners = new Set<ServiceListener>();
  private readonly sessions = new Map<string, SiteSession>();
  private queue: QueueState = emptyQueue;
  private readonly running = new Map<string, RunningJob>();
  private readonly hostKeyPrompts = new Map<string, PendingHostKey>();
  private readonly conflictPrompts = new Map<string, PendingConflict>();
  /** "For all" conflict answers per batch. */
  private readonly batchPolicy = new Map<string, ConflictChoice>();
  /** Serialises conflict prompts per batch: one dialog at a time. */
  private readonly batchPromptChain = new Map<string, Promise<unknown>>();
  private readonly handlers: Handlers;
  private closed = false;

  constructor(opts: ServiceOptions) {
    this.store = new SitesStore(opts.home, opts.clock);
    this.home = opts.home;
    this.secrets = opts.secrets;
    this.engine = opts.engine ?? openEngineSession;
    this.env = opts.env ?? process.env;
    this.clock = opts.clock ?? Date.now;
    this.jobsPerSite = opts.jobsPerSite ?? DEFAULT_JOBS_PER_SITE;
    this.readyTimeoutMs = opts.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
    this.knownHostsPaths = opts.knownHostsPath
      ? { readPaths: [opts.knownHostsPath], writePath: opts.knownHostsPath }
      : defaultKnownHostsPaths(this.env);
    this.handlers = this.makeHandlers();
  }

  // -------------------------------------------------------------------------------------------
  // Transport-facing API
  // -------------------------------------------------------------------------------------------

  /**
   * Runs one contract invocation. The payload is validated against the contract's schema here as well
   * (the e2e harness calls this directly); failures come back as `{ok:false, error:{code, message}}`.
   */
  async invoke<C extends InvokeChannel>(channel: C, payload: InvokeRequests[C]): Promise<Result<InvokeResponses[C]>>;
  async invoke(channel: string, payload: unknown): Promise<Result<unknown>>;
  async invoke(channel: string, payload: unknown): Promise<Result<unknown>> {
    if (!Object.prototype.hasOwnProperty.call(invokeSchemas, channel)) return err('UNKNOWN_CHANNEL', `Unknown channel ${channel}`);
    const c = channel as InvokeChannel;
    const parsed = invokeSchemas[c].safeParse(payload);
    if (!parsed.success) return err('INVALID_REQUEST', `Invalid ${c} request: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`).join('; ')}`);
    if (this.closed) return err('INVALID_STATE', 'The service is closed');
    try {
      const handler = this.handlers[c] as (req: unknown) => Promise<unknown>;
      return ok(await handler(parsed.data));
    } catch (e) {
      return toErrorResult(e);
    }
  }

  /** Receives every event (for main's coalescing and the harness); returns the unsubscribe function. */
  subscribe(listener: ServiceListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Current jobs in queue order. */
  jobs(): Job[] {
    return jobsInOrder(this.queue);
  }

  /** Disconnects every session, aborts running jobs (they become paused) and closes the database. */
  async close(): Promise<void> {
    if (this.closed) return;
    for (const id of [...this.sessions.keys()]) await this.disconnect(id);
    this.closed = true;
    this.store.close();
  }

  private emit<E extends EventName>(event: E, payload: EventPayloads[E]): void {
    for (const l of this.listeners) {
      try { l(event, payload); } catch { /* a listener must not break the engine */ }
    }
  }

  private log(level: 'info' | 'warn' | 'error', message: string, siteId?: string): void {
    const s = siteId ? this.sessions.get(siteId) : undefined;
    const text = s ? redact(message, s.secrets) : message;
    this.emit('log', { lines: [{ t: this.clock(), level, message: text, ...(siteId ? { siteId } : {}) }] });
  }

  // -------------------------------------------------------------------------------------------
  // Handlers
  // -------------------------------------------------------------------------------------------

  private makeHandlers(): Handlers {
    return {
      'sites.list': async () => {
        const { folders, sites } = this.store.list();
        const views: SiteView[] = await Promise.all(sites.map(async (s) => ({ ...s, hasPassword: (await this.secrets.get(s.id)) !== undefined })));
        return { folders, sites: views };
      },
      'sites.save': async ({ site, password }) => {
        if (typeof password === 'string') this.checkSecretStorageAllowed();
        const saved = this.store.save(site);
        if (typeof password === 'string') await this.secrets.set(saved.id, password);
        else if (password === null) await this.secrets.delete(saved.id);
        const s = this.sessions.get(saved.id);
        if (s) s.site = saved;
        return saved;
      },
      'sites.delete': async ({ siteId }) => {
        if (!this.store.get(siteId)) throw new SluiceError('NOT_FOUND', `No site with id ${siteId}`);
        await this.disconnect(siteId);
        this.store.delete(siteId);
        await this.secrets.delete(siteId);
      },
      'sites.duplicate': async ({ siteId }) => {
        const copy = this.store.duplicate(siteId);
        const secret = await this.secrets.get(siteId);
        if (secret !== undefined) await this.secrets.set(copy.id, secret).catch(() => undefined);
        return copy;
      },
      'folders.create': async ({ path: p }) => { this.store.createFolder(p); },
      'folders.delete': async ({ path: p }) => { this.store.deleteFolder(p); },

      'session.connect': async ({ siteId, password }) => {
        await this.connect(siteId, password);
        return this.sessions.get(siteId)!.status;
      },
      'session.disconnect': async ({ siteId }) => { await this.disconnect(siteId); },
      'session.list': async () => [...this.sessions.values()].map((s) => s.status),
      'hostKey.answer': async ({ promptId, answer }) => {
        const p = this.hostKeyPrompts.get(promptId);
        if (!p) throw new SluiceError('NOT_FOUND', 'This host-key question is no longer open');
        this.hostKeyPrompts.delete(promptId);
        // A changed or revoked key is never accepted from the dialog: the answer only closes it.
        p.resolve(p.kind === 'unknown' ? answer : 'reject');
        this.emit('prompt.closed', { promptId });
      },

      'remote.list': async ({ siteId, path: p }) => {
        const s = await this.engineFor(siteId);
        const resolved = await s.realpath(p === '~' ? '.' : p.startsWith('~/') ? p.slice(2) : p);
        const entries = await s.list(resolved);
        return { path: resolved, entries: entries.map((e) => ({ name: e.name, type: e.type, size: e.size, mtimeMs: e.mtimeMs, mode: e.mode })) };
      },
      'remote.mkdir': async ({ siteId, path: p }) => { await (await this.engineFor(siteId)).mkdir(p); },
      'remote.rename': async ({ siteId, from, to }) => { await (await this.engineFor(siteId)).rename(from, to); },
      'remote.remove': async ({ siteId, path: p, recursive }) => { await (await this.engineFor(siteId)).remove(p, recursive ?? false); },

      'local.list': async ({ path: p }) => listLocal(expandHome(p)),
      'local.mkdir': async ({ path: p }) => {
        await fs.promises.mkdir(expandHome(p)).catch((e) => { throw fromLocalError(e, p, 'create folder'); });
      },
      'local.rename': async ({ from, to }) => {
        const target = expandHome(to);
        if (await exists(target)) throw new SluiceError('EXISTS', `Cannot rename to ${to}: already exists`);
        await fs.promises.rename(expandHome(from), target).catch((e) => { throw fromLocalError(e, from, 'rename'); });
      },
      'local.remove': async ({ path: p, recursive }) => {
        const full = expandHome(p);
        const st = await fs.promises.lstat(full).catch((e) => { throw fromLocalError(e, p, 'remove'); });
        const op = st.isDirectory()
          ? (recursive ? fs.promises.rm(full, { recursive: true }) : fs.promises.rmdir(full))
          : fs.promises.unlink(full);
        await op.catch((e) => { throw fromLocalError(e, p, 'remove'); });
      },
      'local.home': async () => os.homedir(),

      'queue.enqueue': async (req) => ({ jobIds: this.enqueue(req) }),
      'queue.snapshot': async () => ({ jobs: this.jobs() }),
      'queue.pause': async ({ jobId }) => this.pause(jobId),
      'queue.resume': async ({ jobId }) => { this.transition(jobId, 'paused', 'queued'); this.pump(this.job(jobId).siteId); },
      'queue.cancel': async ({ jobId }) => this.cancel(jobId),
      'queue.retry': async ({ jobId }) => {
        const job = this.job(jobId);
        if (job.state !== 'failed' && job.state !== 'cancelled') throw new SluiceError('INVALID_STATE', `Cannot retry a ${job.state} job`);
        this.apply([{ type: 'updated', id: jobId, patch: { state: 'queued', error: undefined, rate: 0, finishedAt: undefined } }]);
        this.pump(job.siteId);
      },
      'queue.clearFinished': async () => {
        const ids = this.jobs().filter((j) => j.state === 'done' || j.state === 'cancelled').map((j) => j.id);
        if (ids.length) this.apply([{ type: 'removed', ids }]);
      },
      'conflict.answer': async ({ promptId, choice, forAll }) => {
        const p = this.conflictPrompts.get(promptId);
        if (!p) throw new SluiceError('NOT_FOUND', 'This conflict question is no longer open');
        if (forAll) this.batchPolicy.set(p.batchId, choice);
        this.closeConflictPrompt(promptId, choice);
      },

      'settings.get': async () => this.settings(),
      'settings.set': async (patch) => {
        if (patch.theme !== undefined) this.store.setSetting('theme', patch.theme);
        if (patch.allowInsecureSecretStorage !== undefined) this.store.setSetting('allowInsecureSecretStorage', patch.allowInsecureSecretStorage);
        return this.settings();
      },
    };
  }

  private settings(): Settings {
    return {
      theme: this.store.getSetting<Theme>('theme') ?? 'system',
      allowInsecureSecretStorage: this.store.getSetting<boolean>('allowInsecureSecretStorage') ?? false,
      secretStorage: this.secrets.status(),
    };
  }

  /** Whether the user agreed to plain-text secret storage (read by main's safeStorage SecretStore). */
  insecureSecretStorageAllowed(): boolean {
    return this.store.getSetting<boolean>('allowInsecureSecretStorage') ?? false;
  }

  private checkSecretStorageAllowed(): void {
    const { secure, backend } = this.secrets.status();
    if (!secure && !this.insecureSecretStorageAllowed()) {
      throw new SluiceError('INSECURE_SECRET_STORAGE',
        `Passwords would be stored without encryption (${backend}); agree in Settings first, or use a key or the agent`);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Sessions
  // -------------------------------------------------------------------------------------------

  private setStatus(s: SiteSession, patch: Partial<SessionStatus>): void {
    s.status = { ...s.status, ...patch };
    if (patch.state && !patch.error) delete s.status.error;
    this.emit('session.status', s.status);
  }

  /** The connected engine session of a site, or NOT_CONNECTED. */
  private async engineFor(siteId: string): Promise<EngineSession> {
    const s = this.sessions.get(siteId);
    if (s?.engine) return s.engine;
    if (s?.opening) return s.opening;
    throw new SluiceError('NOT_CONNECTED', 'Not connected to this site');
  }

  /**
   * Opens the site's session (or joins the attempt in progress). Unknown host keys are asked through
   * `hostKey.prompt`; a changed or revoked key is shown as a prompt too and the connect fails with HOSTKEY_*.
   */
  private async connect(siteId: string, password?: string): Promise<EngineSession> {
    const existing = this.sessions.get(siteId);
    if (existing?.engine) return existing.engine;
    if (existing?.opening) return existing.opening;
    const site = this.store.get(siteId);
    if (!site) throw new SluiceError('NOT_FOUND', `No site with id ${siteId}`);
    const connections = site.connections ?? 1;
    const s: SiteSession = existing ?? {
      site,
      status: { siteId, siteName: site.name, state: 'connecting', connectionsUp: 0, connections },
      secrets: [],
      prompts: new Set(),
    };
    s.site = site;
    this.sessions.set(siteId, s);
    this.setStatus(s, { state: 'connecting', siteName: site.name, connectionsUp: 0, connections });
    s.opening = this.open(s, password);
    try {
      s.engine = await s.opening;
      return s.engine;
    } catch (e) {
      this.setStatus(s, { state: 'failed', error: errorInfo(e), connectionsUp: 0 });
      this.log('error', `Connecting to ${site.host}:${site.port} failed: ${errorInfo(e).message}`, siteId);
      throw e;
    } finally {
      s.opening = undefined;
      for (const id of s.prompts) this.closeHostKeyPrompt(id);
      s.prompts.clear();
    }
  }

  private async open(s: SiteSession, password?: string): Promise<EngineSession> {
    const { site } = s;
    const secret = site.authMethod === 'password' ? password ?? (await this.secrets.get(site.id)) : undefined;
    if (secret) s.secrets.push(secret);
    const auth = await gatherAuth({
      username: site.user,
      identityFiles: site.authMethod === 'key' && site.keyPath ? [site.keyPath] : site.authMethod === 'agent' ? undefined : [],
      useAgent: site.authMethod === 'agent',
      password: secret,
      env: { ...this.env, SLUICE_PASSWORD: undefined },
      home: this.env.HOME ?? os.homedir(),
    }, (msg) => this.log('warn', msg, site.id));
    // known_hosts is re-read on every connect: another program (or another site) may have changed it.
    const knownHosts = await KnownHosts.load(this.knownHostsPaths);
    const seen: { refused?: Extract<HostKeyVerdict, { kind: 'changed' | 'revoked' }> } = {};
    const hostKeys = new HostKeyPolicy({
      knownHosts,
      mode: 'ask',
      prompt: async (v) => this.askHostKey(s, v),
      onVerdict: (v) => { if (v.kind === 'changed' || v.kind === 'revoked') seen.refused ??= v; },
    });
    const onEvent = (e: EngineEvent): void => this.onEngineEvent(s, e);
    try {
      const engine = await this.engine({
        host: site.host, port: site.port, username: site.user, auth,
        // Validates the site's cipher names (USAGE error naming the unknown one); default: AES-aware order.
        algorithms: preferStoredHostKeyTypes(buildAlgorithms(site.ciphers?.length ? { cipher: site.ciphers } : {}), knownHosts, site.host, site.port),
        // Unset: the engine sizes the pool from the measured RTT.
        connections: site.connections,
        channels: site.channels,
        readyTimeoutMs: this.readyTimeoutMs,
        dataDir: this.home,
        hostKeys, onEvent,
      });
      let home: string | undefined;
      try { home = await engine.realpath('.'); } catch { /* some servers refuse realpath; the UI falls back to / */ }
      const n = engine.negotiated;
      this.setStatus(s, {
        state: 'connected', kex: n.kex, cipher: n.cipher, mac: n.mac, serverHostKey: n.serverHostKey,
        connectionsUp: Math.max(1, s.status.connectionsUp), ...(home ? { home } : {}),
      });
      this.log('info', `Connected to ${site.host}:${site.port} (${n.cipher}, ${n.kex})`, site.id);
      return engine;
    } catch (e) {
      if (seen.refused) this.showRefusedKey(s, seen.refused);
      throw e;
    }
  }

  /** Tells the UI (a neutral notice plus a log line) that a trusted server's announced keys were saved. */
  private reportLearnedKeys(s: SiteSession, e: Extract<EngineEvent, { type: 'hostKeysLearned' }>): void {
    const { host, port, id: siteId } = s.site;
    this.emit('hostKey.learned', { siteId, host, port, keys: e.keys, file: e.file });
    this.log('info', learnedKeysMessage(e.host, e.port, e.keys, e.file), siteId);
  }

  /** Asks the UI about an unknown key; resolves with its answer (reject when the attempt ends first). */
  private askHostKey(s: SiteSession, v: Extract<HostKeyVerdict, { kind: 'unknown' }>): Promise<HostKeyAnswer> {
    const promptId = randomUUID();
    return new Promise<HostKeyAnswer>((resolve) => {
      this.hostKeyPrompts.set(promptId, { siteId: s.site.id, kind: 'unknown', resolve });
      s.prompts.add(promptId);
      this.emit('hostKey.prompt', {
        promptId, siteId: s.site.id, host: s.site.host, port: s.site.port, kind: 'unknown',
        presented: { keyType: v.identity.keyType, fingerprint: v.identity.fingerprint },
      });
    });
  }

  /** Shows the red dialog for a changed/revoked key; its only answer closes it (the connect already failed). */
  private showRefusedKey(s: SiteSession, v: Extract<HostKeyVerdict, { kind: 'changed' | 'revoked' }>): void {
    const promptId = randomUUID();
    this.hostKeyPrompts.set(promptId, { siteId: s.site.id, kind: v.kind, resolve: () => undefined });
    const stored = v.kind === 'changed' ? v.stored : [v.stored];
    this.emit('hostKey.prompt', {
      promptId, siteId: s.site.id, host: s.site.host, port: s.site.port, kind: v.kind,
      presented: { keyType: v.identity.keyType, fingerprint: v.identity.fingerprint },
      previous: stored.map((r) => ({ keyType: r.keyType, fingerprint: r.fingerprint })),
    });
  }

  private closeHostKeyPrompt(promptId: string): void {
    const p = this.hostKeyPrompts.get(promptId);
    if (!p) return;
    this.hostKeyPrompts.delete(promptId);
    p.resolve('reject');
    this.emit('prompt.closed', { promptId });
  }

  private async disconnect(siteId: string): Promise<void> {
    const s = this.sessions.get(siteId);
    if (!s) return;
    for (const job of this.jobs()) {
      if (job.siteId !== siteId) continue;
      if (job.state === 'running') this.stopRunning(job.id, 'paused');
      else if (job.state === 'queued') this.transition(job.id, 'queued', 'paused');
    }
    for (const id of s.prompts) this.closeHostKeyPrompt(id);
    s.closing = true;
    const engine = s.engine ?? (await s.opening?.catch(() => undefined));
    this.sessions.delete(siteId);
    await engine?.close().catch(() => undefined);
    this.setStatus(s, { state: 'disconnected', connectionsUp: 0 });
  }

  private onEngineEvent(s: SiteSession, e: EngineEvent): void {
    switch (e.type) {
      case 'progress': {
        const run = this.running.get(e.jobId);
        if (!run) return;
        run.sample = { rate: e.rate, connections: e.connections.map((c) => ({ id: c.id, rate: c.rate })) };
        this.apply([{ type: 'updated', id: e.jobId, patch: { bytesDone: e.bytesDone, bytesTotal: e.bytesTotal, filesDone: e.filesDone, filesTotal: e.filesTotal, rate: e.rate } }]);
        this.emitProgress(s.site.id, e.t);
        break;
      }
      case 'file':
        if (e.state === 'failed') this.log('warn', `${e.path}: ${e.error?.message ?? 'failed'}`, s.site.id);
        break;
      case 'connection': {
        const up = Math.max(0, s.status.connectionsUp + (e.state === 'up' ? 1 : -1));
        if (s.status.state === 'connected' || s.status.state === 'connecting') this.setStatus(s, { connectionsUp: Math.min(up, s.status.connections) });
        if (e.state === 'down' && !s.closing) {
          this.log('warn', `Connection ${e.id} closed${e.reason ? `: ${e.reason}` : ''}`, s.site.id);
          // The engine does not reopen connections: with none left the session is gone; the next connect
          // (or a retried job) opens a new one.
          if (up === 0 && s.engine && this.sessions.get(s.site.id) === s) {
            const dead = s.engine;
            s.engine = undefined;
            this.setStatus(s, { state: 'disconnected', connectionsUp: 0, error: { code: 'CONNECTION_LOST', message: e.reason ?? 'connection lost' } });
            void dead.close().catch(() => undefined);
          }
        }
        break;
      }
      case 'log':
        this.log(e.level, e.message, s.site.id);
        break;
      case 'hostKeysLearned':
        this.reportLearnedKeys(s, e);
        break;
    }
  }

  /** Emits the site's throughput: the sum over its running jobs, per connection id. */
  private emitProgress(siteId: string, t: number): void {
    let rate = 0;
    const perConnection = new Map<number, number>();
    for (const [jobId, run] of this.running) {
      if (!run.sample || getJob(this.queue, jobId)?.siteId !== siteId) continue;
      rate += run.sample.rate;
      for (const c of run.sample.connections) perConnection.set(c.id, (perConnection.get(c.id) ?? 0) + c.rate);
    }
    const sample: ProgressSample = { siteId, t, rate, connections: [...perConnection].sort((a, b) => a[0] - b[0]).map(([id, r]) => ({ id, rate: r })) };
    this.emit('progress', { samples: [sample] });
  }

  // -------------------------------------------------------------------------------------------
  // Queue
  // -------------------------------------------------------------------------------------------

  private apply(events: QueueEvent[]): void {
    this.queue = applyQueueEvents(this.queue, events);
    this.emit('queue.delta', { events });
  }

  private job(jobId: string): Job {
    const job = getJob(this.queue, jobId);
    if (!job) throw new SluiceError('NOT_FOUND', `No job ${jobId}`);
    return job;
  }

  private transition(jobId: string, from: JobState, to: JobState, patch: JobPatch = {}): void {
    const job = this.job(jobId);
    if (job.state !== from || !canTransition(from, to)) throw new SluiceError('INVALID_STATE', `Cannot move a ${job.state} job to ${to}`);
    this.apply([{ type: 'updated', id: jobId, patch: { ...patch, state: to } }]);
  }

  private enqueue(req: InvokeRequests['queue.enqueue']): string[] {
    const site = this.store.get(req.siteId);
    if (!site) throw new SluiceError('NOT_FOUND', `No site with id ${req.siteId}`);
    const batchId = randomUUID();
    const now = this.clock();
    const jobs: Job[] = req.sources.map((source) => ({
      id: randomUUID(), batchId, siteId: req.siteId, direction: req.direction, source, dest: req.dest,
      name: path.posix.basename(source.replace(/\\/g, '/').replace(/\/+$/, '')) || source, state: 'queued',
      bytesDone: 0, bytesTotal: 0, filesDone: 0, filesTotal: 0, rate: 0, createdAt: now,
    }));
    this.apply([{ type: 'added', jobs }]);
    this.pump(req.siteId);
    return jobs.map((j) => j.id);
  }

  private pause(jobId: string): void {
    const job = this.job(jobId);
    if (job.state === 'running') this.stopRunning(jobId, 'paused');
    else this.transition(jobId, 'queued', 'paused');
  }

  private cancel(jobId: string): void {
    const job = this.job(jobId);
    if (job.state === 'running') return this.stopRunning(jobId, 'cancelled');
    if (!canTransition(job.state, 'cancelled') || job.state === 'cancelled') throw new SluiceError('INVALID_STATE', `Cannot cancel a ${job.state} job`);
    this.apply([{ type: 'updated', id: jobId, patch: { state: 'cancelled', rate: 0, finishedAt: this.clock() } }]);
  }

  /** Aborts a running transfer; the job takes `as` when the transfer settles (or done, if it finished anyway). */
  private stopRunning(jobId: string, as: 'paused' | 'cancelled'): void {
    const run = this.running.get(jobId);
    if (!run) return;
    run.stopAs = as;
    run.controller.abort(new SluiceError('ABORTED', as === 'paused' ? 'Paused' : 'Cancelled'));
    for (const [promptId, p] of this.conflictPrompts) if (p.jobId === jobId) this.closeConflictPrompt(promptId, 'skip');
  }

  /** Starts queued jobs of a site up to the per-site limit, in queue order. */
  private pump(siteId: string): void {
    if (this.closed) return;
    let active = 0;
    for (const id of this.running.keys()) if (getJob(this.queue, id)?.siteId === siteId) active++;
    if (active >= this.jobsPerSite) return;
    for (const job of this.queue.jobs) {
      if (active >= this.jobsPerSite) break;
      if (job.siteId !== siteId || job.state !== 'queued' || this.running.has(job.id)) continue;
      active++;
      this.start(job);
    }
  }

  private start(job: Job): void {
    const run: RunningJob = { controller: new AbortController() };
    this.running.set(job.id, run);
    this.apply([{ type: 'updated', id: job.id, patch: { state: 'running', startedAt: this.clock(), error: undefined } }]);
    void this.runJob(job, run).finally(() => {
      this.running.delete(job.id);
      this.emitProgress(job.siteId, this.clock());
      this.pump(job.siteId);
    });
  }

  private async runJob(job: Job, run: RunningJob): Promise<void> {
    let report: TransferReport | undefined;
    let failure: unknown;
    let engine: EngineSession;
    try {
      engine = await this.connect(job.siteId);
    } catch (e) {
      // Without a session no queued job of this site can run: fail them together instead of reconnecting per job.
      const error = errorInfo(e);
      const now = this.clock();
      const events: QueueEvent[] = this.jobs()
        .filter((j) => j.siteId === job.siteId && (j.id === job.id || (j.state === 'queued' && !this.running.has(j.id))))
        .map((j) => ({ type: 'updated', id: j.id, patch: { state: 'failed', rate: 0, finishedAt: now, error } }));
      this.apply(events);
      return;
    }
    try {
      if (run.controller.signal.aborted) throw run.controller.signal.reason;
      report = await engine.transfer({
        id: job.id,
        direction: job.direction === 'upload' ? 'put' : 'get',
        sources: [job.source],
        dest: job.dest,
        recursive: true,
        conflict: (target, files) => this.askConflict(job, target, files, run.controller.signal),
      }, run.controller.signal);
    } catch (e) {
      failure = e;
    }
    const now = this.clock();
    const current = getJob(this.queue, job.id);
    if (!current || current.state !== 'running') return;
    if (report && report.failed.length === 0) {
      this.apply([{ type: 'updated', id: job.id, patch: { state: 'done', rate: 0, finishedAt: now, filesDone: report.files, bytesDone: Math.max(current.bytesDone, report.bytes), bytesTotal: Math.max(current.bytesTotal, report.bytes) } }]);
    } else if (run.stopAs) {
      this.apply([{ type: 'updated', id: job.id, patch: { state: run.stopAs, rate: 0, ...(run.stopAs === 'cancelled' ? { finishedAt: now } : {}) } }]);
    } else {
      const error = report ? summariseFailures(report) : errorInfo(failure);
      this.apply([{ type: 'updated', id: job.id, patch: { state: 'failed', rate: 0, finishedAt: now, error } }]);
      this.log('error', `${job.name}: ${error.message}`, job.siteId);
    }
  }

  /** The engine's per-file conflict callback: the batch's "for all" answer, else one dialog at a time per batch. */
  private askConflict(job: Job, target: string, files: ConflictFiles, signal: AbortSignal): Promise<ConflictChoice> {
    const ask = async (): Promise<ConflictChoice> => {
      const policy = this.batchPolicy.get(job.batchId);
      if (policy) return policy;
      if (signal.aborted) return 'skip';
      const promptId = randomUUID();
      return new Promise<ConflictChoice>((resolve) => {
        this.conflictPrompts.set(promptId, { jobId: job.id, batchId: job.batchId, resolve });
        this.emit('conflict.prompt', { promptId, jobId: job.id, target, direction: job.direction, existing: files.existing, incoming: files.incoming });
      });
    };
    const previous = this.batchPromptChain.get(job.batchId) ?? Promise.resolve();
    const next = previous.then(ask, ask);
    this.batchPromptChain.set(job.batchId, next.catch(() => undefined));
    return next;
  }

  private closeConflictPrompt(promptId: string, choice: ConflictChoice): void {
    const p = this.conflictPrompts.get(promptId);
    if (!p) return;
    this.conflictPrompts.delete(promptId);
    p.resolve(choice);
    this.emit('prompt.closed', { promptId });
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

function errorInfo(e: unknown): { code: string; message: string } {
  if (typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string' && typeof (e as { message?: unknown }).message === 'string') {
    return { code: (e as { code: string }).code, message: (e as { message: string }).message };
  }
  return { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e) };
}

function toErrorResult(e: unknown): Result<never> {
  const info = errorInfo(e);
  return err(info.code, info.message);
}

function summariseFailures(report: TransferReport): { code: string; message: string } {
  const [first] = report.failed;
  const more = report.failed.length > 1 ? ` (and ${report.failed.length - 1} more)` : '';
  return { code: first.code, message: `${first.path}: ${first.message}${more}` };
}

/** Replaces every occurrence of a known secret with `***`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length > 0) out = out.split(s).join('***');
  return out;
}

function expandHome(p: string): string {
  if (p === '~') return os.homedir();
  if (p.startsWith('~/')) return path.join(os.homedir(), p.slice(2));
  return p;
}

async function exists(p: string): Promise<boolean> {
  try {
    await fs.promises.lstat(p);
    return true;
  } catch {
    return false;
  }
}

/** Lists a local folder; symlinks report their target's type (`symlink` only when dangling). */
async function listLocal(p: string): Promise<{ path: string; entries: FsEntry[] }> {
  const dir = path.resolve(p);
  const names = await fs.promises.readdir(dir).catch((e) => { throw fromLocalError(e, dir, 'list'); });
  const entries = await Promise.all(names.map(async (name): Promise<FsEntry | null> => {
    const full = path.join(dir, name);
    try {
      let st = await fs.promises.lstat(full);
      let type: FsEntry['type'] = 'other';
      if (st.isSymbolicLink()) {
        try { st = await fs.promises.stat(full); } catch { return { name, type: 'symlink', size: 0, mtimeMs: st.mtimeMs, mode: st.mode }; }
      }
      if (st.isDirectory()) type = 'dir';
      else if (st.isFile()) type = 'file';
      return { name, type, size: st.size, mtimeMs: st.mtimeMs, mode: st.mode };
    } catch {
      return null; // vanished between readdir and stat
    }
  }));
  return { path: dir, entries: entries.filter((e): e is FsEntry => e !== null) };
}
