/**
 * A file pane's drag and drop: rows drag their paths out (the selection, or the row alone when it is outside the
 * selection), the pane and its folder rows accept drags from the other pane and, when `acceptOsFiles`, files from the
 * OS; its folder rows also take the pane's own rows (a move, `onMove`). `dropActive` lights the pane while a drag it
 * would take is over it.
 */
import { useState } from 'react';
import type { FsEntry } from '../../app/common/ipc/contract';
import { select, type Selection } from '../format/entries';
import { joinLocal } from '../../app/common/localPaths';

/** MIME type of pane-to-pane drags. */
export const PANE_DRAG_TYPE = 'application/x-sluice-paths';

/** The drag's side as a type of its own: types (not data) can be read while the drag is over a row. */
const sideType = (side: 'local' | 'remote') => `application/x-sluice-side-${side}`;

/** Payload of a pane-to-pane drag. */
export interface PaneDrag {
  side: 'local' | 'remote';
  paths: string[];
}

/** What the pane tells {@link usePaneDragDrop}. */
export interface PaneDragDropOptions {
  side: 'local' | 'remote';
  /** The pane's folder, or null when it shows nothing (then nothing is accepted). */
  path: string | null;
  cwd: string;
  sep: '/' | '\\';
  sel: Selection;
  order: readonly string[];
  setSel: (s: Selection) => void;
  acceptOsFiles?: boolean;
  onPaneDrop: (drag: PaneDrag, targetDir: string) => void;
  onOsDrop?: (files: File[], targetDir: string) => void;
  /** The pane's own rows dropped on one of its folder rows (a move into `targetDir`); absent: refused. */
  onMove?: (paths: string[], targetDir: string) => void;
  /** A drag of this pane's rows started or ended (the remote pane's drag out of the window: views/useDragOut.ts). */
  onDragOutStart?: (paths: string[]) => void;
}

/** The pane's drag and drop handlers and whether a drop would land on it now. */
export function usePaneDragDrop(o: PaneDragDropOptions) {
  const [dropActive, setDropActive] = useState(false);
  const { side, cwd, sep, sel, order } = o;

  const own = (e: React.DragEvent) => e.dataTransfer.types.includes(sideType(side));
  const canAccept = (e: React.DragEvent) =>
    o.path !== null &&
    !own(e) &&
    (e.dataTransfer.types.includes(PANE_DRAG_TYPE) || (!!o.acceptOsFiles && e.dataTransfer.types.includes('Files')));
  /** A folder row takes what the pane takes, and the pane's own rows as a move. */
  const dirAccepts = (e: React.DragEvent) => canAccept(e) || (o.path !== null && !!o.onMove && own(e));

  const dragStart = (e: React.DragEvent, entry: FsEntry) => {
    const names = sel.selected.has(entry.name) ? order.filter((n) => sel.selected.has(n)) : [entry.name];
    if (!sel.selected.has(entry.name)) o.setSel(select(sel, order, entry.name, 'replace'));
    const drag: PaneDrag = { side, paths: names.map((n) => joinLocal(cwd, n, sep)) };
    e.dataTransfer.setData(PANE_DRAG_TYPE, JSON.stringify(drag));
    e.dataTransfer.setData('text/plain', drag.paths.join('\n'));
    e.dataTransfer.setData(sideType(side), '');
    e.dataTransfer.effectAllowed = 'copyMove';
    o.onDragOutStart?.(drag.paths);
  };

  const drop = (e: React.DragEvent, targetDir: string, onRow = false) => {
    setDropActive(false);
    if (!(onRow ? dirAccepts(e) : canAccept(e))) return;
    e.preventDefault();
    e.stopPropagation();
    const raw = e.dataTransfer.getData(PANE_DRAG_TYPE);
    if (raw) {
      const drag = JSON.parse(raw) as PaneDrag;
      if (drag.side !== side) o.onPaneDrop(drag, targetDir);
      else o.onMove?.(drag.paths, targetDir);
      return;
    }
    if (o.acceptOsFiles && e.dataTransfer.files.length > 0 && o.onOsDrop) {
      o.onOsDrop([...e.dataTransfer.files], targetDir);
    }
  };

  /** A drag over a folder row: accepted (preventDefault) when the pane would take it. */
  const dirDragOver = (e: React.DragEvent) => {
    if (dirAccepts(e)) {
      e.preventDefault();
      e.dataTransfer.dropEffect = own(e) ? 'move' : 'copy';
    }
  };

  /** The pane element's own drag events. */
  const paneDropProps = {
    onDragOver: (e: React.DragEvent) => {
      if (canAccept(e)) {
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
        setDropActive(true);
      }
    },
    onDragLeave: () => setDropActive(false),
    onDrop: (e: React.DragEvent) => drop(e, cwd),
  };

  return { dropActive, dragStart, drop, dirDragOver, paneDropProps };
}
