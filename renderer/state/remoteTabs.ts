/**
 * The remote pane's tabs (#26 item 4) as pure functions over an immutable value: each tab shows one site's session
 * (the service keeps one session and one connection pool per site, shared by every tab of that site) in its own
 * folder. What else a tab holds (selection, Back/Forward history, filter text, the listing) lives in that tab's own
 * pane, which stays mounted while another tab is shown. Tabs are not restored after a restart.
 */
import { displayText } from '../../app/common/displayText';
import type { SessionState } from '../../app/common/ipc/contract';
import type { QueueState } from '../../app/common/queue/reducer';

/** One tab: the site it shows and its folder (null until the session gives one, or after a disconnect). */
export interface RemoteTab {
  readonly id: string;
  readonly siteId: string;
  readonly path: string | null;
}

/** Every tab in strip order, and the one shown. */
export interface RemoteTabs {
  readonly tabs: readonly RemoteTab[];
  /** The tab shown, null when there is none. */
  readonly activeId: string | null;
  /** The number the next tab's id gets (ids are never reused, so a pane never takes a closed tab's state). */
  readonly nextId: number;
}

/** Tabs kept open at most (bounded like every list the window holds). */
export const TAB_LIMIT = 32;

export const emptyTabs: RemoteTabs = { tabs: [], activeId: null, nextId: 1 };

/** The tab shown, if any. */
export function activeTab(t: RemoteTabs): RemoteTab | undefined {
  return t.tabs.find((tab) => tab.id === t.activeId);
}

/** The site's tabs, in strip order. */
export function tabsOfSite(t: RemoteTabs, siteId: string): RemoteTab[] {
  return t.tabs.filter((tab) => tab.siteId === siteId);
}

/** Shows the tab `id` (unchanged when there is no such tab). */
export function activate(t: RemoteTabs, id: string): RemoteTabs {
  return t.activeId === id || !t.tabs.some((tab) => tab.id === id) ? t : { ...t, activeId: id };
}

/**
 * A site was asked for (Connect, quick connect, the site tree): its tab is shown when it has one and `newTab` is not
 * asked, else a tab is opened right after the one shown, in `path` (null: the session's start folder, once known).
 * At {@link TAB_LIMIT} no tab is opened (nothing changes; {@link canOpen} says so beforehand).
 */
export function openSite(
  t: RemoteTabs,
  siteId: string,
  o: { newTab?: boolean; path?: string | null } = {},
): RemoteTabs {
  const existing = t.tabs.find((tab) => tab.siteId === siteId);
  if (existing && !o.newTab) return activate(t, existing.id);
  if (t.tabs.length >= TAB_LIMIT) return t;
  const tab: RemoteTab = { id: `tab-${t.nextId}`, siteId, path: o.path ?? null };
  const at = t.tabs.findIndex((x) => x.id === t.activeId);
  const tabs = [...t.tabs.slice(0, at + 1), tab, ...t.tabs.slice(at + 1)];
  return { tabs, activeId: tab.id, nextId: t.nextId + 1 };
}

/** Whether asking for the site (with `newTab` or not) shows a tab of it: false only at {@link TAB_LIMIT}. */
export function canOpen(t: RemoteTabs, siteId: string, newTab = false): boolean {
  return t.tabs.length < TAB_LIMIT || (!newTab && t.tabs.some((tab) => tab.siteId === siteId));
}

/** A copy of the tab shown (same site, same folder), opened after it and shown (Ctrl+T). */
export function duplicateActive(t: RemoteTabs): RemoteTabs {
  const shown = activeTab(t);
  return shown ? openSite(t, shown.siteId, { newTab: true, path: shown.path }) : t;
}

/**
 * Closes a tab; when it was shown, its right-hand neighbour is shown (the left one for the last tab), as browsers and
 * FileZilla do.
 */
export function closeTab(t: RemoteTabs, id: string): RemoteTabs {
  const at = t.tabs.findIndex((tab) => tab.id === id);
  if (at < 0) return t;
  const tabs = t.tabs.filter((tab) => tab.id !== id);
  if (t.activeId !== id) return { ...t, tabs };
  const next = tabs[Math.min(at, tabs.length - 1)];
  return { ...t, tabs, activeId: next ? next.id : null };
}

/** Closes every tab but `id`, which is shown (a tab's "Close other tabs"). */
export function closeOthers(t: RemoteTabs, id: string): RemoteTabs {
  const keep = t.tabs.find((tab) => tab.id === id);
  if (!keep || (t.tabs.length === 1 && t.activeId === id)) return t;
  return { ...t, tabs: [keep], activeId: id };
}

/** The tab `delta` places from the one shown, wrapping around (Ctrl+Tab: +1, Ctrl+Shift+Tab: -1). */
export function cycle(t: RemoteTabs, delta: number): RemoteTabs {
  const n = t.tabs.length;
  const at = t.tabs.findIndex((tab) => tab.id === t.activeId);
  if (n < 2 || at < 0) return t;
  return activate(t, t.tabs[(((at + delta) % n) + n) % n].id);
}

/** A tab's folder changed (it listed another one). */
export function setTabPath(t: RemoteTabs, id: string, path: string | null): RemoteTabs {
  const tab = t.tabs.find((x) => x.id === id);
  if (!tab || tab.path === path) return t;
  return { ...t, tabs: t.tabs.map((x) => (x.id === id ? { ...x, path } : x)) };
}

/**
 * The site's session gave its start folder (connected) or ended (null): its tabs without a folder take `start`; with
 * null every tab of the site forgets its folder.
 */
export function setSitePaths(t: RemoteTabs, siteId: string, start: string | null): RemoteTabs {
  let changed = false;
  const tabs = t.tabs.map((tab) => {
    if (tab.siteId !== siteId || (start !== null && tab.path !== null) || tab.path === start) return tab;
    changed = true;
    return { ...tab, path: start };
  });
  return changed ? { ...t, tabs } : t;
}

/** The last part of a folder (`/` for the root), for a tab's label. */
export function baseName(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed === '') return '/';
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/**
 * A tab's label: the site's name and the folder's base name, both escaped (displayText: control and bidi characters)
 * and cut to stay short; the full path goes in the tab's title.
 */
export function tabLabel(siteName: string, path: string | null): string {
  const site = displayText(siteName.trim() || 'Site', 32);
  return path === null ? site : `${site}: ${displayText(baseName(path), 32)}`;
}

/** What a tab says of its site's session. */
export type TabStatus = 'connecting' | 'connected' | 'reconnecting' | 'lost' | 'failed' | 'not connected';

/**
 * The session's state as a tab shows it: a failed session is `lost` on a tab that had a folder (it was connected:
 * the reconnect attempts ran out), `failed` on one that never had one (the connection was refused).
 */
export function tabStatus(state: SessionState | undefined, hadFolder: boolean): TabStatus {
  if (state === 'failed') return hadFolder ? 'lost' : 'failed';
  if (state === 'connecting' || state === 'connected' || state === 'reconnecting') return state;
  return 'not connected';
}

/** How many of the site's jobs are queued or running (the queue keeps its session when its last tab closes). */
export function movingJobs(queue: QueueState, siteId: string | null): number {
  let n = 0;
  for (const id of queue.order) {
    const j = queue.byId[id];
    if (j.siteId === siteId && (j.state === 'running' || j.state === 'queued')) n++;
  }
  return n;
}
