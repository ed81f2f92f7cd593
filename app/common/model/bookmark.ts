/**
 * A saved site's directory bookmarks (#26 item 3), without the channels' schemas (app/common/ipc/bookmarks.ts): the
 * stores and the CLI's path to them load no zod.
 */

/** Bookmarks one site keeps at most per side. */
export const MAX_BOOKMARKS_PER_SIDE = 200;

export const BOOKMARK_SIDES = ['remote', 'local'] as const;
export type BookmarkSide = (typeof BOOKMARK_SIDES)[number];

/** One bookmark: a folder of one side. */
export interface SiteBookmark {
  side: BookmarkSide;
  path: string;
}
