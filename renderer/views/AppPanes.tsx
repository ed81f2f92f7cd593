/**
 * The window's two file panes: local (uploads its selection, takes the remote pane's drags as downloads) and remote
 * (downloads its selection, takes the local pane's drags and files from the OS as uploads), each reloaded when a job
 * into its folder finishes.
 */
import { useCallback, useMemo, useState } from 'react';
import type { FsEntry, SessionStatus } from '../../app/common/ipc/contract';
import type { QueueState } from '../../app/common/queue/reducer';
import { plural, sessionStateText } from '../format/format';
import { isMacPlatform, paneKeyLabels } from '../format/paneKeys';
import { useAppState, useBridge, useStore } from '../state/react';
import { FilePane, type PaneDrag } from './FilePane';
import { PropertiesDialog } from './PropertiesDialog';
import { usePaneNavTools } from './PaneNavTools';

/** A pane reloads when a job into its folder finishes: the token counts such jobs. */
function reloadToken(queue: QueueState, dir: string | null): string {
  if (dir === null) return '0';
  let n = 0;
  for (const id of queue.order) {
    const j = queue.byId[id];
    if (j.dest === dir && (j.state === 'done' || j.state === 'failed')) n++;
  }
  return String(n);
}

/** What the remote pane says while it has no listing. */
function remotePlaceholder(status: SessionStatus | undefined): string {
  if (status?.state === 'connecting') return 'Connecting…';
  if (status?.state === 'reconnecting') return `Connection lost: ${sessionStateText(status)}…`;
  return 'Select a site and press Connect.';
}

export interface AppPanesProps {
  activeSiteId: string | null;
  status: SessionStatus | undefined;
  localPath: string | null;
  setLocalPath: (p: string) => void;
  remotePath: string | null;
  setRemotePath: (p: string) => void;
  onError: (message: string) => void;
  onInfo: (message: string) => void;
}

/** The remote pane's Properties dialog: which path it shows, and how many times Apply changed something. */
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

/** What the panes put in the queue: a selection or a pane-to-pane drop, and files dropped from the OS. */
function usePaneQueueing(activeSiteId: string | null | undefined) {
  const store = useStore();
  const bridge = useBridge();
  const enqueue = async (direction: 'upload' | 'download', sources: string[], dest: string) => {
    if (!activeSiteId || sources.length === 0) return;
    const r = await bridge.queueEnqueue({ siteId: activeSiteId, direction, sources, dest });
    if (!r.ok) store.localLog('error', `Queueing ${plural(sources.length, 'item')} failed: ${r.error.message}`);
  };
  const osDrop = (files: File[], dir: string) => {
    const paths = files.map((f) => bridge.pathForFile(f)).filter((path) => path !== '');
    if (paths.length < files.length) {
      store.localLog('warn', `${plural(files.length - paths.length, 'dropped item')} without a local path ignored`);
    }
    void enqueue('upload', paths, dir);
  };
  return { enqueue, osDrop };
}

/** The local and the remote pane. */
export function AppPanes(p: AppPanesProps) {
  const bridge = useBridge();
  const queue = useAppState((s) => s.queue);
  const { activeSiteId, status, localPath, remotePath } = p;
  const siteId = activeSiteId ?? '';
  const connected = status?.state === 'connected';
  const keyLabels = paneKeyLabels(isMacPlatform());
  // Only until the first local listing, which carries the engine's separator (FilePane prefers it).
  const sep: '/' | '\\' = localPath?.includes('\\') ? '\\' : '/';
  const localToken = useMemo(() => reloadToken(queue, localPath), [queue, localPath]);
  const remoteToken = useMemo(() => reloadToken(queue, remotePath), [queue, remotePath]);
  const listLocal = useCallback((path: string) => bridge.localList({ path }), [bridge]);
  const properties = usePropertiesDialog(siteId, connected);
  const listRemote = useCallback(
    (path: string) => bridge.remoteList({ siteId: activeSiteId ?? '', path }),
    [bridge, activeSiteId],
  );

  const tools = usePaneNavTools({ ...p, siteId: activeSiteId, connected, localSep: sep, listLocal, listRemote });
  const { enqueue, osDrop } = usePaneQueueing(activeSiteId);
  const upload = connected && remotePath ? (paths: string[]) => void enqueue('upload', paths, remotePath) : undefined;
  const download = connected && localPath ? (paths: string[]) => void enqueue('download', paths, localPath) : undefined;
  const edit = (path: string) =>
    void bridge.editOpen({ siteId, path }).then((r) => {
      if (!r.ok) p.onError(`Edit ${path} failed: ${r.error.message}`);
    });

  return (
    <div className="panes">
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
        onPaneDrop={(drag: PaneDrag, dir) => void enqueue('download', drag.paths, dir)}
        transfer={{ label: 'Upload', shortcut: keyLabels.upload, run: upload }}
        onError={p.onError}
        onInfo={p.onInfo}
      />
      <FilePane
        side="remote"
        title="Remote"
        path={connected ? remotePath : null}
        placeholder={remotePlaceholder(status)}
        sep="/"
        reloadToken={`${remoteToken}:${properties.applied}`}
        list={listRemote}
        mkdir={(path) => bridge.remoteMkdir({ siteId, path })}
        rename={(from, to) => bridge.remoteRename({ siteId, from, to })}
        remove={(path, recursive) => bridge.remoteRemove({ siteId, path, recursive })}
        {...tools.remotePane}
        onPaneDrop={(drag: PaneDrag, dir) => void enqueue('upload', drag.paths, dir)}
        acceptOsFiles
        onOsDrop={osDrop}
        transfer={{ label: 'Download', shortcut: keyLabels.download, run: download }}
        edit={edit}
        onError={p.onError}
        onInfo={p.onInfo}
        properties={properties.open}
      />
      {properties.dialog}
      {tools.dialog}
    </div>
  );
}
