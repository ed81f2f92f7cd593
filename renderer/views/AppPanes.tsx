/**
 * The window's two file panes: local (uploads its selection, takes the remote pane's drags as downloads) and remote
 * (views/RemoteTabs.tsx: one pane per tab, each on its tab's site and folder; each downloads its selection and takes
 * the local pane's drags and files from the OS as uploads into its own folder), each reloaded when a job into its
 * folder finishes. What acts on "the remote side" acts on the shown tab's site and folder.
 */
import { useCallback, useMemo, useState } from 'react';
import type { Bridge, FsEntry, SessionStatus } from '../../app/common/ipc/contract';
import type { SiteView } from '../../app/common/model/site';
import type { QueueState } from '../../app/common/queue/reducer';
import { plural, sessionStateText } from '../format/format';
import { isMacPlatform, paneKeyLabels } from '../format/paneKeys';
import { useAppState, useBridge, useStore } from '../state/react';
import type { RemoteTab, RemoteTabs as Tabs } from '../state/remoteTabs';
import { FilePane, type FilePaneProps, type PaneDrag } from './FilePane';
import { PropertiesDialog } from './PropertiesDialog';
import { RemoteTabs } from './RemoteTabs';
import type { TabActions } from './useRemoteTabs';
import { localFileOps, remoteDragOut, remoteFileOps } from './paneFileOpsOf';
import { useCompareSync } from './useCompareSync';
import { useKeepUpTouches } from './useKeepUps';
import { usePaneNavTools } from './PaneNavTools';

/**
 * A pane reloads when a job into its folder finishes: its token counts such jobs. One pass over the queue counts them
 * for every pane: by destination (the local pane) and by site and destination (a remote tab's pane).
 */
function finishedJobs(queue: QueueState): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const id of queue.order) {
    const j = queue.byId[id];
    if (j.state !== 'done' && j.state !== 'failed') continue;
    add(j.dest);
    add(`${j.siteId}\n${j.dest}`);
  }
  return counts;
}

/** The reload token of a pane in `dir` (of `siteId`'s for a remote pane). */
function reloadToken(finished: Map<string, number>, dir: string | null, siteId?: string): string {
  if (dir === null) return '0';
  return String(finished.get(siteId === undefined ? dir : `${siteId}\n${dir}`) ?? 0);
}

/** What the remote pane says while it has no listing. */
function remotePlaceholder(status: SessionStatus | undefined): string {
  if (status?.state === 'connecting') return 'Connecting…';
  if (status?.state === 'reconnecting') return `Connection lost: ${sessionStateText(status)}…`;
  return 'Select a site and press Connect.';
}

export interface AppPanesProps {
  /** The shown tab's site (the local pane's Upload and drops go there), its session and folder. */
  activeSiteId: string | null;
  status: SessionStatus | undefined;
  localPath: string | null;
  setLocalPath: (p: string) => void;
  remotePath: string | null;
  tabs: Tabs;
  tabActions: TabActions;
  siteById: (id: string) => SiteView | undefined;
  onError: (message: string) => void;
  onInfo: (message: string) => void;
}

/** A remote pane's Properties dialog: which path it shows, and how many times Apply changed something. */
function usePropertiesDialog(siteId: string, connected: boolean) {
  const [shown, setShown] = useState<{ path: string; entry: FsEntry } | null>(null);
  const [applied, setApplied] = useState(0);
  const dialog = shown !== null && connected && (
    <PropertiesDialog
      siteId={siteId}
      path={shown.path}
      listed={shown.entry}
      onClose={() => setShown(null)}
      onApplied={() => setApplied((n) => n + 1)}
    />
  );
  const open = (path: string, entry: FsEntry) => setShown({ path, entry });
  return { open: connected ? open : undefined, applied, dialog };
}

