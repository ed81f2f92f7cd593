/**
 * Directory bookmarks of a saved site (#26 item 3): folders of the remote pane (and of the local pane) kept with the
 * site, listed in the pane header's Bookmarks menu. `bookmarks.list`, `bookmarks.add` and `bookmarks.remove` answer
 * the site's bookmarks as they now are.
 */
import { z } from 'zod';
import { BOOKMARK_SIDES, type SiteBookmark } from '../model/bookmark';

export { BOOKMARK_SIDES, MAX_BOOKMARKS_PER_SIDE, type BookmarkSide, type SiteBookmark } from '../model/bookmark';

const id = z.string().min(1).max(200);

export const bookmarksListSchema = z.strictObject({ siteId: id });
export const bookmarkSchema = z.strictObject({
  siteId: id,
  side: z.enum(BOOKMARK_SIDES),
  /** The folder, as the pane shows it (remote: the path the server resolved; local: the disk's). */
  path: z.string().min(1).max(4096),
});

/** The channels (app/common/ipc/contract.ts): each answers the site's bookmarks as they now are. */
export const bookmarkInvokeSchemas = {
  'bookmarks.list': bookmarksListSchema,
  'bookmarks.add': bookmarkSchema,
  'bookmarks.remove': bookmarkSchema,
} as const;

export interface BookmarkResponses {
  'bookmarks.list': SiteBookmark[];
  'bookmarks.add': SiteBookmark[];
  'bookmarks.remove': SiteBookmark[];
}
