/** The panes' file operations (views/usePaneFileOps.ts) over the bridge: the local disk's, and a site's. */
import type { Bridge } from '../../app/common/ipc/contract';
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
