/**
 * A file pane's file operations (#26 item 6): moves (a drop of the pane's own rows on one of its folder rows, or Cut
 * then Paste into another folder), an existing target asked (overwrite / skip / cancel), a folder into itself refused
 * with a message before anything is sent; duplicate, new file, new symlink and (local) open with the default
 * application. Each failure goes to `onError` with the server's or the disk's message.
 */
import { useState } from 'react';
import type { FsEntry } from '../../app/common/ipc/contract';
import type { DuplicateResult } from '../../app/common/ipc/fileOps';
import type { Result } from '../../app/common/ipc/result';
import { joinLocal } from '../../app/common/localPaths';
import { plural } from '../format/format';
import type { MoveConflictChoice, PaneModal } from './paneModal';

/** How a pane's file operations reach the engine (AppPanes: the bridge's local.* or remote.* channels). */
export interface PaneFileOps {
  /** A move of `from` to the full path `to`; EXISTS when `to` exists and not `overwrite`. */
  move: (from: string, to: string, overwrite: boolean) => Promise<Result<void>>;
  duplicate: (path: string) => Promise<Result<DuplicateResult>>;
  newFile: (path: string) => Promise<Result<void>>;
  symlink: (target: string, path: string) => Promise<Result<void>>;
  /** The local pane: the file in the system's default application. */
  openWith?: (path: string) => Promise<Result<void>>;
}

export type { MoveConflictChoice } from './paneModal';

/** What the pane tells {@link usePaneFileOps}. */
export interface PaneFileOpsOptions {
  ops?: PaneFileOps;
  cwd: string;
  sep: '/' | '\\';
  selectedEntries: readonly FsEntry[];
  reload: () => Promise<void>;
  setModal: (m: PaneModal) => void;
  onError: (message: string) => void;
  onInfo?: (message: string) => void;
}

/** The last name of a path. */
function baseName(p: string, sep: string): string {
  const trimmed = p.length > 1 && p.endsWith(sep) ? p.slice(0, -1) : p;
  return trimmed.slice(trimmed.lastIndexOf(sep) + 1);
}

/** Whether `dir` is `folder` or below it. */
export function isInside(folder: string, dir: string, sep: string): boolean {
  return dir === folder || dir.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/**
 * Moves `paths` into the folder `dir`, one at a time: a folder into itself refused with a message, an existing target
 * asked (`ask`). @returns how many moved
 */
async function moveAll(
  ops: PaneFileOps,
  paths: readonly string[],
  dir: string,
  sep: '/' | '\\',
  ask: (from: string, to: string) => Promise<MoveConflictChoice>,
  onError: (message: string) => void,
): Promise<number> {
  let moved = 0;
  for (const from of paths) {
    const name = baseName(from, sep);
    const to = joinLocal(dir, name, sep);
    if (to === from) continue;
    if (isInside(from, dir, sep)) {
      onError(`Cannot move ${name} into itself`);
      continue;
    }
    let r = await ops.move(from, to, false);
    if (!r.ok && r.error.code === 'EXISTS') {
      const choice = await ask(from, to);
      if (choice === 'cancel') break;
      if (choice === 'skip') continue;
      r = await ops.move(from, to, true);
    }
    if (r.ok) moved++;
    else onError(`Moving ${name} failed: ${r.error.message}`);
  }
  return moved;
}

/** The pane's moves, cut and paste, duplicate, new file, new symlink and open with. */
export function usePaneFileOps(o: PaneFileOpsOptions) {
  const { ops, cwd, sep, setModal, onError } = o;
  const [clip, setClip] = useState<{ paths: string[]; from: string } | null>(null);
  const ask = (from: string, to: string) =>
    new Promise<MoveConflictChoice>((resolve) =>
      setModal({
        kind: 'moveConflict',
        from,
        to,
        answer: (c) => {
          setModal(null);
          resolve(c);
        },
      }),
    );

  const moveInto = async (paths: readonly string[], dir: string) => {
    if (!ops) return;
    const moved = await moveAll(ops, paths, dir, sep, ask, onError);
    if (moved > 0) o.onInfo?.(`Moved ${plural(moved, 'item')} to ${dir}`);
    await o.reload();
  };

  const selectedPaths = () => o.selectedEntries.map((e) => joinLocal(cwd, e.name, sep));
  const cut = () => {
    if (!ops || o.selectedEntries.length === 0) return;
    setClip({ paths: selectedPaths(), from: cwd });
    o.onInfo?.(`Cut ${plural(o.selectedEntries.length, 'item')}: paste them into another folder`);
  };
  const paste = () => {
    if (!clip) return;
    setClip(null);
    void moveInto(clip.paths, cwd);
  };
  const duplicate = async () => {
    if (!ops) return;
    for (const path of selectedPaths()) {
      const r = await ops.duplicate(path);
      if (!r.ok) onError(`Duplicating ${baseName(path, sep)} failed: ${r.error.message}`);
      else if (r.value.via === 'queue')
        o.onInfo?.(`Duplicating ${path} as ${r.value.path} through the queue (the server has no copy-data)`);
      else o.onInfo?.(`Duplicated ${path} as ${r.value.path}`);
    }
    await o.reload();
  };
  const act = async (what: string, pending: Promise<Result<void>>) => {
    const r = await pending;
    if (!r.ok) onError(`${what}: ${r.error.message}`);
    await o.reload();
  };
  return {
    ops,
    clip,
    isCut: (name: string) => clip?.from === cwd && clip.paths.includes(joinLocal(cwd, name, sep)),
    moveInto: (paths: readonly string[], dir: string) => void moveInto(paths, dir),
    cut,
    paste: clip && ops ? paste : undefined,
    duplicate: () => void duplicate(),
    onNewFile: (name: string) => {
      setModal(null);
      if (ops) void act('Creating the file failed', ops.newFile(joinLocal(cwd, name, sep)));
    },
    onNewSymlink: (target: string, name: string) => {
      setModal(null);
      if (ops) void act('Creating the symlink failed', ops.symlink(target, joinLocal(cwd, name, sep)));
    },
    openWith:
      ops?.openWith &&
      ((entry: FsEntry) => {
        const path = joinLocal(cwd, entry.name, sep);
        void ops.openWith?.(path).then((r) => !r.ok && onError(`Opening ${path} failed: ${r.error.message}`));
      }),
  };
}
