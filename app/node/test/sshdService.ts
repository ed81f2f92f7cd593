/**
 * TEST ONLY: the service (app/node/service.ts) over the real engine against a private OpenSSH sshd
 * (e2e/fixtures/sshd.ts), with a temp data folder and one saved site; events awaited by name. Used by
 * test/service.sshd.test.ts and test/service.resume.test.ts; `reopenSshd` is an app restart on the same data folder.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SluiceService, type EngineFactory, type ServiceOptions } from '../service';
import { MemorySecretStore } from '../stores/sites';
import { startSshd, type SshdOptions, type SshdServer } from '../../../e2e/fixtures/sshd';
import type { EventName, EventPayloads } from '../../common/ipc/contract';
import type { SiteInput } from '../../common/model/site';

export const WAIT_MS = 30_000;

export interface SshdCtx {
  server: SshdServer;
  service: SluiceService;
  home: string;
  knownHosts: string;
  siteId: string;
  next<E extends EventName>(name: E, pred?: (p: EventPayloads[E]) => boolean): Promise<EventPayloads[E]>;
}

/** What {@link setupSshd} may change: the engine (a wrapper around openEngine), the site's settings, the reconnects. */
export interface SshdSetupOptions {
  engine?: EngineFactory;
  site?: Partial<SiteInput>;
  reconnectPolicy?: ServiceOptions['reconnectPolicy'];
  /** Other service options (the desktop's: dialogs, startDrag, openPath). */
  service?: Partial<ServiceOptions>;
  /** The sshd's own options (e2e/fixtures/sshd.ts), e.g. another SFTP subsystem. */
  sshd?: SshdOptions;
}

/** A service and a private sshd, one site saved for it (2 connections × 2 channels); all removed after the test. */
export async function setupSshd(
  t: { after: (fn: () => Promise<void>) => void },
  opts: SshdSetupOptions = {},
): Promise<SshdCtx> {
  const server = await startSshd(opts.sshd);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-svc-sshd-'));
  const c = openService(server, home, opts);
  t.after(async () => {
    for (const service of servicesOf.get(home) ?? []) await service.close();
    servicesOf.delete(home);
    await server.stop();
    fs.rmSync(home, { recursive: true, force: true });
  });
  const saved = await c.service.invoke('sites.save', {
    site: {
      name: 'sshd',
      folder: 'Tests',
      host: server.host,
      port: server.port,
      user: server.user,
      authMethod: 'key',
      keyPath: server.clientKeyPath,
      connections: 2,
      channels: 2,
      ...opts.site,
    },
  });
  assert.ok(saved.ok, JSON.stringify(saved));
  return { ...c, siteId: saved.value.id };
}

/**
 * The app quits and starts again: `c`'s service closes, a new one opens on the same data folder (its queue resumes).
 */
export async function reopenSshd(c: SshdCtx, opts: SshdSetupOptions = {}): Promise<SshdCtx> {
  await c.service.close();
  return { ...openService(c.server, c.home, opts), siteId: c.siteId };
}

/** Every service opened per data folder, closed by the test's cleanup. */
const servicesOf = new Map<string, SluiceService[]>();

function openService(server: SshdServer, home: string, opts: SshdSetupOptions): Omit<SshdCtx, 'siteId'> {
  const knownHosts = path.join(home, 'known_hosts');
  const service = new SluiceService({
    home,
    secrets: new MemorySecretStore(),
    knownHostsPath: knownHosts,
    env: { HOME: home, PATH: process.env.PATH },
    readyTimeoutMs: WAIT_MS,
    ...(opts.engine ? { engine: opts.engine } : {}),
    ...(opts.reconnectPolicy ? { reconnectPolicy: opts.reconnectPolicy } : {}),
    ...opts.service,
  });
  servicesOf.set(home, [...(servicesOf.get(home) ?? []), service]);
  const waiters = new Set<{ name: EventName; pred: (p: never) => boolean; resolve: (p: unknown) => void }>();
  service.subscribe((name, payload) => {
    for (const w of [...waiters])
      if (w.name === name && w.pred(payload as never)) {
        waiters.delete(w);
        w.resolve(payload);
      }
  });
  return {
    server,
    service,
    home,
    knownHosts,
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

/** Connects the site, accepting and saving the unknown host key. */
export async function connectAccepting(c: SshdCtx): Promise<void> {
  const prompt = c.next('hostKey.prompt');
  const connecting = c.service.invoke('session.connect', { siteId: c.siteId });
  const p = await prompt;
  assert.equal(p.kind, 'unknown');
  assert.ok((await c.service.invoke('hostKey.answer', { promptId: p.promptId, answer: 'accept-save' })).ok);
  const status = await connecting;
  assert.ok(status.ok, JSON.stringify(status));
  assert.equal(status.value.state, 'connected');
  assert.ok(status.value.cipher && status.value.kex, 'negotiated algorithms reported');
}

/** Waits until every job of `ids` is in `state`. */
export async function waitJobs(c: SshdCtx, ids: string[], state: 'done' | 'failed' | 'paused'): Promise<void> {
  const settled = (): boolean => ids.every((id) => c.service.jobs().find((j) => j.id === id)?.state === state);
  if (settled()) return;
  await c.next('queue.delta', settled);
}
