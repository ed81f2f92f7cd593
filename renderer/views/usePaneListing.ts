/**
 * A file pane's listing and its one current folder. A folder becomes current only once it is listed: `navigate` lists
 * first and then commits the folder the server or the disk resolved (through `commit`, the owner's setter), so a
 * folder that fails to open leaves the pane where it was, its listing shown, with the error beside it. A folder set
 * from outside (a site's remote folder at connect) is listed the same way; if it fails while the pane shows a listing
 * of the same source, the owner's value is put back to the folder shown. `reload` lists the current folder again (F5,
 * after an edit, a finished transfer).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Listing } from '../../app/common/ipc/contract';
import type { Result } from '../../app/common/ipc/result';

/** What {@link usePaneListing} returns. */
export interface PaneListing {
  /** The listing shown: always of the pane's current folder (`listing.path`). */
  listing: Listing | null;
  loading: boolean;
  /** The server's or the disk's message when the last listing failed (the current folder did not change). */
  error: string | null;
  reload: () => Promise<void>;
  /**
   * Lists `target` and makes it the current folder when that worked (true); else keeps the folder and shows the error
   * (false, also when a later navigation superseded it).
   */
  navigate: (target: string) => Promise<boolean>;
  /** Shows a message in the pane's error line (cleared by the next listing), e.g. a broken link opened. */
  showError: (message: string) => void;
}

/**
 * @param path the owner's current folder, or null (nothing to show)
 * @param list the bridge's listing call for this pane's side (a new function = a new source, e.g. another site)
 * @param reloadToken any change lists again (e.g. a transfer into this folder finished)
 * @param commit sets the owner's current folder (called with the resolved path of a successful listing)
 */
export function usePaneListing(
  path: string | null,
  list: (path: string) => Promise<Result<Listing>>,
  reloadToken: string,
  commit: (path: string) => void,
): PaneListing {
  const [listing, setListing] = useState<Listing | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** The listing shown and the source it came from (read by callbacks without re-creating them). */
  const shown = useRef<{ listing: Listing; list: typeof list } | null>(null);
  /** Counts fetches: an answer to an older one is dropped (the user moved on meanwhile). */
  const seq = useRef(0);

  /** Lists `target`; on success shows it and commits its path. Returns false when it failed or was superseded. */
  const fetch = useCallback(
    async (target: string): Promise<boolean> => {
      const n = ++seq.current;
      setLoading(true);
      const r = await list(target);
      if (n !== seq.current) return false;
      setLoading(false);
      if (!r.ok) {
        setError(r.error.message);
        return false;
      }
      shown.current = { listing: r.value, list };
      setListing(r.value);
      setError(null);
      commit(r.value.path);
      return true;
    },
    [list, commit],
  );

  useEffect(() => {
    if (path === null) {
      seq.current++;
      shown.current = null;
      setListing(null);
      setError(null);
      setLoading(false);
      return;
    }
    const before = shown.current;
    if (before && before.list === list && before.listing.path === path) return;
    const n = seq.current + 1;
    void fetch(path).then((ok) => {
      // Superseded by a later listing (the user or synchronized browsing moved on): that one decides the folder.
      if (ok || seq.current !== n) return;
      if (before && before.list === list) commit(before.listing.path);
      else if (before) {
        shown.current = null;
        setListing(null);
      }
    });
  }, [path, list, fetch, commit]);

  const reload = useCallback(async () => {
    const target = shown.current?.list === list ? shown.current.listing.path : path;
    if (target !== null) await fetch(target);
  }, [fetch, list, path]);

  const lastToken = useRef(reloadToken);
  useEffect(() => {
    if (lastToken.current === reloadToken) return;
    lastToken.current = reloadToken;
    void reload();
  }, [reloadToken, reload]);

  return { listing, loading, error, reload, navigate: fetch, showError: setError };
}
