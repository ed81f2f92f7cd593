/**
 * The window's active site and its folders: which site the panes and the toolbar show (the shown remote tab's: a saved
 * site or the quick-connect bar's unsaved one), the local folder (the home until a site's local folder or a navigation
 * changes it), the remote tabs (useRemoteTabs.ts: each with its own folder), and Connect and Disconnect. Connect shows
 * the site's tab, or opens one (`newTab`: always; the same site twice shares its session). A Disconnect with running
 * or queued jobs of the site asks first what becomes of them (`askDisconnect`); the site's tabs stay, unconnected.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { QuickSite } from '../../app/common/ipc/contract';
import type { SiteView } from '../../app/common/model/site';
import { useAppState, useBridge, useStore } from '../state/react';
import {
  activeTab,
  canOpen,
  movingJobs,
  openSite,
  setSitePaths,
  TAB_LIMIT,
  type RemoteTabs,
} from '../state/remoteTabs';
import { sessionLive } from './sessionLive';
import { useRemoteTabs } from './useRemoteTabs';

export { sessionLive } from './sessionLive';

/** The local pane's folder: the home, asked once; a failure is logged. */
function useLocalPath() {
  const store = useStore();
  const bridge = useBridge();
  const [localPath, setLocalPath] = useState<string | null>(null);
  useEffect(() => {
    void bridge.localHome().then((r) => {
      if (r.ok) setLocalPath((p) => p ?? r.value);
      else store.localLog('error', `Local home: ${r.error.message}`);
    });
  }, [bridge, store]);
  return [localPath, setLocalPath] as const;
}

/**
 * Connect: the site's tab is shown (or a new one opened, `newTab`), then the session opened unless it is under way
 * (a second tab of a site shares its session). A password site without a saved password is asked by the engine
 * (auth.prompt), as is a wrong one again.
 */
function useConnect(
  tabs: RemoteTabs,
  setTabs: React.Dispatch<React.SetStateAction<RemoteTabs>>,
  setQuickSites: React.Dispatch<React.SetStateAction<Readonly<Record<string, QuickSite>>>>,
  setLocalPath: (p: string) => void,
) {
  const store = useStore();
  const bridge = useBridge();
  return useCallback(
    async (site: SiteView, o: { newTab?: boolean } = {}) => {
      if (!canOpen(tabs, site.id, o.newTab)) {
        store.localLog('error', `${site.name}: at most ${TAB_LIMIT} tabs are open; close one first`);
        return;
      }
      if ('quick' in site && site.quick) setQuickSites((all) => ({ ...all, [site.id]: site as QuickSite }));
      const live = store.getSnapshot().sessions[site.id];
      // A site already connected gets its tab shown, or a new tab on the same session (its pool is shared).
      if (sessionLive(live)) {
        const path = live?.state === 'connecting' ? null : (site.remoteDir ?? live?.home ?? '/');
        setTabs((t) => openSite(t, site.id, { newTab: o.newTab, path }));
        return;
      }
      setTabs((t) => openSite(t, site.id, o));
      const r = await bridge.sessionConnect({ siteId: site.id });
      if (!r.ok) {
        store.localLog('error', `Connecting to ${site.name} failed: ${r.error.code}: ${r.error.message}`);
        return;
      }
      store.dispatch({ type: 'event', event: 'session.status', payload: r.value });
      setTabs((t) => setSitePaths(t, site.id, site.remoteDir ?? r.value.home ?? '/'));
      if (site.localDir) setLocalPath(site.localDir);
    },
    [bridge, store, setLocalPath, setTabs, tabs],
  );
}

/** The active site (the shown tab's), its session and folders, the tabs, Connect and Disconnect. */
export function useActiveSite() {
  const store = useStore();
  const bridge = useBridge();
  const sites = useAppState((s) => s.sites);
  const sessions = useAppState((s) => s.sessions);
  const queue = useAppState((s) => s.queue);
  const [localPath, setLocalPath] = useLocalPath();
  /** The quick-connect bar's unsaved sites that have (or had) a tab. */
  const [quickSites, setQuickSites] = useState<Readonly<Record<string, QuickSite>>>({});
  const [askDisconnect, setAskDisconnect] = useState(false);
  const siteById = useCallback(
    (id: string): SiteView | undefined => sites.sites.find((s) => s.id === id) ?? quickSites[id],
    [sites, quickSites],
  );
  const { tabs, setTabs, actions: tabActions } = useRemoteTabs((id) => siteById(id)?.name ?? id);
  const shown = activeTab(tabs);
  const activeSiteId = shown?.siteId ?? null;
  const activeSite = activeSiteId ? siteById(activeSiteId) : undefined;
  const quickSite = activeSiteId ? quickSites[activeSiteId] : undefined;
  const status = activeSiteId ? sessions[activeSiteId] : undefined;

  const connect = useConnect(tabs, setTabs, setQuickSites, setLocalPath);

  const moving = useMemo(() => movingJobs(queue, activeSiteId), [queue, activeSiteId]);

  const disconnect = async (transfers?: 'pause' | 'cancel') => {
    if (!activeSiteId) return;
    if (moving > 0 && transfers === undefined) {
      setAskDisconnect(true);
      return;
    }
    const r = await bridge.sessionDisconnect(
      transfers ? { siteId: activeSiteId, transfers } : { siteId: activeSiteId },
    );
    if (!r.ok) store.localLog('error', `Disconnect failed: ${r.error.message}`);
    setTabs((t) => setSitePaths(t, activeSiteId, null));
    await store.refreshSessions();
  };

  return {
    activeSiteId,
    activeSite,
    status,
    quickSite,
    localPath,
    setLocalPath,
    remotePath: shown?.path ?? null,
    /** Sends the shown tab to a folder (its pane lists it; a failure leaves the tab where it was). */
    setRemotePath: useCallback((p: string) => shown && tabActions.setPath(shown.id, p), [shown, tabActions]),
    tabs,
    tabActions,
    siteById,
    connect,
    disconnect,
    moving,
    askDisconnect,
    setAskDisconnect,
  };
}