/** What the panes put in the queue (for a site): a selection or a pane-to-pane drop, and files dropped from the OS. */
function usePaneQueueing() {
  const store = useStore();
  const bridge = useBridge();
  const enqueue = useCallback(
    async (siteId: string | null, direction: 'upload' | 'download', sources: string[], dest: string) => {
      if (!siteId || sources.length === 0) return;
      const r = await bridge.queueEnqueue({ siteId, direction, sources, dest });
      if (!r.ok) store.localLog('error', `Queueing ${plural(sources.length, 'item')} failed: ${r.error.message}`);
    },
    [bridge, store],
  );
  const osDrop = useCallback(
    (siteId: string, files: File[], dir: string) => {
      const paths = files.map((f) => bridge.pathForFile(f)).filter((path) => path !== '');
      if (paths.length < files.length) {
        store.localLog('warn', `${plural(files.length - paths.length, 'dropped item')} without a local path ignored`);
      }
      void enqueue(siteId, 'upload', paths, dir);
    },
    [bridge, store, enqueue],
  );
  return { enqueue, osDrop };
}

interface RemotePaneProps {
  /** The tab, or null for the pane shown while no tab is open. */
  tab: RemoteTab | null;
  status: SessionStatus | undefined;
  localPath: string | null;
  /** Finished jobs by destination (finishedJobs): the pane's reload token. */
  finished: Map<string, number>;
  setPath: (id: string, path: string) => void;
  queueing: ReturnType<typeof usePaneQueueing>;
  onError: (message: string) => void;
  onInfo: (message: string) => void;
  /**
   * The shown tab's pane only: Compare's marks and the listing it hears, and the navigation tools (PaneNavTools.tsx:
   * its navigation followed by synchronized browsing, Bookmarks, Find and the find's Go to).
   */
  shown?: Pick<FilePaneProps, 'compare' | 'onListing' | 'onNavigate' | 'headerTools' | 'reveal' | 'find'>;
}

/** One tab's remote pane: its site's listing, file commands, transfers and Properties, in its own folder. */
function RemotePane(props: RemotePaneProps) {
  const { tab, status, localPath, finished, setPath, queueing, onError, onInfo } = props;
  const bridge = useBridge();
  const siteId = tab?.siteId ?? '';
  const remotePath = tab?.path ?? null;
  const connected = status?.state === 'connected';
  const keyLabels = paneKeyLabels(isMacPlatform());
  const token = reloadToken(finished, remotePath, siteId);
  const properties = usePropertiesDialog(siteId, connected);
  const list = useCallback((path: string) => bridge.remoteList({ siteId, path }), [bridge, siteId]);
  const tabId = tab?.id;
  const onNavigate = useCallback((path: string) => tabId && setPath(tabId, path), [tabId, setPath]);
  const { enqueue, osDrop } = queueing;
  const download =
    connected && localPath ? (paths: string[]) => void enqueue(siteId, 'download', paths, localPath) : undefined;
  const edit = (path: string) =>
    void bridge.editOpen({ siteId, path }).then((r) => {
      if (!r.ok) onError(`Edit ${path} failed: ${r.error.message}`);
    });
  return (
    <>
      <FilePane
        side="remote"
        title="Remote"
        path={connected ? remotePath : null}
        placeholder={remotePlaceholder(status)}
        sep="/"
        reloadToken={`${token}:${properties.applied}`}
        list={list}
        mkdir={(path) => bridge.remoteMkdir({ siteId, path })}
        rename={(from, to) => bridge.remoteRename({ siteId, from, to })}
        remove={(path, recursive) => bridge.remoteRemove({ siteId, path, recursive })}
        onNavigate={onNavigate}
        onPaneDrop={(drag: PaneDrag, dir) => void enqueue(siteId, 'upload', drag.paths, dir)}
        acceptOsFiles
        onOsDrop={(files, dir) => osDrop(siteId, files, dir)}
        transfer={{ label: 'Download', shortcut: keyLabels.download, run: download }}
        edit={edit}
        fileOps={remoteFileOps(bridge, siteId)}
        dragOut={connected ? remoteDragOut(bridge, siteId, onInfo, onError) : undefined}
        onError={onError}
        onInfo={onInfo}
        properties={properties.open}
        {...props.shown}
      />
      {properties.dialog}
    </>
  );
}

