/**
 * An in-memory {@link Bridge} for the renderer's unit tests (test code: it lives beside them, not in renderer/).
 * It answers every channel from plain data, records every call, and lets a test emit any event.
 * It does not transfer anything: tests drive the queue by emitting `queue.delta` events.
 */
import {
  BRIDGE_METHOD_NAMES,
  INVOKE_CHANNELS,
  methodName,
  type Bridge,
  type BridgeMethods,
  type EventName,
  type EventPayloads,
  type FsEntry,
  type InvokeChannel,
  type InvokeRequests,
  type InvokeResponses,
  type Settings,
} from '../../../app/common/ipc/contract';
import { err, ok, type Result } from '../../../app/common/ipc/result';
import type { Job } from '../../../app/common/model/job';
import type { SiteView } from '../../../app/common/model/site';
import type { AlgorithmCatalog } from '../../../app/common/algorithms';
import { DEFAULT_LAYOUT } from '../../../app/common/model/layout';
import { DEFAULT_TRANSFERS } from '../../../app/common/model/transferDefaults';

/** A small `algorithms.catalog` answer (the engine's real one lists every name ssh2 supports). */
export const FAKE_ALGORITHM_CATALOG: AlgorithmCatalog = {
  cipher: {
    supported: ['aes128-gcm@openssh.com', 'chacha20-poly1305@openssh.com', 'aes256-ctr', 'aes128-cbc'],
    defaults: ['aes128-gcm@openssh.com', 'chacha20-poly1305@openssh.com', 'aes256-ctr'],
    weak: { 'aes128-cbc': 'CBC mode (plaintext recovery, CVE-2008-5161); off by default since OpenSSH 7.4' },
  },
  kex: {
    supported: ['curve25519-sha256', 'diffie-hellman-group1-sha1'],
    defaults: ['curve25519-sha256'],
    weak: { 'diffie-hellman-group1-sha1': '1024-bit group and SHA-1 (RFC 9142)' },
  },
  hmac: {
    supported: ['hmac-sha2-256-etm@openssh.com', 'hmac-md5'],
    defaults: ['hmac-sha2-256-etm@openssh.com'],
    weak: { 'hmac-md5': 'MD5' },
  },
  serverHostKey: {
    supported: ['ssh-ed25519', 'rsa-sha2-512', 'ssh-rsa'],
    defaults: ['ssh-ed25519', 'rsa-sha2-512'],
    weak: { 'ssh-rsa': 'RSA with SHA-1 signatures (RFC 8332); off by default since OpenSSH 8.8' },
  },
};

/** A recorded invocation. */
export interface FakeCall {
  channel: InvokeChannel;
  request: unknown;
}

/** Answers a channel; return undefined to fall back to the built-in behaviour. */
export type FakeHandler = (request: unknown) => Result<unknown> | undefined | Promise<Result<unknown> | undefined>;

/** The fake bridge plus the controls a test uses. */
export interface FakeBridge extends Bridge {
  readonly calls: FakeCall[];
  /** Emits an event to every subscriber, synchronously. */
  emit<E extends EventName>(event: E, payload: EventPayloads[E]): void;
  /** Overrides one channel. */
  handle(channel: InvokeChannel, handler: FakeHandler): void;
  /** In-memory data the built-in handlers read and write. */
  readonly data: FakeData;
}

/** Data behind the built-in handlers. */
export interface FakeData {
  sites: SiteView[];
  folders: string[];
  jobs: Job[];
  settings: Settings;
  /** Directory listings by absolute path, for `local.list` and `remote.list`. */
  local: Record<string, FsEntry[]>;
  remote: Record<string, FsEntry[]>;
  localHome: string;
}

type BuiltinHandlers = { [C in InvokeChannel]?: (request: InvokeRequests[C]) => Result<InvokeResponses[C]> };

