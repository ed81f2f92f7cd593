/**
 * What AppPanes shows of Compare and Synchronize… (#27): the bar over the panes, each pane's compare props, and the
 * dialog while it is open (only with a connected site and both panes' folders).
 */
import { useState } from 'react';
import { isMacPlatform } from '../format/paneKeys';
import { CompareBar } from './CompareBar';
import { SyncDialog } from './SyncDialog';
import { useFolderCompare } from './useFolderCompare';

export function useCompareSync(o: {
  connected: boolean;
  siteId: string;
  localPath: string | null;
  remotePath: string | null;
  onInfo: (message: string) => void;
}) {
  const [syncOpen, setSyncOpen] = useState(false);
  const { localPath, remotePath } = o;
  const canSync = o.connected && localPath !== null && remotePath !== null;
  const openSync = canSync ? () => setSyncOpen(true) : undefined;
  const mac = isMacPlatform();
  const compare = useFolderCompare(mac, openSync);
  const bar = <CompareBar compare={compare} mac={mac} onSynchronize={openSync} />;
  const dialog = syncOpen && canSync && (
    <SyncDialog
      siteId={o.siteId}
      localPath={localPath}
      remotePath={remotePath}
      onClose={() => setSyncOpen(false)}
      onQueued={o.onInfo}
    />
  );
  return { compare, bar, dialog };
}
