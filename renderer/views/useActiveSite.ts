/**
 * The window's active site and its folders: which site the panes and the toolbar show (a saved site or the
 * quick-connect bar's unsaved one), the local folder (the home until a site's local folder or a navigation changes
 * it), each site's remote folder (one value per site, never another site's), and Connect and Disconnect. A Disconnect
 * with running or queued jobs of the site asks first what becomes of them (`askDisconnect`).
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { QuickSite, SessionStatus } from '../../app/common/ipc/contract';
import type { SiteView } from '../../app/common/model/site';
import { useAppState, useBridge, useStore } from '../state/react';

/** A session that holds (or is getting) a connection: Disconnect applies, the site's identity is shown. */
export function sessionLive(status: SessionStatus | undefined): boolean {
  return status?.state === 'connected' || status?.state === 'connecting' || status?.state === 'reconnecting';
}

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

/** Each site's remote folder (one value per site), and the active site's. */
function useRemotePaths(activeSiteId: string | null) {
  const [remotePaths, setRemotePaths] = useState<Readonly<Record<string, string>>>({});
  const remotePath = activeSiteId ? (remotePaths[activeSiteId] ?? null) : null;
  const setRemotePath = useCallback(
    (p: string) => {
      if (activeSiteId) setRemotePaths((all) => (all[activeSiteId] === p ? all : { ...all, [activeSiteId]: p }));
    },
    [activeSiteId],
  );
  return { remotePath, setRemotePath, setRemotePaths };
}

/** How many of the site's jobs are running or queued: a Disconnect asks first what becomes of them. */
function useMovingJobs(siteId: string | null): number {
  const queue = useAppState((s) => s.queue);
  return useMemo(
    () =>
      queue.order.filter((id) => {
        const j = queue.byId[id];
        return j.siteId === siteId && (j.state === 'running' || j.state === 'queued');
      }).length,
    [queue, siteId],
  );
}

/** The active site, its session and folders, Connect and Disconnect. */
export function useActiveSite() {
  const store = useStore();
  const bridge = useBridge();
  const sites = useAppState((s) => s.sites);
  const sessions = useAppState((s) => s.sessions);
  const [activeSiteId, setActiveSiteId] = useState<string | null>(null);
  const [localPath, setLocalPath] = useLocalPath();
  /** The quick-connect bar's unsaved site, while it is the active one. */
  const [quickSite, setQuickSite] = useState<QuickSite | null>(null);
  const [askDisconnect, setAskDisconnect] = useState(false);

  const activeSite =
    sites.sites.find((s) => s.id === activeSiteId) ?? (quickSite?.id === activeSiteId ? quickSite : undefined);
  const { remotePath, setRemotePath, setRemotePaths } = useRemotePaths(activeSiteId);
  const status = activeSiteId ? sessions[activeSiteId] : undefined;

  // A password site without a saved password is asked by the engine (auth.prompt), as is a wrong one again.
  const connect = useCallback(
    async (site: SiteView) => {
      setActiveSiteId(site.id);
      // A site already connected is shown as it is (Connect is disabled for it; Enter or a double-click lands here).
      if (sessionLive(store.getSnapshot().sessions[site.id])) return;
      setRemotePaths(({ [site.id]: _dropped, ...rest }) => rest);
      const r = await bridge.sessionConnect({ siteId: site.id });
      if (!r.ok) {
        store.localLog('error', `Connecting to ${site.name} failed: ${r.error.code}: ${r.error.message}`);
        return;
      }
      store.dispatch({ type: 'event', event: 'session.status', payload: r.value });
      const start = site.remoteDir ?? r.value.home ?? '/';
      setRemotePaths((all) => ({ ...all, [site.id]: start }));
      if (site.localDir) setLocalPath(site.localDir);
    },
    [bridge, store, setLocalPath],
  );

  const moving = useMovingJobs(activeSiteId);

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
    setRemotePaths(({ [activeSiteId]: _dropped, ...rest }) => rest);
    await store.refreshSessions();
  };

  return {
    activeSiteId,
    activeSite,
    status,
    quickSite,
    setQuickSite,
    localPath,
    setLocalPath,
    remotePath,
    setRemotePath,
    connect,
    disconnect,
    moving,
    askDisconnect,
    setAskDisconnect,
  };
}
