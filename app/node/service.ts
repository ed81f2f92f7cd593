/**
 * The one façade implementing the IPC contract (app/common/ipc/contract.ts) over the engine: saved sites,
 * sessions, local and remote browsing, the transfer queue, host-key and conflict prompts, settings.
 * main/ (Electron), the CLI and the e2e WebSocket harness talk only to this class:
 * `invoke(channel, payload)` answers a Result, `subscribe(listener)` receives every event.
 *
 * This file is the router: it validates each request against the contract and wraps the answer in a Result. The
 * work is in service/sessions.ts (sessions, host-key prompts, login prompts in service/authPrompts.ts, reconnects in
 * service/reconnect.ts), service/queue.ts (the transfer queue, kept in `<home>/queue.db` by service/jobBook.ts, and
 * conflict prompts), service/localFs.ts (the local file browser), the sites store, and sites/siteImport.ts (importing
 * other programs' sites, exporting Sluice JSON).
 */
import {
  invokeSchemas,
  type EventName,
  type EventPayloads,
  type InvokeChannel,
  type InvokeRequests,
  type InvokeResponses,
  type Settings,
  type Theme,
} from '../common/ipc/contract';
import { ok, err, type Result } from '../common/ipc/result';
import { RECONNECT_POLICY, type RetryPolicy } from '../common/retry';
import type { Job } from '../common/model/job';
import { DEFAULT_LAYOUT, type UiLayout } from '../common/model/layout';
import { openEngine, setGlobalRateLimit, type EngineFactory } from './engine/engine';
import { defaultKnownHostsPaths } from './stores/knownHosts';
import { QueueStore } from './stores/queueStore';
import { SitesStore, type SecretStore } from './stores/sites';
import type { Handlers, ServiceHub } from './service/hub';
import { JobBook, type JobBookOptions } from './service/jobBook';
import { ListedFolders, expandHome, listLocalAt, localHome, makeLocalFolder, removeLocal } from './service/localFs';
import { resolveLinks } from './service/remoteListing';
import { HostKeyDesk } from './service/hostKeyDesk';
import { CipherMeasurements } from './service/cipherMeasurements';
import { JobQueue } from './service/queue';
import { queueHandlers } from './service/queueHandlers';
import { redact, toErrorResult } from './service/results';
import { SiteSessions } from './service/sessions';
import type { SessionHooks } from './service/siteSession';
import { insecureSecretStorageAllowed, siteHandlers, type FileDialogs } from './service/siteHandlers';
import { SiteTestRuns } from './service/siteTest';
import { transferDefaults } from './service/transferDefaults';
import { editHandlers, startEditDesk } from './service/editPorts';
import { copyQueue, fileOpHandlers } from './service/fileOpHandlers';
import { clearDragCache } from './service/dragOut';
import { propsHandlers } from './service/remoteProps';
import { syncHandlers, syncRoots } from './service/syncPreview';
import { KeepUps, keepUpHandlers } from './service/keepUp';
import { navigationHandlers } from './service/navigation';
import type { EditDesk } from './edit/editDesk';

export type { Engine, EngineFactory, EngineOptions } from './engine/engine';
export { redact } from './service/results';
export type { FileDialogs, OpenFileRequest } from './service/siteHandlers';

export interface ServiceOptions {
  /** Data folder (sluice.db and queue.db live here), e.g. `resolveHome()` from app/node/stores/sites.ts. */
  home: string;
  secrets: SecretStore;
  /** One known_hosts file to read and append to (tests, harness); default: OpenSSH's user + global files. */
  knownHostsPath?: string;
  /** Engine override (tests). */
  engine?: EngineFactory;
  /** Jobs running at once per site; default 4 (each job itself uses every connection of the session). */
  jobsPerSite?: number;
  /**
   * ms allowed for connect + handshake + auth, including the time a host-key dialog stays open (not a login dialog's:
   * the timer waits while one is answered). Default 120000.
   */
  readyTimeoutMs?: number;
  /**
   * The OpenSSH client configuration for sites' hosts (`ssh -F`; `none`: none); default ~/.ssh/config +
   * /etc/ssh/ssh_config.
   */
  sshConfig?: string;
  /** Environment for SSH_AUTH_SOCK and known_hosts defaults; default process.env. */
  env?: NodeJS.ProcessEnv;
  clock?: () => number;
  /** How a session that lost every connection is re-established (tries and waits); default RECONNECT_POLICY. */
  reconnectPolicy?: RetryPolicy;
  /**
   * The system's file dialogs (main/platform/dialogs.ts; the e2e harness's stand-in); none: `dialog.openFile` is
   * refused.
   */
  dialogs?: FileDialogs;
  /** Opens a file in the system's default application: '' or an error message (main/: Electron's shell.openPath). */
  openPath?: (file: string) => Promise<string>;
  /** Electron's webContents.startDrag of local files (main/dragOut.ts; the e2e harness records it): `drag.out`. */
  startDrag?: (files: string[]) => void;
  /** How often the queue writes counters and file ends and renews its leases (tests); see JobBookOptions. */
  queueTimings?: Pick<JobBookOptions, 'progressMs' | 'heartbeatMs' | 'filesMs'>;
}

