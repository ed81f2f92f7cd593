/**
 * The service's site sessions: opening a site's engine session (or joining the attempt under way) with its saved
 * identity, asking the UI about unknown host keys and showing refused ones (hostKeyPrompts.ts), asking login
 * questions (authPrompts.ts), following the pool's connections, re-establishing a session that lost every connection
 * (reconnect.ts: backoff with jitter, the host key checked again; its status says `reconnecting` with the attempt), and
 * disconnecting. Jobs are the queue's: it is told before a site disconnects, when its connections are lost and when it
 * is back, and gets the engine's progress.
 */
import type { HostKeyAnswer, SessionStatus } from '../../common/ipc/contract';
import { isTransient } from '../../common/retry';
import { SluiceError } from '../errors';
import type { Engine, EngineOptions } from '../engine/engine';
import { learnedKeysMessage } from '../ssh/hostKeys';
import type { EngineEvent } from '../transfer/types';
import { AuthPrompts, loginOptions } from './authPrompts';
import { HostKeyPrompts, type RefusedVerdict } from './hostKeyPrompts';
import type { ServiceHub } from './hub';
import { linksUp, poolStatus, samePool } from './poolStatus';
import { reconnect } from './reconnect';
import { siteConnection } from './siteConnection';
import type { SessionHooks, SessionsOptions, SiteSession } from './siteSession';

export type { SessionHooks, SessionsOptions, SiteSession } from './siteSession';
import { transferDefaults } from './transferDefaults';
import { unknownSite } from './quickConnect';
import { errorInfo } from './results';

/** How long a browsing request that failed on a transient error waits to see the connection's loss reported, ms. */
const LOSS_SEEN_MS = 2000;

export class SiteSessions {
  private readonly sessions = new Map<string, SiteSession>();
  private readonly hostKeyPrompts: HostKeyPrompts;
  private readonly auth: AuthPrompts;

  constructor(
    private readonly hub: ServiceHub,
    private readonly o: SessionsOptions,
    private readonly hooks: SessionHooks,
  ) {
    this.auth = new AuthPrompts(hub);
    this.hostKeyPrompts = new HostKeyPrompts(hub, o.hostKeys);
  }

  /** The session of a site, if there is one. */
  get(siteId: string): SiteSession | undefined {
    return this.sessions.get(siteId);
  }

  /** Every session's status. */
  statuses(): SessionStatus[] {
    return [...this.sessions.values()].map((s) => s.status);
  }

  /** Sites with a session. */
  siteIds(): string[] {
    return [...this.sessions.keys()];
  }

  /** Secrets a site's session uses (redacted from its log lines). */
  secretsOf(siteId: string): readonly string[] {
    return [...(this.sessions.get(siteId)?.secrets ?? [])];
  }

  /** `auth.answer`: the answers to a login question, or none (cancelled); `remember` keeps a passphrase. */
  answerAuth(promptId: string, answers: string[] | undefined, remember: boolean): void {
    this.auth.answer(promptId, answers, remember);
  }

  /** True while the site's session reconnects after losing every connection (its queue waits). */
  reconnecting(siteId: string): boolean {
    return this.sessions.get(siteId)?.reconnecting !== undefined;
  }

  /** `hostKey.answer` (hostKeyPrompts.ts). */
  async answerHostKey(promptId: string, answer: HostKeyAnswer, confirmHost?: string): Promise<void> {
    await this.hostKeyPrompts.answer(promptId, answer, confirmHost);
  }

  private setStatus(s: SiteSession, patch: Partial<SessionStatus>): void {
    s.status = { ...s.status, ...patch };
    if (patch.state && !patch.error) delete s.status.error;
    if (patch.state && patch.state !== 'reconnecting') delete s.status.attempt;
    if (patch.state && patch.state !== 'connected') delete s.status.pool;
    this.hub.emit('session.status', s.status);
    this.notifyChanged(s);
  }

  private notifyChanged(s: SiteSession): void {
    const waiting = [...s.changed];
    s.changed.clear();
    for (const f of waiting) f();
  }

  /** Opens an engine with the sessions' factory (openEngine; a test's fake): for a test connection (siteTest.ts). */
  openEngine(options: EngineOptions): Promise<Engine> {
    return this.o.engine(options);
  }

