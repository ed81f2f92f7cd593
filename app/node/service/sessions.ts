/**
 * The service's site sessions: opening a site's engine session (or joining the attempt under way) with its saved
 * identity, asking the UI about unknown host keys and showing refused ones, following the pool's connections, and
 * disconnecting. Jobs are the queue's: it is told before a site disconnects and gets the engine's progress.
 */
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import type { HostKeyAnswer, HostKeyPrompt, SessionStatus } from '../../common/ipc/contract';
import type { HostKeyAnswer as PolicyAnswer, HostKeyVerdict } from '../../common/model/hostKey';
import type { Site } from '../../common/model/site';
import { SluiceError } from '../errors';
import type { Engine, EngineFactory, EngineOptions } from '../engine/engine';
import { learnedKeysMessage } from '../ssh/hostKeys';
import type { KnownHostsPaths } from '../stores/knownHosts';
import type { ChangedKeyTarget, HostKeyDesk } from './hostKeyDesk';
import type { EngineEvent } from '../transfer/types';
import type { ServiceHub } from './hub';
import { errorInfo } from './results';

/** A host key the engine refused (changed or revoked), shown once the connect failed. */
type RefusedVerdict = Extract<HostKeyVerdict, { kind: 'changed' | 'revoked' }>;

/** One site's session as the service keeps it. */
export interface SiteSession {
  site: Site;
  status: SessionStatus;
  opening?: Promise<Engine>;
  engine?: Engine;
  /** Secrets used by this session, redacted from log lines. */
  secrets: string[];
  /** Open prompts of this session, closed when the connection attempt ends. */
  prompts: Set<string>;
  /** Set while the user disconnects, so the connections going down are not reported as lost. */
  closing?: boolean;
}

interface PendingHostKey {
  siteId: string;
  kind: HostKeyPrompt['kind'];
  resolve: (a: HostKeyAnswer) => void;
  /** For a changed key that `replace` / `add` may save. */
  changed?: ChangedKeyTarget;
}

/** How sessions are opened (see ServiceOptions). */
export interface SessionsOptions {
  engine: EngineFactory;
  env: NodeJS.ProcessEnv;
  readyTimeoutMs: number;
  knownHostsPaths: KnownHostsPaths;
  /** The data folder (the engine's leftovers journal). */
  home: string;
  /** First/last seen dates and the changed-key answers. */
  hostKeys: HostKeyDesk;
}

/** What the queue must hear from the sessions. */
export interface SessionHooks {
  /** A site is about to disconnect: its running jobs pause, its queued ones too. */
  beforeDisconnect(siteId: string): void;
  /** A job's progress sample from the engine. */
  onProgress(siteId: string, e: Extract<EngineEvent, { type: 'progress' }>): void;
  /** A file of a job ended (done, skipped or failed). */
  onFile(siteId: string, e: Extract<EngineEvent, { type: 'file' }>): void;
}

export class SiteSessions {
  private readonly sessions = new Map<string, SiteSession>();
  private readonly hostKeyPrompts = new Map<string, PendingHostKey>();