/** The answers of the channels the fake knows, over `data` (the others answer ok(undefined)). */
function builtinHandlers(data: FakeData): BuiltinHandlers {
  let nextId = 1;
  return {
    'sites.list': () => ok({ folders: [...data.folders].sort(), sites: data.sites }),
    'sites.save': ({ site, password }) => {
      const now = Date.now();
      const existing = site.id ? data.sites.find((s) => s.id === site.id) : undefined;
      const saved: SiteView = {
        ...site,
        id: site.id ?? `site-${nextId++}`,
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
        hasPassword: password === undefined ? (existing?.hasPassword ?? false) : password !== null,
      };
      data.sites = existing ? data.sites.map((s) => (s.id === saved.id ? saved : s)) : [...data.sites, saved];
      if (saved.folder && !data.folders.includes(saved.folder)) data.folders.push(saved.folder);
      return ok(saved);
    },
    'sites.delete': ({ siteId }) => {
      data.sites = data.sites.filter((s) => s.id !== siteId);
      return ok(undefined);
    },
    'sites.duplicate': ({ siteId }) => {
      const src = data.sites.find((s) => s.id === siteId);
      if (!src) return err('NOT_FOUND', 'no such site');
      const copy: SiteView = { ...src, id: `site-${nextId++}`, name: `${src.name} (copy)`, hasPassword: false };
      data.sites = [...data.sites, copy];
      return ok(copy);
    },
    'folders.create': ({ path }) => {
      if (!data.folders.includes(path)) data.folders.push(path);
      return ok(undefined);
    },
    'folders.delete': ({ path }) => {
      if (data.sites.some((s) => s.folder === path || s.folder.startsWith(`${path}/`)))
        return err('FOLDER_NOT_EMPTY', 'folder is not empty');
      data.folders = data.folders.filter((f) => f !== path);
      return ok(undefined);
    },
    'algorithms.catalog': () => ok(FAKE_ALGORITHM_CATALOG),
    'sites.test': ({ site }) =>
      ok({
        ok: true,
        kex: 'curve25519-sha256',
        cipher: site.ciphers?.[0] ?? 'aes128-gcm@openssh.com',
        mac: '(implicit: AEAD)',
        serverHostKey: 'ssh-ed25519',
        serverVersion: 'SSH-2.0-OpenSSH_9.2p1',
        rttMs: 1,
        home: '/home/user',
        authMethod: 'publickey',
        elapsedMs: 5,
      }),
    'sites.testCancel': () => ok(false),
    'session.list': () => ok([]),
    'local.home': () => ok(data.localHome),
    'local.list': ({ path }) =>
      data.local[path] ? ok({ path, entries: data.local[path] }) : err('NOT_FOUND', `${path}: no such folder`),
    'remote.list': ({ path }) =>
      data.remote[path] ? ok({ path, entries: data.remote[path] }) : err('NOT_FOUND', `${path}: no such folder`),
    'queue.snapshot': () => ok({ jobs: data.jobs }),
    'queue.enqueue': ({ sources }) => ok({ jobIds: sources.map(() => `job-${nextId++}`) }),
    'queue.files': () => ok({ files: [], total: 0 }),
    'settings.get': () => ok(data.settings),
    'settings.set': (patch) => {
      data.settings = { ...data.settings, ...patch };
      return ok(data.settings);
    },
  };
}

/** Creates a fake bridge with optional initial data. */
export function createFakeBridge(init: Partial<FakeData> = {}): FakeBridge {
  const data: FakeData = {
    sites: [],
    folders: [],
    jobs: [],
    settings: {
      theme: 'system',
      allowInsecureSecretStorage: false,
      secretStorage: { backend: 'memory', secure: true },
      speedLimit: 0,
      layout: DEFAULT_LAYOUT,
      transfers: DEFAULT_TRANSFERS,
    },
    local: { '/home/user': [] },
    remote: { '/': [] },
    localHome: '/home/user',
    ...init,
  };
  const calls: FakeCall[] = [];
  const listeners = new Map<EventName, Set<(payload: never) => void>>();
  const overrides = new Map<InvokeChannel, FakeHandler>();
  const builtin = builtinHandlers(data);
  const methods: Record<string, unknown> = {};
  const controls: Omit<FakeBridge, keyof BridgeMethods> = {
    calls,
    data,
    emit(event, payload) {
      for (const l of listeners.get(event) ?? []) (l as (p: typeof payload) => void)(payload);
    },
    handle(channel, handler) {
      overrides.set(channel, handler);
    },
    on(event, listener) {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(listener as (payload: never) => void);
      return () => set.delete(listener as (payload: never) => void);
    },
    pathForFile: (file: object) => (file as { path?: string }).path ?? '',
  };
  for (const channel of INVOKE_CHANNELS) {
    methods[methodName(channel)] = async (request?: unknown): Promise<Result<unknown>> => {
      calls.push({ channel, request });
      const override = overrides.get(channel);
      const answer = override ? await override(request) : undefined;
      if (answer) return answer;
      const fn = builtin[channel] as ((r: unknown) => Result<unknown>) | undefined;
      return fn ? fn(request) : ok(undefined);
    };
  }
  if (!BRIDGE_METHOD_NAMES.every((m) => typeof methods[m] === 'function'))
    throw new Error('fake bridge misses a method');
  return Object.assign(methods, controls) as unknown as FakeBridge;
}
