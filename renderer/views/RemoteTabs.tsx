/**
 * The remote side of the window (#26 item 4): a tab strip (the ARIA tabs pattern: role="tablist"/"tab", arrow keys,
 * Home/End) over one remote pane per tab. Each tab's pane stays mounted while another is shown, so it keeps its own
 * folder, selection, Back/Forward history, filter and listing (switching lists nothing again; a pane reloads on the
 * usual triggers: F5, a job into its folder finishing, a change it made). A tab names its site and folder and shows
 * its session's state; its close button, a middle click or Delete (on the focused tab) closes it, and its menu
 * (right-click, Shift+F10) has Duplicate tab, Close tab and Close other tabs. Window keys:
 * Ctrl+Tab / Ctrl+Shift+Tab (and Ctrl+PageDown / Ctrl+PageUp) switch, Ctrl+T (⌘T) opens the shown tab again, Ctrl+W
 * (⌘W) closes it.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { displayText } from '../../app/common/displayText';
import type { SessionStatus } from '../../app/common/ipc/contract';
import type { SiteView } from '../../app/common/model/site';
import { isMacPlatform } from '../format/paneKeys';
import { useAppState } from '../state/react';
import { tabLabel, tabStatus, type RemoteTab, type RemoteTabs as Tabs } from '../state/remoteTabs';
import { ContextMenu } from './ContextMenu';
import type { TabActions } from './useRemoteTabs';

export interface RemoteTabsProps {
  tabs: Tabs;
  actions: TabActions;
  siteById: (id: string) => SiteView | undefined;
  /** One tab's pane (shown or not: hidden ones stay mounted). */
  pane: (tab: RemoteTab) => React.ReactNode;
  /** The pane shown when no tab is open. */
  empty: React.ReactNode;
}

/** A tab's label, state and title (the full path). */
function describe(tab: RemoteTab, site: SiteView | undefined, status: SessionStatus | undefined) {
  const label = tabLabel(site?.name ?? status?.siteName ?? tab.siteId, tab.path);
  const state = tabStatus(status?.state, tab.path !== null);
  const where = site ? `${site.user}@${site.host}:${site.port}` : '';
  const title = [tab.path === null ? where : `${where}${displayText(tab.path, Infinity)}`, state].join(' — ');
  return { label, state, title };
}

/** Ctrl+Tab, Ctrl+Shift+Tab, Ctrl+PageUp/PageDown, Ctrl+T and Ctrl+W on the window (not while a dialog is open). */
function useTabKeys(tabs: Tabs, actions: TabActions, focusShownPane: () => void) {
  useEffect(() => {
    const mac = isMacPlatform();
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey || document.querySelector('[aria-modal="true"]')) return;
      const mod = mac ? e.metaKey : e.ctrlKey;
      let run: (() => void) | null = null;
      if (e.ctrlKey && (e.key === 'Tab' || e.key === 'PageDown' || e.key === 'PageUp')) {
        const back = e.key === 'PageUp' || (e.key === 'Tab' && e.shiftKey);
        run = () => {
          actions.cycle(back ? -1 : 1);
          focusShownPane();
        };
      } else if (mod && !e.shiftKey && e.key.toLowerCase() === 't') run = actions.duplicate;
      else if (mod && !e.shiftKey && e.key.toLowerCase() === 'w' && tabs.activeId) {
        const id = tabs.activeId;
        run = () => {
          actions.close(id);
          focusShownPane();
        };
      }
      if (!run || tabs.tabs.length === 0) return;
      e.preventDefault();
      run();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [tabs, actions, focusShownPane]);
}

/** One tab: its label and state (the role="tab" button) and its close button; a middle click closes it. */
function TabItem(p: {
  tab: RemoteTab;
  shown: boolean;
  d: ReturnType<typeof describe>;
  actions: TabActions;
  onKeyDown: (e: React.KeyboardEvent) => void;
  onMenu: (x: number, y: number) => void;
}) {
  const { tab, shown, d, actions } = p;
  const mac = isMacPlatform();
  return (
    <div
      className={`remote-tab${shown ? ' active' : ''}`}
      role="presentation"
      onMouseDown={(e) => e.button === 1 && e.preventDefault()}
      onAuxClick={(e) => e.button === 1 && actions.close(tab.id)}
      onContextMenu={(e) => {
        e.preventDefault();
        p.onMenu(e.clientX, e.clientY);
      }}
    >
      <button
        type="button"
        role="tab"
        id={tab.id}
        aria-selected={shown}
        aria-controls={`${tab.id}-panel`}
        aria-label={`${d.label}, ${d.state}`}
        data-status={d.state}
        tabIndex={shown ? 0 : -1}
        title={d.title}
        onClick={() => actions.activate(tab.id)}
        onKeyDown={p.onKeyDown}
      >
        <span className={`tab-dot tab-${d.state.replace(' ', '-')}`} aria-hidden="true" />
        <span className="tab-label">{d.label}</span>
        {d.state !== 'connected' && <span className="tab-state">{d.state}</span>}
      </button>
      <button
        type="button"
        className="tab-close"
        tabIndex={-1}
        aria-label={`Close ${d.label}`}
        title={`Close this tab (${mac ? '⌘W' : 'Ctrl+W'}; a middle click)`}
        onClick={() => actions.close(tab.id)}
      >
        ×
      </button>
    </div>
  );
}

