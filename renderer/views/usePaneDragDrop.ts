/**
 * A file pane's drag and drop: rows drag their paths out (the selection, or the row alone when it is outside the
 * selection), the pane and its folder rows accept drags from the other pane and, when `acceptOsFiles`, files from the
 * OS. `dropActive` lights the pane while a drag it would take is over it.
 */
import { useState } from 'react';
import type { FsEntry } from '../../app/common/ipc/contract';
import { select, type Selection } from '../format/entries';
import { joinLocal } from '../../app/common/localPaths';

/** MIME type of pane-to-pane drags. */
export const PANE_DRAG_TYPE = 'application/x-sluice-paths';

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
}

/** The pane's drag and drop handlers and whether a drop would land on it now. */
export function usePaneDragDrop(o: PaneDragDropOptions) {
  const [dropActive, setDropActive] = useState(false);
  const { side, cwd, sep, sel, order } = o;

  const canAccept = (e: React.DragEvent) =>
    o.path !== null &&
    (e.dataTransfer.types.includes(PANE_DRAG_TYPE) || (!!o.acceptOsFiles && e.dataTransfer.types.includes('Files')));

  const dragStart = (e: React.DragEvent, entry: FsEntry) => {
    const names = sel.selected.has(entry.name) ? order.filter((n) => sel.selected.has(n)) : [entry.name];
    if (!sel.selected.has(entry.name)) o.setSel(select(sel, order, entry.name, 'replace'));
    const drag: PaneDrag = { side, paths: names.map((n) => joinLocal(cwd, n, sep)) };
    e.dataTransfer.setData(PANE_DRAG_TYPE, JSON.stringify(drag));
    e.dataTransfer.setData('text/plain', drag.paths.join('\n'));
    e.dataTransfer.effectAllowed = 'copy';
  };

  const drop = (e: React.DragEvent, targetDir: string) => {
    setDropActive(false);
    if (!canAccept(e)) return;
    e.preventDefault();
    e.stopPropagation();
    const raw = e.dataTransfer.getData(PANE_DRAG_TYPE);
    if (raw) {
      const drag = JSON.parse(raw) as PaneDrag;
      if (drag.side !== side) o.onPaneDrop(drag, targetDir);
      return;
    }
    if (o.acceptOsFiles && e.dataTransfer.files.length > 0 && o.onOsDrop) {
      o.onOsDrop([...e.dataTransfer.files], targetDir);
    }
  };

  /** A drag over a folder row: accepted (preventDefault) when the pane would take it. */
  const dirDragOver = (e: React.DragEvent) => {
    if (canAccept(e)) {
      e.preventDefault();
      e.dataTransfer.dropEffect = 'copy';
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
