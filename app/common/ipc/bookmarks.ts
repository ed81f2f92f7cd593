/**
 * Directory bookmarks of a saved site (#26 item 3): folders of the remote pane (and of the local pane) kept with the
 * site, listed in the pane header's Bookmarks menu. `bookmarks.list`, `bookmarks.add` and `bookmarks.remove` answer
 * the site's bookmarks as they now are.
 */
import { z } from 'zod';

/** Bookmarks one site keeps at most per side. */
export const MAX_BOOKMARKS_PER_SIDE = 200;

export const BOOKMARK_SIDES = ['remote', 'local'] as const;
export type BookmarkSide = (typeof BOOKMARK_SIDES)[number];

const id = z.string().min(1).max(200);

export const bookmarksListSchema = z.strictObject({ siteId: id });
export const bookmarkSchema = z.strictObject({
  siteId: id,
  side: z.enum(BOOKMARK_SIDES),
  /** The folder, as the pane shows it (remote: the path the server resolved; local: the disk's). */
  path: z.string().min(1).max(4096),
});

/** One bookmark: a folder of one side. */
export interface SiteBookmark {
  side: BookmarkSide;
  path: string;
}

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
