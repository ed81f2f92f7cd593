/**
 * A saved site's directory bookmarks (#26 item 3) in the sites database (`site_bookmarks`, migration 5 of
 * stores/sites.ts): removed with their site (ON DELETE CASCADE), in the order they were added.
 */
import type Database from 'better-sqlite3';
import { MAX_BOOKMARKS_PER_SIDE, type BookmarkSide, type SiteBookmark } from '../../common/model/bookmark';
import { SluiceError } from '../errors';

/** The table, created by the sites store's migration 5. */
export const SITE_BOOKMARKS_TABLE = `CREATE TABLE site_bookmarks (
  site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  side TEXT NOT NULL CHECK (side IN ('remote', 'local')),
  path TEXT NOT NULL,
  added_at INTEGER NOT NULL,
  PRIMARY KEY (site_id, side, path)
);`;

/** The bookmarks of the saved sites, over the sites store's open database. */
export class SiteBookmarks {
  constructor(
    private readonly db: Database.Database,
    private readonly clock: () => number,
  ) {}

  /** A site's bookmarks, remote ones first, each side in the order added. */
  list(siteId: string): SiteBookmark[] {
    return this.db
      .prepare(
        `SELECT side, path FROM site_bookmarks WHERE site_id = ?
         ORDER BY CASE side WHEN 'remote' THEN 0 ELSE 1 END, added_at, rowid`,
      )
      .all(siteId) as SiteBookmark[];
  }

  /**
   * Adds a folder (again: nothing changes).
   * @throws SluiceError NOT_FOUND when the site is not saved (an unsaved quick-connect site keeps none);
   *   INVALID_REQUEST past {@link MAX_BOOKMARKS_PER_SIDE}
   */
  add(siteId: string, side: BookmarkSide, folder: string): void {
    if (!this.db.prepare('SELECT 1 FROM sites WHERE id = ?').get(siteId))
      throw new SluiceError('NOT_FOUND', 'Bookmarks are kept with a saved site: save this site first');
    const { n } = this.db
      .prepare('SELECT count(*) AS n FROM site_bookmarks WHERE site_id = ? AND side = ?')
      .get(siteId, side) as { n: number };
    if (n >= MAX_BOOKMARKS_PER_SIDE)
      throw new SluiceError('INVALID_REQUEST', `A site keeps at most ${MAX_BOOKMARKS_PER_SIDE} ${side} bookmarks`);
    this.db
      .prepare('INSERT OR IGNORE INTO site_bookmarks (site_id, side, path, added_at) VALUES (?, ?, ?, ?)')
      .run(siteId, side, folder, this.clock());
  }

  /** Removes one; false when the site had no such bookmark. */
  remove(siteId: string, side: BookmarkSide, folder: string): boolean {
    return (
      this.db
        .prepare('DELETE FROM site_bookmarks WHERE site_id = ? AND side = ? AND path = ?')
        .run(siteId, side, folder).changes > 0
    );
  }

  /** Gives `to` the bookmarks of `from` (a duplicated or imported site), as many as fit. */
  copy(from: SiteBookmark[], to: string): void {
    for (const b of from) {
      try {
        this.add(to, b.side, b.path);
      } catch {
        /* past the bound: the rest are left out */
      }
    }
  }
}
