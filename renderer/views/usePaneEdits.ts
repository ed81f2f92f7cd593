/**
 * A file pane's edits, confirmed in its dialogs (views/PaneDialogs.tsx): new folder, rename and delete in the current
 * folder, each failure reported through `onError` with the server's or the disk's message, the folder listed again
 * after each.
 */
import type { RefObject } from 'react';
import type { FsEntry } from '../../app/common/ipc/contract';
import type { Result } from '../../app/common/ipc/result';
import { emptySelection, type Selection } from '../format/entries';
import { joinLocal } from '../../app/common/localPaths';
import type { PaneModal } from './PaneDialogs';

/** What the pane tells {@link usePaneEdits}. */
export interface PaneEditOptions {
  cwd: string;
  sep: '/' | '\\';
  mkdir: (path: string) => Promise<Result<void>>;
  rename: (from: string, to: string) => Promise<Result<void>>;
  remove: (path: string, recursive: boolean) => Promise<Result<void>>;
  reload: () => Promise<void>;
  onError: (message: string) => void;
  setModal: (m: PaneModal) => void;
  setSel: (s: Selection) => void;
  gridRef: RefObject<HTMLTableElement | null>;
}

/** The dialogs' confirm handlers. */
export function usePaneEdits(o: PaneEditOptions) {
  const { cwd, sep, setModal } = o;
  const join = (name: string) => joinLocal(cwd, name, sep);
  const act = async (what: string, pending: Promise<Result<void>>) => {
    const r = await pending;
    if (!r.ok) o.onError(`${what}: ${r.error.message}`);
    await o.reload();
  };
  return {
    onMkdir: (name: string) => {
      setModal(null);
      void act('Creating the folder failed', o.mkdir(join(name)));
    },
    onRename: (entry: FsEntry, name: string) => {
      setModal(null);
      if (name !== entry.name) void act('Renaming failed', o.rename(join(entry.name), join(name)));
    },
    onDelete: (doomed: FsEntry[]) => {
      setModal(null);
      o.setSel(emptySelection);
      void (async () => {
        for (const entry of doomed) {
          const r = await o.remove(join(entry.name), entry.type === 'dir');
          if (!r.ok) o.onError(`Deleting ${entry.name} failed: ${r.error.message}`);
        }
        await o.reload();
        o.gridRef.current?.focus();
      })();
    },
  };
}
