/**
 * What AppPanes shows of Compare, Synchronize… and Keep remote up to date… (#27): the bar over the panes, each pane's
 * compare props, and the dialog while one is open (only with a connected site and both panes' folders).
 */
import { useState } from 'react';
import { isMacPlatform } from '../format/paneKeys';
import { CompareBar } from './CompareBar';
import { KeepUpDialog } from './KeepUpDialog';
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
  const [keepUpOpen, setKeepUpOpen] = useState(false);
  const { localPath, remotePath } = o;
  const canSync = o.connected && localPath !== null && remotePath !== null;
  const openSync = canSync ? () => setSyncOpen(true) : undefined;
  const mac = isMacPlatform();
  const compare = useFolderCompare(mac, openSync);
  const openKeepUp = canSync ? () => setKeepUpOpen(true) : undefined;
  const bar = <CompareBar compare={compare} mac={mac} onSynchronize={openSync} onKeepUp={openKeepUp} />;
  const dialog = syncOpen && canSync && (
    <SyncDialog
      siteId={o.siteId}
      localPath={localPath}
      remotePath={remotePath}
      onClose={() => setSyncOpen(false)}
      onQueued={o.onInfo}
    />
  );
  const keepUp = keepUpOpen && canSync && (
    <KeepUpDialog
      siteId={o.siteId}
      localPath={localPath}
      remotePath={remotePath}
      onClose={() => setKeepUpOpen(false)}
      onStarted={o.onInfo}
    />
  );
  return { compare, bar, dialog: dialog || keepUp };
}