export type ServiceListener = <E extends EventName>(event: E, payload: EventPayloads[E]) => void;

const DEFAULT_JOBS_PER_SITE = 4;
const DEFAULT_READY_TIMEOUT_MS = 120_000;
/**
 * How long closing waits for the stopped transfers to end before it closes their connections (a slow or dead link
 * must not hold the app's quit): a rename sent before the stop lands with its reply and is recorded.
 */
const CLOSE_GRACE_MS = 10_000;

export class SluiceService {
  private readonly store: SitesStore;
  private readonly secrets: SecretStore;
  private readonly clock: () => number;
  private readonly listeners = new Set<ServiceListener>();
  private readonly sessions: SiteSessions;
  private readonly hostKeys: HostKeyDesk;
  private readonly ciphers: CipherMeasurements;
  private readonly home: string;
  private readonly tests = new SiteTestRuns();
  /** What the local pane listed: local.rename and local.remove are confined to its entries. */
  private readonly listedLocal = new ListedFolders();
  private readonly queue: JobQueue;
  private readonly handlers: Handlers;
  private readonly env: NodeJS.ProcessEnv;
  private readonly sshConfig: string | undefined;
  private readonly hub: ServiceHub;
  private readonly edits: EditDesk;
  private readonly keepUps: KeepUps;
  private readonly desktop: Pick<ServiceOptions, 'openPath' | 'startDrag' | 'dialogs'>;
  private closed = false;

  constructor(opts: ServiceOptions) {
    this.store = new SitesStore(opts.home, opts.clock);
    this.home = opts.home;
    this.secrets = opts.secrets;
    this.clock = opts.clock ?? Date.now;
    const env = opts.env ?? process.env;
    this.env = env;
    this.sshConfig = opts.sshConfig;
    this.desktop = opts;
    clearDragCache(opts.home);
    const hub: ServiceHub = (this.hub = {
      store: this.store,
      secrets: this.secrets,
      clock: () => this.clock(),
      emit: (event, payload) => this.emit(event, payload),
      log: (level, message, siteId) => this.log(level, message, siteId),
    });
    const knownHostsPaths = opts.knownHostsPath
      ? { readPaths: [opts.knownHostsPath], writePath: opts.knownHostsPath }
      : defaultKnownHostsPaths(env);
    this.hostKeys = new HostKeyDesk(
      knownHostsPaths,
      opts.home,
      (m) => this.log('warn', m),
      () => this.clock(),
    );
    this.ciphers = new CipherMeasurements(opts.home, (level, m) => this.log(level, m));
    this.sessions = new SiteSessions(
      hub,
      {
        engine: opts.engine ?? openEngine,
        env,
        readyTimeoutMs: opts.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
        knownHostsPaths: opts.knownHostsPath
          ? { readPaths: [opts.knownHostsPath], writePath: opts.knownHostsPath }
          : undefined,
        sshConfig: opts.sshConfig,
        home: opts.home,
        reconnectPolicy: opts.reconnectPolicy ?? RECONNECT_POLICY,
        hostKeys: this.hostKeys,
      },
      this.sessionHooks(),
    );
    this.keepUps = new KeepUps(hub, this.sessions);
    const book = new JobBook(QueueStore.open({ home: opts.home }), {
      ...opts.queueTimings,
      onLeaseLost: (jobId) => this.queue.leaseLost(jobId),
      onForeign: (jobs) => this.queue.mirror(jobs),
      onError: (what, e) =>
        this.log('error', `Queue database: ${what} failed: ${e instanceof Error ? e.message : String(e)}`),
    });
    this.queue = new JobQueue(
      hub,
      this.sessions,
      opts.jobsPerSite ?? DEFAULT_JOBS_PER_SITE,
      () => this.closed,
      book,
      opts.home,
    );
    this.edits = startEditDesk({
      home: opts.home,
      hub,
      queue: this.queue,
      sessions: this.sessions,
      env,
      subscribe: (l) => this.subscribe(l),
      openPath: opts.openPath,
    });
    this.handlers = this.makeHandlers();
    setGlobalRateLimit(this.store.getSetting<number>('speedLimit') ?? 0);
  }

