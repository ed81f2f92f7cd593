/** The panes' file operations (views/usePaneFileOps.ts) over the bridge: the local disk's, and a site's. */
import type { Bridge } from '../../app/common/ipc/contract';
import { plural } from '../format/format';
import type { PaneFileOps } from './usePaneFileOps';

/** The local pane's: local.rename (a move), local.duplicate, local.newFile, local.symlink, local.open. */
export function localFileOps(bridge: Bridge): PaneFileOps {
  return {
    move: (from, to, overwrite) => bridge.localRename({ from, to, overwrite }),
    duplicate: (path) => bridge.localDuplicate({ path }),
    newFile: (path) => bridge.localNewFile({ path }),
    symlink: (target, path) => bridge.localSymlink({ target, path }),
    openWith: (path) => bridge.localOpen({ path }),
  };
}

/** The remote pane's, on site `siteId`: remote.rename (a move), remote.duplicate, remote.newFile, remote.symlink. */
export function remoteFileOps(bridge: Bridge, siteId: string): PaneFileOps {
  return {
    move: (from, to, overwrite) => bridge.remoteRename({ siteId, from, to, overwrite }),
    duplicate: (path) => bridge.remoteDuplicate({ siteId, path }),
    newFile: (path) => bridge.remoteNewFile({ siteId, path }),
    symlink: (target, path) => bridge.remoteSymlink({ siteId, target, path }),
  };
}

/**
 * The remote pane's drag out of the window: `drag.out` (a small selection fetched through the queue, whose row shows
 * the progress, then given to the OS drag; a larger one queued into a folder the user picks), told in the log.
 */
export function remoteDragOut(
  bridge: Bridge,
  siteId: string,
  onInfo: (m: string) => void,
  onError: (m: string) => void,
): (paths: string[]) => void {
  return (paths) => {
    onInfo(`Fetching ${plural(paths.length, 'item')} for the drag out of the window…`);
    void bridge.dragOut({ siteId, paths }).then((r) => {
      if (!r.ok) return onError(`Dragging out failed: ${r.error.message}`);
      const v = r.value;
      if (v.kind === 'files') onInfo(`Dragging out ${plural(v.count, 'file')}: drop them on the desktop or a folder`);
      else if (v.kind === 'queued') onInfo(`Too large to drag out: queued as a download into ${v.dest}`);
    });
  };
}
