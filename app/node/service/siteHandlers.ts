/**
 * The contract's site channels (service.ts routes them here): saved sites and their folders, import, export, Test
 * connection, quick connect, the key file dialog and the algorithm catalog.
 */
import os from 'node:os';
import path from 'node:path';
import type { SiteView } from '../../common/model/site';
import { SluiceError } from '../errors';
import { algorithmCatalog } from '../ssh/algorithms';
import { applyImport, exportSites, previewImport, writeExport, type SiteImportContext } from '../sites/siteImport';
import { expandHome } from '../sites/source';
import { homeOf } from '../sys/platformPaths';
import { passphraseSecretId } from './authPrompts';
import type { Handlers, ServiceHub } from './hub';
import { quickSite } from './quickConnect';
import type { SiteSessions } from './sessions';
import { testSite, type SiteTestRuns } from './siteTest';

/** What `dialog.openFile` shows: a title, the folder it starts in, hidden files too. */
export interface OpenFileRequest {
  title: string;
  defaultPath: string;
  showHidden: boolean;
  /** A folder, not a file (a download's destination). */
  folder?: boolean;
}

/** The system's file dialogs, provided by the process that has them (Electron's main process). */
export interface FileDialogs {
  /** Asks for one existing file; resolves to its absolute path, or null when the user cancelled. */
  openFile(request: OpenFileRequest): Promise<string | null>;
}

/** The service's parts the site channels use. */
export interface SiteDesk {
  readonly hub: ServiceHub;
  readonly sessions: SiteSessions;
  readonly tests: SiteTestRuns;
  readonly env: NodeJS.ProcessEnv;
  /** The ssh_config(5) file quick connect reads (default: ~/.ssh/config). */
  readonly sshConfig: string | undefined;
  readonly dialogs: FileDialogs | undefined;
  /** Sluice's data folder (the algorithm catalog's measurements). */
  readonly home: string;
}

/** Every site channel: the saved sites' own and the tools around them. */
export function siteHandlers(d: SiteDesk) {
  return { ...savedSiteHandlers(d), ...siteToolHandlers(d) };
}

/** Whether the user agreed to plain-text secret storage (Settings). */
export function insecureSecretStorageAllowed(hub: ServiceHub): boolean {
  return hub.store.getSetting<boolean>('allowInsecureSecretStorage') ?? false;
}

/** Throws INSECURE_SECRET_STORAGE when a password would be stored unencrypted without the user's agreement. */
function checkSecretStorageAllowed(hub: ServiceHub): void {
  const { secure, backend } = hub.secrets.status();
  if (!secure && !insecureSecretStorageAllowed(hub)) {
    throw new SluiceError(
      'INSECURE_SECRET_STORAGE',
      `Passwords would be stored without encryption (${backend}); agree in Settings first, or use a key or the agent`,
    );
  }
}

/** Listing, saving, deleting and duplicating sites (with their stored passwords), and the site folders. */
function savedSiteHandlers({ hub, sessions }: SiteDesk) {
  const { store, secrets } = hub;
  return {
    'sites.list': async () => {
      const { folders, sites } = store.list();
      const views: SiteView[] = await Promise.all(
        sites.map(async (s) => ({ ...s, hasPassword: (await secrets.get(s.id)) !== undefined })),
      );
      return { folders, sites: views };
    },
    'sites.save': async ({ site, password }) => {
      if (typeof password === 'string') checkSecretStorageAllowed(hub);
      const saved = store.save(site);
      if (typeof password === 'string') await secrets.set(saved.id, password);
      else if (password === null) await secrets.delete(saved.id);
      const s = sessions.get(saved.id);
      if (s) {
        s.site = saved;
        s.engine?.setRateLimit(saved.speedLimit ?? 0);
      }
      return saved;
    },
    'sites.delete': async ({ siteId }) => {
      const site = store.get(siteId);
      if (!site) throw new SluiceError('NOT_FOUND', `No site with id ${siteId}`);
      await sessions.disconnect(siteId);
      store.delete(siteId);
      await secrets.delete(siteId);
      if (site.keyPath) await secrets.delete(passphraseSecretId(siteId, site.keyPath));
    },
    'sites.duplicate': async ({ siteId }) => {
      const copy = store.duplicate(siteId);
      const secret = await secrets.get(siteId);
      if (secret !== undefined) await secrets.set(copy.id, secret).catch(() => undefined);
      return copy;
    },
    'folders.create': async ({ path: p }) => {
      store.createFolder(p);
    },
    'folders.delete': async ({ path: p }) => {
      store.deleteFolder(p);
    },
  } satisfies Partial<Handlers>;
}

/** What site imports read with: the store, the login name for sources that name none, `~` and the usual places. */
function importContext({ hub, env }: SiteDesk): SiteImportContext {
  let user = env.USER ?? env.USERNAME;
  if (!user) {
    try {
      user = os.userInfo().username;
    } catch {
      user = 'root';
    }
  }
  return { store: hub.store, defaultUser: user, env };
}

/** Import, export, Test connection, quick connect, the key file dialog and the algorithm catalog. */
function siteToolHandlers(d: SiteDesk) {
  const { hub, sessions, env } = d;
  const { store, secrets } = hub;
  return {
    'sites.importPreview': async (req) => (await previewImport(importContext(d), req)).preview,
    'sites.import': async ({ passwords, ...req }) =>
      applyImport(
        importContext(d),
        req,
        passwords === false
          ? { skip: 'not asked for' }
          : {
              store: async (siteId, secret) => {
                checkSecretStorageAllowed(hub);
                await secrets.set(siteId, secret);
              },
            },
      ),
    'sites.export': async ({ path: p, withPasswords, siteIds, overwrite }) => {
      const { doc, passwords } = await exportSites(store, {
        siteIds,
        now: hub.clock(),
        passwordOf: withPasswords ? (id) => secrets.get(id) : undefined,
      });
      return writeExport(expandHome(p, homeOf(env)), doc, passwords, overwrite ?? false);
    },
    'sites.test': async ({ site, password, testId }) =>
      d.tests.run(testId, (signal) => testSite(sessions, hub, site, password, signal)),
    'sites.testCancel': async ({ testId }) => d.tests.cancel(testId),
    'sites.quick': async ({ target }) => {
      const { quick, resolvedHost, hasPassword, ...site } = quickSite(
        target,
        { env, sshConfig: d.sshConfig },
        hub.clock(),
      );
      store.addTransient(site);
      return { ...site, hasPassword, quick, ...(resolvedHost ? { resolvedHost } : {}) };
    },
    'dialog.openFile': async ({ defaultPath }) => {
      if (!d.dialogs) throw new SluiceError('INVALID_STATE', 'No file dialog is available here: type the path');
      const home = homeOf(env);
      return d.dialogs.openFile({
        title: 'Choose a private key',
        defaultPath: defaultPath ?? path.join(home, '.ssh'),
        showHidden: true,
      });
    },
    'algorithms.catalog': async () => algorithmCatalog(d.home),
  } satisfies Partial<Handlers>;
}