  /** The site's engine if it is connected now (no connect attempt, no wait for one under way). */
  connected(siteId: string): Engine | undefined {
    return this.sessions.get(siteId)?.engine;
  }

  /** The connected engine session of a site, or NOT_CONNECTED. */
  async engineFor(siteId: string): Promise<Engine> {
    const s = this.sessions.get(siteId);
    if (s?.engine) return s.engine;
    if (s?.reconnecting) return s.reconnecting;
    if (s?.opening) return s.opening;
    throw new SluiceError('NOT_CONNECTED', 'Not connected to this site');
  }

  /**
   * Runs a browsing request on the site's engine. One that fails on a dropped connection (a transient code:
   * CONNECTION_*, TIMEOUT) runs once more: after the session was re-established when it lost every connection, else
   * at once on the connections left.
   */
  async browse<T>(siteId: string, op: (engine: Engine) => Promise<T>): Promise<T> {
    const engine = await this.engineFor(siteId);
    try {
      return await op(engine);
    } catch (e) {
      if (!isTransient(errorInfo(e).code)) throw e;
      await this.lossSeen(siteId, engine);
      return op(await this.engineFor(siteId));
    }
  }

  /**
   * Resolves once the session has seen what made a request on `engine` fail: at once when the session has moved on
   * (reconnecting, or another engine), else at its next connection event or status change, at most LOSS_SEEN_MS later
   * (the request's failure may arrive before the worker's report that the connection closed).
   */
  private lossSeen(siteId: string, engine: Engine): Promise<void> {
    const s = this.sessions.get(siteId);
    if (!s || s.engine !== engine) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, LOSS_SEEN_MS);
      function done(): void {
        clearTimeout(timer);
        s?.changed.delete(done);
        resolve();
      }
      s.changed.add(done);
    });
  }

  /**
   * Opens the site's session (or joins the attempt in progress). Unknown host keys are asked through
   * `hostKey.prompt`; a changed or revoked key is shown as a prompt too and the connect fails with HOSTKEY_*.
   */
  async connect(siteId: string, password?: string): Promise<Engine> {
    const existing = this.sessions.get(siteId);
    if (existing?.engine) return existing.engine;
    if (existing?.reconnecting) return existing.reconnecting;
    if (existing?.opening) return existing.opening;
    const site = this.hub.store.get(siteId);
    if (!site) throw new SluiceError('NOT_FOUND', unknownSite(siteId));
    const connections = site.connections ?? 1;
    const s: SiteSession = existing ?? {
      site,
      status: { siteId, siteName: site.name, state: 'connecting', connectionsUp: 0, connections },
      secrets: new Set(),
      prompts: new Set(),
      passphrases: new Map(),
      changed: new Set(),
    };
    s.site = site;
    // A connect starts from the given (else saved) password; one typed into a dialog is kept for reconnects only.
    s.password = password;
    this.sessions.set(siteId, s);
    this.setStatus(s, { state: 'connecting', siteName: site.name, connectionsUp: 0, connections });
    try {
      s.engine = await this.attempt(s);
      this.hooks.onConnected(siteId);
      return s.engine;
    } catch (e) {
      this.setStatus(s, { state: 'failed', error: errorInfo(e), connectionsUp: 0 });
      this.hub.log('error', `Connecting to ${site.host}:${site.port} failed: ${errorInfo(e).message}`, siteId);
      throw e;
    }
  }

  /** One attempt to open the site's engine (`s.opening` meanwhile); its open prompts close when it ends. */
  private async attempt(s: SiteSession): Promise<Engine> {
    s.opening = this.open(s);
    try {
      return await s.opening;
    } finally {
      s.opening = undefined;
      for (const id of s.prompts) this.closePrompt(id);
      s.prompts.clear();
    }
  }

  private async open(s: SiteSession): Promise<Engine> {
    const { site } = s;
    const seen: { refused?: RefusedVerdict } = {};
    try {
      const engine = await this.o.engine(await this.engineOptions(s, seen));
      let home: string | undefined;
      try {
        home = await engine.realpath('.');
      } catch {
        /* some servers refuse realpath; the UI falls back to / */
      }
      const n = engine.traits.negotiated;
      const pool = poolStatus(engine.pool);
      this.setStatus(s, {
        state: 'connected',
        kex: n.kex,
        cipher: n.cipher,
        mac: n.mac,
        serverHostKey: n.serverHostKey,
        ...(engine.traits.serverVersion ? { serverVersion: engine.traits.serverVersion } : {}),
        connectionsUp: Math.max(1, linksUp(pool)),
        connections: pool.connections,
        pool,
        ...(home ? { home } : {}),
      });
      this.hub.log('info', `Connected to ${site.host}:${site.port} (${n.cipher}, ${n.kex})`, site.id);
      return engine;
    } catch (e) {
      if (seen.refused) await this.showRefusedKey(s, seen.refused);
      throw e;
    }
  }

  /**
   * The engine options of a site: its connection (service/siteConnection.ts), host keys asked through the UI (a changed
   * or revoked one is kept in `seen` to be shown once the connect failed), events to the session. Also a test
   * connection's (service/siteTest.ts), for a session that is not kept.
   */
  async engineOptions(s: SiteSession, seen: { refused?: RefusedVerdict }): Promise<EngineOptions> {
    const { site } = s;
    const store = s.secretStore ?? this.hub.secrets;
    const secret = site.authMethod === 'password' ? (s.password ?? (await store.get(site.id))) : undefined;
    if (secret) s.secrets.add(secret);
    const { prompter, passphrases, ...asks } = loginOptions(this.auth, s, store, this.hub);
    const { options, target } = siteConnection(
      site,
      secret,
      { prompter, passphrases },
      {
        env: this.o.env,
        sshConfig: this.o.sshConfig,
        knownHostsPaths: this.o.knownHostsPaths,
        readyTimeoutMs: this.o.readyTimeoutMs,
        onNote: (m) => this.hub.log('info', m, site.id),
      },
    );
    s.target = target;
    return {
      ...options,
      ...asks,
      hostKeyPrompt: async (v) => this.hostKeyPrompts.askUnknown(s, v),
      onHostKeyVerdict: (v, server) => {
        if (v.kind === 'changed' || v.kind === 'revoked') seen.refused ??= v;
        this.o.hostKeys.noteVerdict(server.host, server.port, v);
      },
      onWarning: (msg) => this.hub.log('warn', msg, site.id),
      onEvent: (s.events ??= (e) => this.onEngineEvent(s, e)),
      // The site's own numbers, else Settings → Transfers; unset: the engine sizes the pool from the measured RTT.
      connections: site.connections ?? transferDefaults(this.hub.store).connections ?? undefined,
      channels: site.channels ?? transferDefaults(this.hub.store).channels ?? undefined,
      rateLimit: site.speedLimit,
      dataDir: this.o.home,
    };
  }

  /** Tells the UI (a neutral notice plus a log line) that a trusted server's announced keys were saved. */
  private reportLearnedKeys(s: SiteSession, e: Extract<EngineEvent, { type: 'hostKeysLearned' }>): void {
    const { host, port, id: siteId } = s.site;
    for (const k of e.keys) this.o.hostKeys.noteSaved(host, port, k.keyType, k.fingerprint);
    this.hub.emit('hostKey.learned', { siteId, host, port, keys: e.keys, file: e.file });
    this.hub.log('info', learnedKeysMessage(e.host, e.port, e.keys, e.file), siteId);
  }

  /** Shows the dialog of a key the engine refused, once the connect failed (hostKeyPrompts.ts). */
  async showRefusedKey(s: SiteSession, v: RefusedVerdict): Promise<void> {
    await this.hostKeyPrompts.showRefused(s, v);
  }

  /** Closes an open host-key or login prompt (its connect attempt ended). */
  closePrompt(promptId: string): void {
    if (!this.auth.close(promptId)) this.hostKeyPrompts.close(promptId);
  }

  async disconnect(siteId: string): Promise<void> {
    const s = this.sessions.get(siteId);
    if (!s) return;
    this.hooks.beforeDisconnect(siteId);
    for (const id of s.prompts) this.closePrompt(id);
    s.closing = true;
    s.stopReconnect?.abort();
    const engine = s.engine ?? (await (s.reconnecting ?? s.opening)?.catch(() => undefined));
    this.sessions.delete(siteId);
    await engine?.close().catch(() => undefined);
    this.setStatus(s, { state: 'disconnected', connectionsUp: 0 });
  }

  /**
   * Re-establishes a session that lost every connection (reconnect.ts): its running jobs go back in line, its status
   * says `reconnecting` with the attempt; once back the queue goes on, and when the attempts run out (or one fails for
   * good: authentication, the host key) the session fails and its jobs pause.
   */
  private startReconnect(s: SiteSession, lost: { code: string; message: string }): void {
    const siteId = s.site.id;
    const stop = new AbortController();
    s.stopReconnect = stop;
    this.hooks.onConnectionLost(siteId);
    this.hub.log(
      'warn',
      `Lost every connection to ${s.site.host}:${s.site.port}: ${lost.message}; reconnecting`,
      siteId,
    );
    const attempts = reconnect(
      {
        policy: this.o.reconnectPolicy,
        signal: stop.signal,
        open: () => this.attempt(s),
        onAttempt: (attempt, delayMs, last) => {
          this.setStatus(s, { state: 'reconnecting', attempt, connectionsUp: 0, error: last });
          this.hub.log(
            'info',
            `Reconnecting to ${s.site.host}:${s.site.port} in ${(delayMs / 1000).toFixed(1)} s (attempt ${attempt})`,
            siteId,
          );
        },
      },
      lost,
    );
    s.reconnecting = attempts.then(
      (engine) => {
        s.engine = engine;
        s.reconnecting = undefined;
        this.hooks.onReconnected(siteId);
        return engine;
      },
      (e: unknown) => {
        s.reconnecting = undefined;
        if (!stop.signal.aborted) {
          this.setStatus(s, { state: 'failed', connectionsUp: 0, error: errorInfo(e) });
          this.hub.log(
            'error',
            `Reconnecting to ${s.site.host}:${s.site.port} failed: ${errorInfo(e).message}`,
            siteId,
          );
          this.hooks.beforeDisconnect(siteId);
        }
        throw e;
      },
    );
    s.reconnecting.catch(() => undefined);
  }

  /**
   * A connection of the pool came up or went down; with none left the session is opened again (the engine does not).
   */
  private onConnection(s: SiteSession, e: Extract<EngineEvent, { type: 'connection' }>): void {
    const up = Math.max(0, s.status.connectionsUp + (e.state === 'up' ? 1 : -1));
    const lost = e.state === 'down' && !s.closing;
    if (lost) this.hub.log('warn', `Connection ${e.id} closed${e.reason ? `: ${e.reason}` : ''}`, s.site.id);
    if (lost && up === 0 && s.engine && this.sessions.get(s.site.id) === s) {
      const dead = s.engine;
      s.engine = undefined;
      void dead.close().catch(() => undefined);
      this.startReconnect(s, { code: 'CONNECTION_LOST', message: e.reason ?? 'connection lost' });
      return;
    }
    if (s.status.state !== 'disconnected' && s.status.state !== 'failed')
      this.setStatus(s, { connectionsUp: Math.min(up, s.status.connections) });
    else this.notifyChanged(s);
  }

  /**
   * Sends the session's status again when the engine's pool changed (a connection or channels came up or went down,
   * the auto-sized pool grew): checked on each of its events, so a progress tick also catches channels added late.
   */
  private refreshPool(s: SiteSession): void {
    const engine = s.engine;
    if (!engine || s.status.state !== 'connected') return;
    const pool = poolStatus(engine.pool);
    if (samePool(pool, s.status.pool)) return;
    this.setStatus(s, { pool, connections: pool.connections, connectionsUp: linksUp(pool) });
  }

  private onEngineEvent(s: SiteSession, e: EngineEvent): void {
    this.routeEngineEvent(s, e);
    this.refreshPool(s);
  }

  private routeEngineEvent(s: SiteSession, e: EngineEvent): void {
    switch (e.type) {
      case 'progress':
        this.hooks.onProgress(s.site.id, e);
        break;
      case 'file':
        // A file stopped on purpose (pause, cancel, disconnect: ABORTED) did not fail: the queue says what was asked.
        if (e.state === 'failed' && e.error?.code !== 'ABORTED')
          this.hub.log('warn', `${e.path}: ${e.error?.message ?? 'failed'}`, s.site.id);
        this.hooks.onFile(s.site.id, e);
        break;
      case 'connection':
        this.onConnection(s, e);
        break;
      case 'log':
        this.hub.log(e.level, e.message, s.site.id);
        break;
      case 'hostKeysLearned':
        this.reportLearnedKeys(s, e);
        break;
    }
  }
}
