/**
 * The panes' navigation tools beyond the path (#26 items 3 and 5), owned by whoever holds the two panes' folders (one
 * set per tab): each pane's Bookmarks menu (the site's bookmarks of that side), the remote pane's Synchronized
 * browsing toggle and Find button, the Find dialog and its Go to (the remote pane opens the folder and selects the
 * row), and the panes' navigation callbacks that synchronized browsing follows.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Listing } from '../../app/common/ipc/contract';
import type { Result } from '../../app/common/ipc/result';
import type { PathSep } from '../state/syncBrowsing';
import { isMacPlatform, paneKeyLabels } from '../format/paneKeys';
import { BookmarksMenu } from './BookmarksMenu';
import { FindDialog } from './FindDialog';
import type { PaneReveal } from './usePaneReveal';
import { useSiteBookmarks } from './useSiteBookmarks';
import { useSyncBrowsing } from './useSyncBrowsing';

export interface PaneNavToolsInput {
  siteId: string | null;
  connected: boolean;
  localPath: string | null;
  remotePath: string | null;
  localSep: PathSep;
  listLocal: (path: string) => Promise<Result<Listing>>;
  listRemote: (path: string) => Promise<Result<Listing>>;
  setLocalPath: (p: string) => void;
  setRemotePath: (p: string) => void;
  onError: (message: string) => void;
}

/** The toggle button (remote pane's action bar). */
function SyncBrowsingToggle({ sync }: { sync: ReturnType<typeof useSyncBrowsing> }) {
  return (
    <button
      type="button"
      aria-label="Synchronized browsing"
      aria-pressed={sync.on}
      title="Synchronized browsing: the other pane follows into the matching folder"
      className={sync.on ? 'pressed' : undefined}
      disabled={!sync.on && !sync.canToggle}
      onClick={sync.toggle}
    >
      ⇄
    </button>
  );
}

/** The tools, the dialog, and what the panes' props take. */
export function usePaneNavTools(o: PaneNavToolsInput) {
  const marks = useSiteBookmarks(o.siteId, o.onError);
  const sync = useSyncBrowsing(o);
  const [finding, setFinding] = useState(false);
  const [reveal, setReveal] = useState<PaneReveal>();
  const seq = useRef(0);
  const remoteCwd = o.connected ? o.remotePath : null;
  const find = remoteCwd !== null ? () => setFinding(true) : undefined;
  const { setLocalPath, setRemotePath } = o;
  const { localMoved, remoteMoved, reset } = sync;
  // The pair belongs to one session: another site, or the connection gone, ends it.
  useEffect(reset, [o.siteId, o.connected, reset]);
  const onLocalNavigate = useCallback(
    (path: string) => {
      setLocalPath(path);
      localMoved(path);
    },
    [setLocalPath, localMoved],
  );
  const onRemoteNavigate = useCallback(
    (path: string) => {
      setRemotePath(path);
      remoteMoved(path);
    },
    [setRemotePath, remoteMoved],
  );
  const menu = { bookmarks: o.siteId ? marks.bookmarks : null, add: marks.add, remove: marks.remove };
  const localTools = <BookmarksMenu title="Local" side="local" cwd={o.localPath} go={setLocalPath} {...menu} />;
  const remoteTools = (
    <>
      <BookmarksMenu
        title="Remote"
        side="remote"
        cwd={remoteCwd}
        go={setRemotePath}
        {...menu}
        bookmarks={remoteCwd !== null ? menu.bookmarks : null}
      />
      <SyncBrowsingToggle sync={sync} />
      <button
        type="button"
        aria-label="Remote: find"
        title={`Find files below this folder (${paneKeyLabels(isMacPlatform()).find})`}
        disabled={!find}
        onClick={find}
      >
        ⌕
      </button>
    </>
  );
  const dialog = finding && remoteCwd !== null && o.siteId && (
    <FindDialog
      siteId={o.siteId}
      root={remoteCwd}
      onClose={() => setFinding(false)}
      onGoTo={(dir, name) => {
        setFinding(false);
        setReveal({ dir, name, seq: ++seq.current });
        setRemotePath(dir);
      }}
    />
  );
  return {
    /** The local pane's props: its navigation (followed by synchronized browsing) and its Bookmarks menu. */
    localPane: { onNavigate: onLocalNavigate, headerTools: localTools },
    /** The remote pane's: its navigation, Bookmarks, Sync and Find, the find's Go to and its key. */
    remotePane: { onNavigate: onRemoteNavigate, headerTools: remoteTools, reveal, find },
    dialog,
  };
}