/** A tab's context menu: the tab again (same site and folder), Close, Close other tabs. */
function TabMenu(p: { id: string; x: number; y: number; count: number; actions: TabActions; onClose: () => void }) {
  const { id, actions } = p;
  const mac = isMacPlatform();
  return (
    <ContextMenu
      label="Tab menu"
      x={p.x}
      y={p.y}
      items={[
        {
          id: 'duplicate',
          label: 'Duplicate tab',
          shortcut: mac ? '⌘T' : 'Ctrl+T',
          run: () => {
            actions.activate(id);
            actions.duplicate();
          },
        },
        { id: 'close', label: 'Close tab', shortcut: mac ? '⌘W' : 'Ctrl+W', run: () => actions.close(id) },
        { id: 'others', label: 'Close other tabs', disabled: p.count < 2, run: () => actions.closeOthers(id) },
      ]}
      onClose={p.onClose}
    />
  );
}

/** The strip's keys on a focused tab: arrows, Home and End move (and show), Delete closes, Shift+F10 the menu. */
function stripKeys(tabs: Tabs, actions: TabActions, focusTab: (id: string) => void, menuAt: (id: string) => void) {
  return (e: React.KeyboardEvent, at: number) => {
    const n = tabs.tabs.length;
    const id = tabs.tabs[at].id;
    if (e.key === 'ContextMenu' || (e.shiftKey && e.key === 'F10')) {
      e.preventDefault();
      return menuAt(id);
    }
    if (e.key === 'Delete') {
      e.preventDefault();
      const next = tabs.tabs[at + 1] ?? tabs.tabs[at - 1];
      actions.close(id);
      if (next) focusTab(next.id);
      return;
    }
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: n - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    const target = tabs.tabs[(to + n) % n].id;
    actions.activate(target);
    focusTab(target);
  };
}

/** The strip: one tab per session view, its close button, its menu, and the new-tab button. */
function TabStrip({ tabs, actions, siteById }: Pick<RemoteTabsProps, 'tabs' | 'actions' | 'siteById'>) {
  const sessions = useAppState((s) => s.sessions);
  const strip = useRef<HTMLDivElement>(null);
  const [menu, setMenu] = useState<{ id: string; x: number; y: number } | null>(null);
  const mac = isMacPlatform();
  const focusTab = (id: string) => strip.current?.querySelector<HTMLElement>(`#${id}`)?.focus();
  const menuAt = (id: string) => {
    const box = strip.current?.querySelector<HTMLElement>(`#${id}`)?.getBoundingClientRect();
    if (box) setMenu({ id, x: box.left + 12, y: box.bottom });
  };
  const onKeyDown = stripKeys(tabs, actions, focusTab, menuAt);
  // A strip wider than the pane scrolls: the tab shown (Ctrl+Tab, a new tab) is kept in view.
  useEffect(() => {
    if (!tabs.activeId) return;
    // The tab with its close button (the role="tab" button's wrapper).
    strip.current
      ?.querySelector<HTMLElement>(`#${tabs.activeId}`)
      ?.parentElement?.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
  }, [tabs.activeId]);
  return (
    <div className="remote-tabbar" ref={strip}>
      <div className="remote-tabs" role="tablist" aria-label="Remote sessions">
        {tabs.tabs.map((tab, at) => (
          <TabItem
            key={tab.id}
            tab={tab}
            shown={tab.id === tabs.activeId}
            d={describe(tab, siteById(tab.siteId), sessions[tab.siteId])}
            actions={actions}
            onKeyDown={(e) => onKeyDown(e, at)}
            onMenu={(x, y) => setMenu({ id: tab.id, x, y })}
          />
        ))}
      </div>
      <button
        type="button"
        className="tab-new"
        aria-label="Duplicate tab"
        title={`The shown tab again: same site, same folder (${mac ? '⌘T' : 'Ctrl+T'})`}
        disabled={!tabs.activeId}
        onClick={actions.duplicate}
      >
        +
      </button>
      {menu && (
        <TabMenu
          {...menu}
          count={tabs.tabs.length}
          actions={actions}
          onClose={() => {
            setMenu(null);
            if (tabs.tabs.some((t) => t.id === menu.id)) focusTab(menu.id);
          }}
        />
      )}
    </div>
  );
}

/** The tab strip and the tabs' panes (only the shown one visible). */
export function RemoteTabs(p: RemoteTabsProps) {
  const { tabs, actions } = p;
  const panels = useRef<HTMLDivElement>(null);
  /** Set by a window key that switched or closed tabs: the shown pane's grid takes the focus once it is shown. */
  const focusPending = useRef(false);
  const focusShownPane = useCallback(() => {
    focusPending.current = true;
  }, []);
  useEffect(() => {
    if (!focusPending.current) return;
    focusPending.current = false;
    panels.current?.querySelector<HTMLElement>('.remote-tab-panel:not([hidden]) [role="grid"]')?.focus();
  }, [tabs.activeId]);
  useTabKeys(tabs, actions, focusShownPane);
  return (
    <div className="remote-side">
      {tabs.tabs.length > 0 && <TabStrip tabs={tabs} actions={actions} siteById={p.siteById} />}
      <div className="remote-tab-panels" ref={panels}>
        {tabs.tabs.length === 0 && p.empty}
        {tabs.tabs.map((tab) => (
          <div
            key={tab.id}
            id={`${tab.id}-panel`}
            className="remote-tab-panel"
            role="tabpanel"
            aria-labelledby={tab.id}
            hidden={tab.id !== tabs.activeId}
          >
            {p.pane(tab)}
          </div>
        ))}
      </div>
    </div>
  );
}