  constructor(private readonly hub: ServiceHub, private readonly o: SessionsOptions, private readonly hooks: SessionHooks) {}

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
    return this.sessions.get(siteId)?.secrets ?? [];
  }

  /**
   * `hostKey.answer`: a changed or revoked key is never accepted for the failed connect (accept-* only close its
   * dialog). A changed key's `replace`
   * (typed host name checked here too) or `add` edits known_hosts, so that the next connect trusts it; a failed
   * edit leaves the prompt open.
   * @throws SluiceError NOT_FOUND (not open), INVALID_STATE (an answer the prompt's kind does not allow), USAGE
   */
  async answerHostKey(promptId: string, answer: HostKeyAnswer, confirmHost?: string): Promise<void> {
    const p = this.hostKeyPrompts.get(promptId);
    if (!p) throw new SluiceError('NOT_FOUND', 'This host-key question is no longer open');
    const changedOnly = answer === 'replace' || answer === 'add';
    if (changedOnly && !p.changed) {
      throw new SluiceError('INVALID_STATE', `"${answer}" is not an answer to a ${p.kind} host key`);
    }
    if (changedOnly && p.changed) {
      const done = await this.o.hostKeys.applyChanged(p.changed, answer as 'replace' | 'add', confirmHost);
      this.hub.log('warn', done, p.siteId);
    }
    this.hostKeyPrompts.delete(promptId);
    p.resolve(p.kind === 'unknown' ? answer : 'reject');
    this.hub.emit('prompt.closed', { promptId });
  }

  private setStatus(s: SiteSession, patch: Partial<SessionStatus>): void {
    s.status = { ...s.status, ...patch };
    if (patch.state && !patch.error) delete s.status.error;
    this.hub.emit('session.status', s.status);
  }

  /** The site's engine if it is connected now (no connect attempt, no wait for one under way). */
  connected(siteId: string): Engine | undefined {
    return this.sessions.get(siteId)?.engine;
  }

  /** The connected engine session of a site, or NOT_CONNECTED. */
  async engineFor(siteId: string): Promise<Engine> {
    const s = this.sessions.get(siteId);
    if (s?.engine) return s.engine;
    if (s?.opening) return s.opening;
    throw new SluiceError('NOT_CONNECTED', 'Not connected to this site');
  }

  /**
   * Opens the site's session (or joins the attempt in progress). Unknown host keys are asked through
   * `hostKey.prompt`; a changed or revoked key is shown as a prompt too and the connect fails with HOSTKEY_*.
   */
  async connect(siteId: string, password?: string): Promise<Engine> {
    const existing = this.sessions.get(siteId);
    if (existing?.engine) return existing.engine;
    if (existing?.opening) return existing.opening;
    const site = this.hub.store.get(siteId);
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
      this.hub.log('error', `Connecting to ${site.host}:${site.port} failed: ${errorInfo(e).message}`, siteId);
      throw e;
    } finally {
      s.opening = undefined;
      for (const id of s.prompts) this.closeHostKeyPrompt(id);
      s.prompts.clear();
    }
  }

  private async open(s: SiteSession, password?: string): Promise<Engine> {
    const { site } = s;
    const seen: { refused?: RefusedVerdict } = {};
    try {
      const engine = await this.o.engine(await this.engineOptions(s, seen, password));
      let home: string | undefined;
      try { home = await engine.realpath('.'); } catch { /* some servers refuse realpath; the UI falls back to / */ }
      const n = engine.traits.negotiated;
      this.setStatus(s, {
        state: 'connected', kex: n.kex, cipher: n.cipher, mac: n.mac, serverHostKey: n.serverHostKey,
        connectionsUp: Math.max(1, s.status.connectionsUp), ...(home ? { home } : {}),
      });
      this.hub.log('info', `Connected to ${site.host}:${site.port} (${n.cipher}, ${n.kex})`, site.id);
      return engine;
    } catch (e) {
      if (seen.refused) await this.showRefusedKey(s, seen.refused);
      throw e;
    }
  }

  /**
   * The engine options of a site: its saved identity, its ciphers, host keys asked through the UI (a changed or
   * revoked one is kept in `seen` to be shown once the connect failed), events to the session.
   */
  private async engineOptions(s: SiteSession, seen: { refused?: RefusedVerdict }, password?: string): Promise<EngineOptions> {
    const { site } = s;
    const secret = site.authMethod === 'password' ? password ?? (await this.hub.secrets.get(site.id)) : undefined;
    if (secret) s.secrets.push(secret);
    return {
      host: site.host, port: site.port, username: site.user,
      auth: {
        identityFiles: site.authMethod === 'key' && site.keyPath ? [site.keyPath] : site.authMethod === 'agent' ? undefined : [],
        useAgent: site.authMethod === 'agent',
        password: secret,
        env: { ...this.o.env, SLUICE_PASSWORD: undefined },
        home: this.o.env.HOME ?? os.homedir(),
      },
      // The engine validates the site's cipher names (USAGE error naming the unknown one); default: AES-aware order.
      algorithms: site.ciphers?.length ? { cipher: site.ciphers } : undefined,
      hostKeyMode: 'ask',
      hostKeyPrompt: async (v) => this.askHostKey(s, v),
      onHostKeyVerdict: (v) => {
        if (v.kind === 'changed' || v.kind === 'revoked') seen.refused ??= v;
        this.o.hostKeys.noteVerdict(site.host, site.port, v);
      },
      // known_hosts is re-read on every connect: another program (or another site) may have changed it.
      knownHostsPaths: this.o.knownHostsPaths,
      onWarning: (msg) => this.hub.log('warn', msg, site.id),
      onEvent: (e) => this.onEngineEvent(s, e),
      // Unset: the engine sizes the pool from the measured RTT.
      connections: site.connections,
      channels: site.channels,
      rateLimit: site.speedLimit,
      readyTimeoutMs: this.o.readyTimeoutMs,
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

  /** Asks the UI about an unknown key; resolves with its answer (reject when the attempt ends first). */
  private async askHostKey(s: SiteSession, v: Extract<HostKeyVerdict, { kind: 'unknown' }>): Promise<PolicyAnswer> {
    const promptId = randomUUID();
    const certAuthority = await this.o.hostKeys.certAuthorityFor(s.site.host, s.site.port);
    return new Promise<PolicyAnswer>((resolve) => {
      const onAnswer = (a: HostKeyAnswer): void => {
        if (a === 'accept-save') this.o.hostKeys.noteSaved(s.site.host, s.site.port, v.identity.keyType, v.identity.fingerprint);
        resolve(a === 'accept-once' || a === 'accept-save' ? a : 'reject');
      };
      this.hostKeyPrompts.set(promptId, { siteId: s.site.id, kind: 'unknown', resolve: onAnswer });
      s.prompts.add(promptId);
      this.hub.emit('hostKey.prompt', {
        promptId, siteId: s.site.id, host: s.site.host, port: s.site.port, kind: 'unknown',
        presented: { keyType: v.identity.keyType, fingerprint: v.identity.fingerprint },
        ...(certAuthority ? { certAuthority } : {}),
      });
    });
  }

  /**
   * Shows the red dialog for a changed/revoked key (the connect already failed): Cancel closes it; a changed key
   * may be replaced or added (see answerHostKey).
   */
  private async showRefusedKey(s: SiteSession, v: RefusedVerdict): Promise<void> {
    const promptId = randomUUID();
    const { host, port } = s.site;
    const certAuthority = await this.o.hostKeys.certAuthorityFor(host, port);
    const stored = v.kind === 'changed' ? v.stored : [v.stored];
    const changed = v.kind === 'changed' && v.identity.key ? { host, port, key: Buffer.from(v.identity.key, 'base64') } : undefined;
    this.hostKeyPrompts.set(promptId, { siteId: s.site.id, kind: v.kind, resolve: () => undefined, changed });
    this.hub.emit('hostKey.prompt', {
      promptId, siteId: s.site.id, host, port, kind: v.kind,
      presented: { keyType: v.identity.keyType, fingerprint: v.identity.fingerprint },
      previous: this.o.hostKeys.describeStored(host, port, stored),
      ...(v.kind === 'changed' ? { canEdit: changed !== undefined && this.o.hostKeys.canEdit(stored) } : {}),
      ...(certAuthority ? { certAuthority } : {}),
    });
  }

  closeHostKeyPrompt(promptId: string): void {
    const p = this.hostKeyPrompts.get(promptId);
    if (!p) return;
    this.hostKeyPrompts.delete(promptId);
    p.resolve('reject');
    this.hub.emit('prompt.closed', { promptId });
  }

  async disconnect(siteId: string): Promise<void> {
    const s = this.sessions.get(siteId);
    if (!s) return;
    this.hooks.beforeDisconnect(siteId);
    for (const id of s.prompts) this.closeHostKeyPrompt(id);
    s.closing = true;
    const engine = s.engine ?? (await s.opening?.catch(() => undefined));
    this.sessions.delete(siteId);
    await engine?.close().catch(() => undefined);
    this.setStatus(s, { state: 'disconnected', connectionsUp: 0 });
  }

  private onEngineEvent(s: SiteSession, e: EngineEvent): void {
    switch (e.type) {
      case 'progress':
        this.hooks.onProgress(s.site.id, e);
        break;
      case 'file':
        if (e.state === 'failed') this.hub.log('warn', `${e.path}: ${e.error?.message ?? 'failed'}`, s.site.id);
        this.hooks.onFile(s.site.id, e);
        break;
      case 'connection': {
        const up = Math.max(0, s.status.connectionsUp + (e.state === 'up' ? 1 : -1));
        if (s.status.state === 'connected' || s.status.state === 'connecting') this.setStatus(s, { connectionsUp: Math.min(up, s.status.connections) });
        if (e.state === 'down' && !s.closing) {
          this.hub.log('warn', `Connection ${e.id} closed${e.reason ? `: ${e.reason}` : ''}`, s.site.id);
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
        this.hub.log(e.level, e.message, s.site.id);
        break;
      case 'hostKeysLearned':
        this.reportLearnedKeys(s, e);
        break;
    }
  }
}
