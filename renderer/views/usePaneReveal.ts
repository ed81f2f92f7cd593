/**
 * "Go to" a row from outside the pane (the remote find's results): once the pane lists the folder asked for, the
 * named row is selected and focused (FileRows scrolls it into view). The folder asked for is the path as the find
 * walked it; the server may resolve it to another (a symlinked folder), so the first listing after the request counts
 * too.
 */
import { useEffect, useRef } from 'react';
import type { Listing } from '../../app/common/ipc/contract';
import { emptySelection, select, type Selection } from '../format/entries';

/** A row to show: `seq` changes for each request (the same row twice is two requests). */
export interface PaneReveal {
  dir: string;
  name: string;
  seq: number;
}

/** Selects `reveal.name` in the first listing of `reveal.dir` (or the first listing after the request). */
export function usePaneReveal(
  reveal: PaneReveal | undefined,
  listing: Listing | null,
  order: readonly string[],
  setSel: (s: Selection) => void,
): void {
  const asked = useRef<{ seq: number; listing: Listing | null } | null>(null);
  const done = useRef(-1);
  useEffect(() => {
    if (!reveal || done.current === reveal.seq) return;
    if (asked.current?.seq !== reveal.seq) asked.current = { seq: reveal.seq, listing };
    if (!listing || (listing.path !== reveal.dir && listing === asked.current.listing)) return;
    done.current = reveal.seq;
    if (order.includes(reveal.name)) setSel(select(emptySelection, order, reveal.name, 'replace'));
  }, [reveal, listing, order, setSel]);
}