/** The panes' navigation tools (PaneNavTools.tsx) for the local pane and the shown tab's. */
function useShownTabTools(
  p: AppPanesProps,
  connected: boolean,
  localSep: '/' | '\\',
  listLocal: (path: string) => ReturnType<Bridge['localList']>,
) {
  const bridge = useBridge();
  const activeTabId = p.tabs.activeId;
  const siteId = p.activeSiteId;
  const { setPath } = p.tabActions;
  const setRemotePath = useCallback(
    (path: string) => activeTabId && setPath(activeTabId, path),
    [activeTabId, setPath],
  );
  const listRemote = useCallback((path: string) => bridge.remoteList({ siteId: siteId ?? '', path }), [bridge, siteId]);
  return usePaneNavTools({ ...p, siteId, connected, localSep, listLocal, listRemote, setRemotePath });
}

/** The local pane and the remote tabs. */
export function AppPanes(p: AppPanesProps) {
  const bridge = useBridge();
  const queue = useAppState((s) => s.queue);
  const sessions = useAppState((s) => s.sessions);
  const { activeSiteId, status, localPath, remotePath } = p;
  const connected = status?.state === 'connected';
  const keyLabels = paneKeyLabels(isMacPlatform());
  const cs = useCompareSync({ connected, siteId: activeSiteId ?? '', localPath, remotePath, onInfo: p.onInfo });
  // Only until the first local listing, which carries the engine's separator (FilePane prefers it).
  const sep: '/' | '\\' = localPath?.includes('\\') ? '\\' : '/';
  const touched = useKeepUpTouches();
  const finished = useMemo(() => {
    const counts = finishedJobs(queue);
    for (const [k, n] of touched) counts.set(k, (counts.get(k) ?? 0) + n);
    return counts;
  }, [queue, touched]);
  const localToken = reloadToken(finished, localPath);
  const listLocal = useCallback((path: string) => bridge.localList({ path }), [bridge]);
  const queueing = usePaneQueueing();
  const { enqueue } = queueing;
  const upload =
    connected && remotePath ? (paths: string[]) => void enqueue(activeSiteId, 'upload', paths, remotePath) : undefined;
  const activeTabId = p.tabs.activeId;
  const tools = useShownTabTools(p, connected, sep, listLocal);
  const remote = (tab: RemoteTab | null) => (
    <RemotePane
      tab={tab}
      status={tab ? sessions[tab.siteId] : undefined}
      localPath={localPath}
      finished={finished}
      setPath={p.tabActions.setPath}
      queueing={queueing}
      onError={p.onError}
      onInfo={p.onInfo}
      shown={
        (tab?.id ?? null) === activeTabId
          ? { compare: cs.compare.remotePane, onListing: cs.compare.onRemoteListing, ...tools.remotePane }
          : undefined
      }
    />
  );

  return (
    <div className="panes with-compare-bar">
      {cs.bar}
      <FilePane
        side="local"
        title="Local"
        path={localPath}
        placeholder="Loading…"
        sep={sep}
        reloadToken={localToken}
        list={listLocal}
        mkdir={(path) => bridge.localMkdir({ path })}
        rename={(from, to) => bridge.localRename({ from, to })}
        remove={(path, recursive) => bridge.localRemove({ path, recursive })}
        {...tools.localPane}
        onPaneDrop={(drag: PaneDrag, dir) => void enqueue(activeSiteId, 'download', drag.paths, dir)}
        transfer={{ label: 'Upload', shortcut: keyLabels.upload, run: upload }}
        fileOps={localFileOps(bridge)}
        onError={p.onError}
        onInfo={p.onInfo}
        compare={cs.compare.localPane}
        onListing={cs.compare.onLocalListing}
      />
      <RemoteTabs tabs={p.tabs} actions={p.tabActions} siteById={p.siteById} pane={remote} empty={remote(null)} />
      {cs.dialog}
      {tools.dialog}
    </div>
  );
}