  /** What the site sessions tell the queue and the edits: a site going down, lost, back, its progress and file ends. */
  private sessionHooks(): SessionHooks {
    return {
      beforeDisconnect: (siteId) => {
        this.keepUps.siteGone(siteId);
        this.queue.pauseSite(siteId);
      },
      onConnected: (siteId) => {
        this.queue.siteConnected(siteId);
        this.edits.siteBack(siteId);
      },
      onConnectionLost: (siteId) => {
        this.keepUps.siteLost(siteId);
        this.queue.siteReconnecting(siteId);
      },
      onReconnected: (siteId) => {
        this.keepUps.siteBack(siteId);
        this.queue.siteBack(siteId);
        this.edits.siteBack(siteId);
      },
      onProgress: (siteId, e) => this.queue.onProgress(siteId, e),
      onFile: (_siteId, e) => this.queue.onFile(e),
    };
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
    if (!Object.prototype.hasOwnProperty.call(invokeSchemas, channel))
      return err('UNKNOWN_CHANNEL', `Unknown channel ${channel}`);
    const c = channel as InvokeChannel;
    const parsed = invokeSchemas[c].safeParse(payload);
    if (!parsed.success)
      return err(
        'INVALID_REQUEST',
        `Invalid ${c} request: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`).join('; ')}`,
      );
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
    return this.queue.jobs();
  }

  /** Stops every Keep remote up to date (main/: its window closed; nothing would show them). */
  stopKeepUps(): Promise<void> {
    return this.keepUps.stopAll();
  }

  /** Edited files with a save not on the server yet (main/ asks before quitting while there is one). */
  pendingEdits(): ReturnType<EditDesk['pendingEdits']> {
    return this.edits.pendingEdits();
  }

  /**
   * Stops the running jobs (stored as queued: they resume on the next start, from the partial files their journal
   * keeps), lets their transfers end (at most CLOSE_GRACE_MS), disconnects every session, waits for the runs to settle
   * and closes the databases.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.keepUps.stopAll();
    await this.edits.shutdown();
    this.ciphers.close();
    this.queue.beginClose();
    await this.queue.runsEnded(CLOSE_GRACE_MS);
    for (const id of this.sessions.siteIds()) await this.sessions.disconnect(id);
    await this.queue.finishClose();
    this.closed = true;
    this.store.close();
    this.hostKeys.close();
    clearDragCache(this.home);
  }

  private emit<E extends EventName>(event: E, payload: EventPayloads[E]): void {
    for (const l of this.listeners) {
      try {
        l(event, payload);
      } catch {
        /* a listener must not break the engine */
      }
    }
  }

  private log(level: 'info' | 'warn' | 'error', message: string, siteId?: string): void {
    const text = siteId ? redact(message, this.sessions.secretsOf(siteId)) : message;
    this.emit('log', { lines: [{ t: this.clock(), level, message: text, ...(siteId ? { siteId } : {}) }] });
  }

  // -------------------------------------------------------------------------------------------
  // Handlers
  // -------------------------------------------------------------------------------------------

  /** The router: every channel of the contract, from the groups below (the compiler checks none is missing). */
  private makeHandlers(): Handlers {
    return {
      ...siteHandlers({
        hub: this.hub,
        sessions: this.sessions,
        tests: this.tests,
        env: this.env,
        sshConfig: this.sshConfig,
        dialogs: this.desktop.dialogs,
        home: this.home,
      }),
      ...this.sessionHandlers(),
      ...this.fileHandlers(),
      ...queueHandlers(this.queue, () => this.jobs()),
      ...this.settingsHandlers(),
      ...editHandlers(this.edits),
      ...propsHandlers(this.sessions),
      ...fileOpHandlers(
        this.sessions,
        this.listedLocal,
        this.desktop,
        copyQueue(this.home, this.queue, this.hub, this),
      ),
      ...syncHandlers(this.sessions, (k, leaveOut) =>
        this.queue.enqueueSync({ target: { siteId: k.siteId }, ...syncRoots(k), plan: k.plan, leaveOut }),
      ),
      ...navigationHandlers(this.hub, this.sessions),
      ...keepUpHandlers(this.keepUps),
    };
  }

  /** Sessions, their host key and login answers, and known_hosts. */
  private sessionHandlers() {
    return {
      'session.connect': async ({ siteId, password }) => {
        await this.sessions.connect(siteId, password);
        return this.sessions.get(siteId)!.status;
      },
      // `transfers: 'cancel'`: the site's running and queued jobs are cancelled, and their runs given up to 10 s to end
      // (partial files removed through the connection), before it closes; else they pause and resume on the next
      // connect.
      'session.disconnect': async ({ siteId, transfers }) => {
        if (transfers === 'cancel' && this.queue.cancelSite(siteId)) await this.queue.runsEnded(10_000);
        await this.sessions.disconnect(siteId);
      },
      'session.list': async () => this.sessions.statuses(),
      'hostKey.answer': async ({ promptId, answer, confirmHost }) => {
        await this.sessions.answerHostKey(promptId, answer, confirmHost);
      },
      'knownHosts.list': async () => ({
        entries: await this.hostKeys.list(this.store.list().sites),
        writePath: this.hostKeys.paths.writePath,
      }),
      'knownHosts.remove': async ({ file, line, fingerprint }) => {
        this.log('warn', await this.hostKeys.remove(file, line, fingerprint));
      },
      'auth.answer': async ({ promptId, answers, remember }) => {
        this.sessions.answerAuth(promptId, answers, remember ?? false);
      },
    } satisfies Partial<Handlers>;
  }

  /** The panes: remote and local listing and edits. */
  private fileHandlers() {
    return {
      // Browsing that fails on a dropped connection is tried once more, after the session reconnected (sessions.ts).
      'remote.list': async ({ siteId, path: p }) =>
        this.sessions.browse(siteId, async (s) => {
          const resolved = await s.realpath(p === '~' ? '.' : p.startsWith('~/') ? p.slice(2) : p);
          return { path: resolved, entries: await resolveLinks(s, resolved, await s.list(resolved, { long: true })) };
        }),
      'remote.mkdir': async ({ siteId, path: p }) => {
        await (await this.sessions.engineFor(siteId)).mkdir(p);
      },
      'remote.remove': async ({ siteId, path: p, recursive }) => {
        await (await this.sessions.engineFor(siteId)).remove(p, recursive ?? false);
      },

      'local.list': async ({ path: p }) => {
        const listing = await listLocalAt(expandHome(p));
        this.listedLocal.add(listing.path);
        return listing;
      },
      'local.mkdir': async ({ path: p }) => makeLocalFolder(p),
      'local.remove': async ({ path: p, recursive }) =>
        removeLocal(this.listedLocal.entry(p, 'remove'), recursive ?? false),
      'local.home': async () => localHome(),
    } satisfies Partial<Handlers>;
  }

  /** Settings and the cipher measurements. */
  private settingsHandlers() {
    return {
      'settings.get': async () => this.settings(),
      'settings.set': async (patch) => {
        if (patch.theme !== undefined) this.store.setSetting('theme', patch.theme);
        if (patch.editorCommand !== undefined) this.store.setSetting('editorCommand', patch.editorCommand);
        if (patch.allowInsecureSecretStorage !== undefined)
          this.store.setSetting('allowInsecureSecretStorage', patch.allowInsecureSecretStorage);
        if (patch.layout !== undefined) this.store.setSetting('layout', patch.layout);
        if (patch.transfers !== undefined) this.store.setSetting('transfers', patch.transfers);
        if (patch.speedLimit !== undefined) {
          this.store.setSetting('speedLimit', patch.speedLimit);
          setGlobalRateLimit(patch.speedLimit);
        }
        return this.settings();
      },

      'algorithms.measurement': async () => this.ciphers.view(),
      'algorithms.measure': async ({ seconds }) => this.ciphers.measure(seconds),
    } satisfies Partial<Handlers>;
  }

  private settings(): Settings {
    return {
      theme: this.store.getSetting<Theme>('theme') ?? 'system',
      ...(this.store.getSetting<string>('editorCommand')
        ? { editorCommand: this.store.getSetting<string>('editorCommand') }
        : {}),
      allowInsecureSecretStorage: this.store.getSetting<boolean>('allowInsecureSecretStorage') ?? false,
      secretStorage: this.secrets.status(),
      speedLimit: this.store.getSetting<number>('speedLimit') ?? 0,
      layout: { ...DEFAULT_LAYOUT, ...this.store.getSetting<Partial<UiLayout>>('layout') },
      transfers: transferDefaults(this.store),
    };
  }

  /** Whether the user agreed to plain-text secret storage (read by main's safeStorage SecretStore). */
  insecureSecretStorageAllowed(): boolean {
    return insecureSecretStorageAllowed(this.hub);
  }
}
