/** A site's directory bookmarks (`bookmarks.*`): listed when the site changes, the list the answers carry kept. */
import { useCallback, useEffect, useState } from 'react';
import type { BookmarkSide, SiteBookmark } from '../../app/common/ipc/bookmarks';
import { displayText } from '../../app/common/displayText';
import { useBridge } from '../state/react';

/** The bookmarks of `siteId` (null: no site, or not listed yet), and adding and removing one. */
export function useSiteBookmarks(siteId: string | null, onError: (message: string) => void) {
  const bridge = useBridge();
  const [bookmarks, setBookmarks] = useState<SiteBookmark[] | null>(null);
  useEffect(() => {
    setBookmarks(null);
    if (!siteId) return;
    let live = true;
    void bridge.bookmarksList({ siteId }).then((r) => live && setBookmarks(r.ok ? r.value : []));
    return () => {
      live = false;
    };
  }, [bridge, siteId]);
  const change = useCallback(
    (what: 'add' | 'remove', side: BookmarkSide, path: string) => {
      if (!siteId) return;
      const call = what === 'add' ? bridge.bookmarksAdd : bridge.bookmarksRemove;
      void call({ siteId, side, path }).then((r) => {
        if (r.ok) setBookmarks(r.value);
        else onError(`Bookmark ${displayText(path)}: ${r.error.message}`);
      });
    },
    [bridge, siteId, onError],
  );
  return {
    bookmarks,
    add: (side: BookmarkSide, path: string) => change('add', side, path),
    remove: (side: BookmarkSide, path: string) => change('remove', side, path),
  };
}
