/**
 * The remote pane's tabs in the window (state/remoteTabs.ts holds the pure model): which tab is shown, each tab's
 * folder, and what closing one does to its site's session. Tabs of one site share its session and connection pool
 * (the service keys sessions by site id); closing the last tab of a site disconnects it, unless it has queued or
 * running transfers: then it stays connected for them and a notice says so.
 */
import { useCallback, useMemo, useRef, useState } from 'react';
import { plural } from '../format/format';
import { useBridge, useStore } from '../state/react';
import {
  activate,
  canOpen,
  closeOthers,
  closeTab,
  cycle,
  duplicateActive,
  emptyTabs,
  movingJobs,
  setTabPath,
  TAB_LIMIT,
  tabsOfSite,
  type RemoteTabs,
} from '../state/remoteTabs';
import { sessionLive } from './sessionLive';

/** What the tab strip and the panes do with the tabs. */
export interface TabActions {
  activate: (id: string) => void;
  /** Ctrl+Tab (+1), Ctrl+Shift+Tab (-1). */
  cycle: (delta: number) => void;
  /** Ctrl+T: the shown tab again (same site, same folder). */
  duplicate: () => void;
  /** The close button, a middle click, Ctrl+W. */
  close: (id: string) => void;
  /** The tab's menu: every other tab closed. */
  closeOthers: (id: string) => void;
  /** The tab's pane listed another folder. */
  setPath: (id: string, path: string) => void;
}

/**
 * @param siteName the name of a site by id (saved or quick), for the notice of a closed tab
 */
export function useRemoteTabs(siteName: (siteId: string) => string) {
  const store = useStore();
  const bridge = useBridge();
  const [tabs, setTabs] = useState<RemoteTabs>(emptyTabs);
  const current = useRef(tabs);
  current.current = tabs;
  const nameOf = useRef(siteName);
  nameOf.current = siteName;

  /** The last tab of a site closed: disconnect it, or keep it for its transfers and say so. */
  const lastTabClosed = useCallback(
    (siteId: string) => {
      const snap = store.getSnapshot();
      if (!sessionLive(snap.sessions[siteId])) return;
      const n = movingJobs(snap.queue, siteId);
      if (n > 0) {
        const name = nameOf.current(siteId);
        store.dispatch({
          type: 'notice',
          notice: {
            id: `tab-closed:${siteId}:${Date.now()}`,
            title: 'Still connected',
            text: `${name} stays connected for ${plural(n, 'queued or running transfer')}; the queue keeps it.`,
            details:
              `The last tab of ${name} was closed while ${plural(n, 'transfer')} of the site were queued or ` +
              'running. The session stays open so they finish; Connect opens a tab on it again, and Disconnect ' +
              'there ends it.',
          },
        });
        return;
      }
      void bridge.sessionDisconnect({ siteId }).then(async (r) => {
        if (!r.ok) store.localLog('error', `Disconnect failed: ${r.error.message}`);
        await store.refreshSessions();
      });
    },
    [bridge, store],
  );

  const actions = useMemo<TabActions>(
    () => ({
      activate: (id) => setTabs((t) => activate(t, id)),
      cycle: (delta) => setTabs((t) => cycle(t, delta)),
      duplicate: () => {
        if (canOpen(current.current, '', true)) setTabs((t) => duplicateActive(t));
        else store.localLog('error', `At most ${TAB_LIMIT} tabs are open; close one first`);
      },
      close: (id) => {
        const tab = current.current.tabs.find((x) => x.id === id);
        if (!tab) return;
        const last = tabsOfSite(current.current, tab.siteId).length === 1;
        setTabs((t) => closeTab(t, id));
        if (last) lastTabClosed(tab.siteId);
      },
      closeOthers: (id) => {
        const before = current.current;
        const kept = before.tabs.find((x) => x.id === id);
        if (!kept) return;
        setTabs((t) => closeOthers(t, id));
        const gone = new Set(before.tabs.map((x) => x.siteId));
        gone.delete(kept.siteId);
        for (const siteId of gone) lastTabClosed(siteId);
      },
      setPath: (id, path) => setTabs((t) => setTabPath(t, id, path)),
    }),
    [lastTabClosed, store],
  );
  return { tabs, setTabs, actions };
}
