/**
 * A file pane's listing: fetched when the folder or the reload token changes, with its loading flag and error text;
 * `reload` fetches it again (F5, after an edit).
 */
import { useCallback, useEffect, useState } from 'react';
import type { Listing } from '../../app/common/ipc/contract';
import type { Result } from '../../app/common/ipc/result';

/** What {@link usePaneListing} returns. */
export interface PaneListing {
  listing: Listing | null;
  loading: boolean;
  /** The server's or the disk's message when the last listing failed. */
  error: string | null;
  reload: () => Promise<void>;
}

/**
 * @param path the folder to list, or null (nothing to show)
 * @param list the bridge's listing call for this pane's side
 * @param reloadToken any change lists again (e.g. a transfer into this folder finished)
 */
export function usePaneListing(path: string | null, list: (path: string) => Promise<Result<Listing>>, reloadToken: string): PaneListing {
  const [listing, setListing] = useState<Listing | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const reload = useCallback(async () => {
    if (path === null) {
      setListing(null);
      return;
    }
    setLoading(true);
    const r = await list(path);
    setLoading(false);
    if (r.ok) {
      setListing(r.value);
      setError(null);
    } else {
      setError(r.error.message);
    }
  }, [path, list]);

  useEffect(() => {
    void reload();
  }, [reload, reloadToken]);

  return { listing, loading, error, reload };
}
