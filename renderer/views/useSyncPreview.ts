/**
 * Synchronize…'s state (#27): the options, the preview the service built (`sync.preview`, cancellable by
 * `sync.cancel`), the unticked items (state/syncSelection.ts), and Run (`sync.run`: the previewed plan less the
 * unticked paths, one batch in the queue).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { SyncPreview } from '../../app/common/ipc/contract';
import type { SyncCompareMode } from '../../app/common/ipc/syncIpc';
import { useBridge } from '../state/react';

/** What the dialog's form sets. */
export interface SyncOptions {
  direction: 'upload' | 'download';
  compare: SyncCompareMode;
  delete: boolean;
  /** Globs, one per line: excludes are checked first, then includes (with any include, other files are left out). */
  include: string;
  exclude: string;
}

export const DEFAULT_SYNC_OPTIONS: SyncOptions = {
  direction: 'upload',
  compare: 'size-time',
  delete: false,
  include: '',
  exclude: '',
};

/** The filter rules of the form, in the order they are checked (sync/filters.ts: the first match decides). */
export function filterRules(o: SyncOptions): Array<{ kind: 'include' | 'exclude'; pattern: string }> {
  const globs = (text: string) =>
    text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '');
  return [
    ...globs(o.exclude).map((pattern) => ({ kind: 'exclude' as const, pattern })),
    ...globs(o.include).map((pattern) => ({ kind: 'include' as const, pattern })),
  ];
}

let previews = 0;

/**
 * @param siteId the connected site; `localPath` and `remotePath` the panes' folders
 * @param onQueued after Run queued the batch (the dialog closes)
 */
export function useSyncPreview(
  siteId: string,
  localPath: string,
  remotePath: string,
  onQueued: (message: string) => void,
) {
  const bridge = useBridge();
  const [options, setOptions] = useState<SyncOptions>(DEFAULT_SYNC_OPTIONS);
  const [preview, setPreview] = useState<SyncPreview | null>(null);
  /** The options the preview was built with (a change asks for a new preview before Run). */
  const [previewed, setPreviewed] = useState<SyncOptions | null>(null);
  const [unticked, setUnticked] = useState<Set<string>>(new Set());
  const [listing, setListing] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const current = useRef<string | null>(null);
  const start = useCallback(async () => {
    const previewId = `sync-${Date.now()}-${++previews}`;
    current.current = previewId;
    setListing(previewId);
    setError(null);
    const asked = options;
    const r = await bridge.syncPreview({
      siteId,
      previewId,
      direction: asked.direction,
      localPath,
      remotePath,
      compare: asked.compare,
      delete: asked.delete,
      rules: filterRules(asked),
    });
    if (current.current !== previewId) return;
    setListing(null);
    if (!r.ok) return setError(r.error.message);
    setPreview(r.value);
    setPreviewed(asked);
    setUnticked(new Set());
  }, [bridge, siteId, localPath, remotePath, options]);
  const cancel = useCallback(() => {
    if (listing) void bridge.syncCancel({ previewId: listing });
  }, [bridge, listing]);
  // The dialog closing stops a preview still listing.
  useEffect(() => () => void (current.current && bridge.syncCancel({ previewId: current.current })), [bridge]);
  const stale = preview !== null && previewed !== options;
  const run = async () => {
    if (!preview || stale) return;
    setRunning(true);
    const r = await bridge.syncRun({ siteId, previewId: preview.previewId, leaveOut: [...unticked] });
    setRunning(false);
    if (!r.ok) return setError(r.error.message);
    onQueued(`Synchronize: ${r.value.copies} copies and ${r.value.deletions} deletions queued as one batch`);
  };
  return { options, setOptions, preview, unticked, setUnticked, listing, error, running, stale, start, cancel, run };
}

export type SyncPreviewState = ReturnType<typeof useSyncPreview>;
