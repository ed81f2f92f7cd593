/** What a file pane (FilePane.tsx) is given: its folder, how to list and change it, and what it offers. */
import type { FsEntry, Listing } from '../../app/common/ipc/contract';
import type { Result } from '../../app/common/ipc/result';
import type { PaneTransfer } from './paneMenu';
import type { PaneDrag } from './usePaneDragDrop';
import type { PaneFileOps } from './usePaneFileOps';
import type { PaneCompare } from './useFolderCompare';
import type { PaneReveal } from './usePaneReveal';

export interface FilePaneProps {
  side: 'local' | 'remote';
  title: string;
  /** Current folder, or null when the pane has nothing to show (remote not connected). */
  path: string | null;
  placeholder: string;
  sep: '/' | '\\';
  /** Changes whenever the pane should reload (e.g. a transfer into this folder finished). */
  reloadToken: string;
  list: (path: string) => Promise<Result<Listing>>;
  mkdir: (path: string) => Promise<Result<void>>;
  rename: (from: string, to: string) => Promise<Result<void>>;
  remove: (path: string, recursive: boolean) => Promise<Result<void>>;
  /** Sets the pane's current folder: called with the resolved path once a folder was listed (never for a failure). */
  onNavigate: (path: string) => void;
  /** Items dragged from the other pane were dropped here, into `targetDir`. */
  onPaneDrop: (drag: PaneDrag, targetDir: string) => void;
  /** Files from the OS dropped here (only when `acceptOsFiles`). */
  onOsDrop?: (files: File[], targetDir: string) => void;
  acceptOsFiles?: boolean;
  /** Upload (local pane) or Download (remote pane) of the selection: button, menu item and key. */
  transfer?: PaneTransfer;
  /** Edits a remote file in a local editor (the remote pane's Edit entry and F4); absent: no Edit. */
  edit?: (path: string) => void;
  onError: (message: string) => void;
  /** A line for the log (e.g. the path copied). */
  onInfo?: (message: string) => void;
  /** The Properties dialog of an entry (its path here, and its row), from the menu or Alt+Enter; absent: none. */
  properties?: (path: string, entry: FsEntry) => void;
  /** Move, cut and paste, duplicate, new file, new symlink, open with (#26 item 6); absent: none of them. */
  fileOps?: PaneFileOps;
  /** The pane's rows dragged out of the window (remote: fetched, then given to the OS drag); absent: nothing. */
  dragOut?: (paths: string[]) => void;
  /** Compare's marks and "differences only" (#27), while Compare is on. */
  compare?: PaneCompare;
  /** Hears the pane's listing (null while it shows nothing), for Compare. */
  onListing?: (listing: Listing | null) => void;
  /** Controls of the owner in the action bar (bookmarks, synchronized browsing, find). */
  headerTools?: React.ReactNode;
  /** A row to select once its folder is listed (the find's Go to). */
  reveal?: PaneReveal;
  /** Opens the remote find (menu, F3, Ctrl+F); absent: none. */
  find?: () => void;
}
