/**
 * The rows of a file pane's grid, virtualized (@tanstack/react-virtual, as the queue): only the rows in view plus a
 * few above and below are in the DOM, between two spacer rows that keep the scroll height, so a folder of 20,000
 * entries scrolls as smoothly as one of 20. The focused row is scrolled into view when the keyboard moves it.
 */
import { useEffect, type RefObject } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { FsEntry } from '../../app/common/ipc/contract';
import { formatBytes, formatDate } from '../format/format';
import { ownerText, type Selection } from '../format/entries';
import { modeString } from '../../app/common/fileMode';
import { Icon } from './Icon';
import { displayText } from '../../app/common/displayText';
import type { CompareStatus } from '../../app/common/folderCompare';
import { CompareGlyph } from './CompareBar';

/** Height of a file row, px (the CSS's `table.files tbody tr`). */
export const FILE_ROW_HEIGHT = 26;

/** What a row does with the pointer and drag and drop (the pane's handlers). */
export interface RowHandlers {
  onClick: (entry: FsEntry, e: React.MouseEvent) => void;
  onDoubleClick: (entry: FsEntry) => void;
  onContextMenu: (entry: FsEntry, e: React.MouseEvent) => void;
  onDragStart: (entry: FsEntry, e: React.DragEvent) => void;
  /** A drag over a folder row: accept it (preventDefault) when the pane would take it. */
  onDirDragOver: (e: React.DragEvent) => void;
  onDirDrop: (entry: FsEntry, e: React.DragEvent) => void;
  /** Whether the row was cut (Ctrl+X) and waits to be pasted: shown dimmed. */
  isCut?: (name: string) => boolean;
}

export interface FileRowsProps {
  entries: readonly FsEntry[];
  sel: Selection;
  /** The scrolling element around the table. */
  scrollRef: RefObject<HTMLDivElement | null>;
  /** Index of the focused entry to keep in view, or -1. */
  focusIndex: number;
  handlers: RowHandlers;
  /** The Permissions and Owner columns (the remote pane). */
  ownership?: boolean;
  /** Compare's mark of each entry by name (#27), while Compare is on. */
  marks?: ReadonlyMap<string, CompareStatus>;
}

/** The tooltip of a link's name: where it points, and whether that is missing. */
export function linkTitle(entry: FsEntry): string | undefined {
  if (!entry.link) return undefined;
  return entry.link.broken
    ? `Broken link to ${entry.link.target || 'an unreadable target'}`
    : `Link to ${entry.link.target}`;
}

/** One row: name with its icon (a link: the target's, marked), size, modification date; permissions and owner. */
function FileRow({
  entry,
  index,
  selected,
  focused,
  h,
  ownership,
  mark,
}: {
  entry: FsEntry;
  index: number;
  selected: boolean;
  focused: boolean;
  h: RowHandlers;
  ownership: boolean;
  mark?: CompareStatus;
}) {
  const isDir = entry.type === 'dir';
  const broken = entry.link?.broken === true;
  return (
    <tr
      aria-selected={selected}
      aria-label={entry.name}
      aria-rowindex={index + 2}
      data-index={index}
      data-type={entry.type}
      data-link={entry.link ? (broken ? 'broken' : 'ok') : undefined}
      data-compare={mark}
      className={focused ? 'focused' : undefined}
      data-cut={h.isCut?.(entry.name) ? 'true' : undefined}
      draggable
      onDragStart={(e) => h.onDragStart(entry, e)}
      onDragOver={isDir ? h.onDirDragOver : undefined}
      onDrop={isDir ? (e) => h.onDirDrop(entry, e) : undefined}
      onClick={(e) => h.onClick(entry, e)}
      onDoubleClick={() => h.onDoubleClick(entry)}
      onContextMenu={(e) => h.onContextMenu(entry, e)}
    >
      <td role="gridcell" title={linkTitle(entry)}>
        {mark && <CompareGlyph status={mark} />}
        <Icon name={isDir ? 'folder' : entry.type === 'symlink' ? 'link' : 'file'} />
        {displayText(entry.name, Infinity)}
        {entry.link && !broken && <Icon name="link" className="link-mark" />}
      </td>
      <td role="gridcell" className={broken ? 'num error-text' : 'num'}>
        {broken ? 'broken link' : isDir ? '' : formatBytes(entry.size)}
      </td>
      <td role="gridcell">{formatDate(entry.mtimeMs)}</td>
      {ownership && (
        <>
          <td role="gridcell" className="mode">
            {entry.mode === undefined ? '' : modeString(entry.mode, entry.type)}
          </td>
          <td role="gridcell" className="owner">
            {displayText(ownerText(entry), 70)}
          </td>
        </>
      )}
    </tr>
  );
}

/**
 * Scrolls the least that shows row `index` whole, below the sticky header (rows sit under the header in the table, at
 * `header + index * FILE_ROW_HEIGHT`); nothing when it is already in view, so a click never moves the row it hit.
 */
function scrollIntoView(el: HTMLElement, index: number): void {
  const header = el.querySelector('thead')?.getBoundingClientRect().height ?? 0;
  const top = header + index * FILE_ROW_HEIGHT;
  const bottom = top + FILE_ROW_HEIGHT;
  if (top - header < el.scrollTop) el.scrollTop = top - header;
  else if (bottom > el.scrollTop + el.clientHeight) el.scrollTop = bottom - el.clientHeight;
}

/** Stands for the rows out of view (a cell, so every engine gives the row its height). */
function Spacer({ height, columns }: { height: number; columns: number }) {
  return (
    <tr aria-hidden="true" className="spacer">
      <td colSpan={columns} style={{ height, padding: 0 }} />
    </tr>
  );
}

/** The grid's body: spacer, the rows in view, spacer. */
export function FileRows(props: FileRowsProps) {
  const { entries, sel, scrollRef, focusIndex, handlers, ownership = false, marks } = props;
  const virtualizer = useVirtualizer({
    count: entries.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => FILE_ROW_HEIGHT,
    getItemKey: (i) => entries[i].name,
    overscan: 12,
  });

  useEffect(() => {
    const el = scrollRef.current;
    if (el && focusIndex >= 0 && focusIndex < entries.length) scrollIntoView(el, focusIndex);
  }, [focusIndex, entries.length, scrollRef]);

  const items = virtualizer.getVirtualItems();
  const top = items.length ? items[0].start : 0;
  const bottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1].end : 0;
  return (
    <tbody data-rendered={items.length}>
      {top > 0 && <Spacer height={top} columns={ownership ? 5 : 3} />}
      {items.map((it) => {
        const entry = entries[it.index];
        return (
          <FileRow
            key={it.key}
            entry={entry}
            index={it.index}
            selected={sel.selected.has(entry.name)}
            focused={sel.focus === entry.name}
            h={handlers}
            ownership={ownership}
            mark={marks?.get(entry.name)}
          />
        );
      })}
      {bottom > 0 && <Spacer height={bottom} columns={ownership ? 5 : 3} />}
    </tbody>
  );
}
