/**
 * A pane's Bookmarks button (#26 item 3): a menu with "Bookmark this folder" (or "Remove this folder's bookmark"
 * when it is one) and the site's bookmarks of this side, each going there. Paths are shown escaped (a remote one is
 * the server's text).
 */
import { useRef, useState } from 'react';
import type { BookmarkSide, SiteBookmark } from '../../app/common/ipc/bookmarks';
import { displayText } from '../../app/common/displayText';
import { ContextMenu, type MenuItem } from './ContextMenu';

export interface BookmarksMenuProps {
  title: string;
  side: BookmarkSide;
  /** The folder shown, or null (nothing to bookmark). */
  cwd: string | null;
  /** The site's bookmarks (both sides), or null when there is no site. */
  bookmarks: readonly SiteBookmark[] | null;
  add: (side: BookmarkSide, path: string) => void;
  remove: (side: BookmarkSide, path: string) => void;
  go: (path: string) => void;
}

/** The menu's items: add or remove the current folder, then each bookmark of this side. */
export function bookmarkItems(p: BookmarksMenuProps): MenuItem[] {
  const mine = (p.bookmarks ?? []).filter((b) => b.side === p.side);
  const cwd = p.cwd;
  const marked = cwd !== null && mine.some((b) => b.path === cwd);
  const items: MenuItem[] = [
    marked
      ? { id: 'remove', label: "Remove this folder's bookmark", run: () => p.remove(p.side, cwd) }
      : { id: 'add', label: 'Bookmark this folder', disabled: cwd === null, run: () => cwd && p.add(p.side, cwd) },
  ];
  mine.forEach((b, i) =>
    items.push({ id: `b${i}`, label: displayText(b.path, 120), run: () => p.go(b.path), separator: i === 0 }),
  );
  if (mine.length === 0) items.push({ id: 'none', label: 'No bookmarks yet', disabled: true, run: () => undefined });
  return items;
}

/** The button and its menu. */
export function BookmarksMenu(p: BookmarksMenuProps) {
  const [at, setAt] = useState<{ x: number; y: number } | null>(null);
  const button = useRef<HTMLButtonElement>(null);
  return (
    <>
      <button
        ref={button}
        type="button"
        aria-label={`${p.title}: bookmarks`}
        aria-haspopup="menu"
        aria-expanded={at !== null}
        title="Bookmarks of this site's folders"
        disabled={p.bookmarks === null}
        onClick={(e) => {
          const r = e.currentTarget.getBoundingClientRect();
          setAt(at ? null : { x: r.left, y: r.bottom });
        }}
      >
        ★
      </button>
      {at && (
        <ContextMenu
          label={`${p.title} bookmarks`}
          x={at.x}
          y={at.y}
          items={bookmarkItems(p)}
          onClose={() => {
            setAt(null);
            button.current?.focus();
          }}
        />
      )}
    </>
  );
}
