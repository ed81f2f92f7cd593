/**
 * A file pane's dialogs: new folder and rename (the name checked by validateName, an existing name refused) and the
 * delete confirmation (folders with everything inside; it cannot be undone).
 */
import type { FsEntry } from '../../app/common/ipc/contract';
import { validateName } from '../format/entries';
import { ConfirmDialog, PromptDialog } from './Dialog';
import { MoveConflictDialog, NewFileDialog, NewSymlinkDialog } from './PaneFileDialogs';
import type { PaneModal } from './paneModal';

export type { PaneModal } from './paneModal';

export interface PaneDialogsProps {
  modal: PaneModal;
  side: 'local' | 'remote';
  /** The pane's title (`Local`, `Remote`). */
  title: string;
  /** Names in the folder (a rename may not take one). */
  names: readonly string[];
  onCancel: () => void;
  onMkdir: (name: string) => void;
  onRename: (entry: FsEntry, name: string) => void;
  onDelete: (entries: FsEntry[]) => void;
  /** The file operations' dialogs (usePaneFileOps); `sep`: the side's separator (`\\` also refused on Windows). */
  sep?: '/' | '\\';
  onNewFile?: (name: string) => void;
  onNewSymlink?: (target: string, name: string) => void;
}

/** The open dialog of a pane, if any. */
export function PaneDialogs(props: PaneDialogsProps) {
  const { modal, side, title, names, onCancel, onMkdir, onRename, onDelete } = props;
  const sep = props.sep ?? '/';
  if (modal?.kind === 'newFile' && props.onNewFile)
    return <NewFileDialog side={side} sep={sep} names={names} onCancel={onCancel} onSubmit={props.onNewFile} />;
  if (modal?.kind === 'newSymlink' && props.onNewSymlink)
    return <NewSymlinkDialog side={side} sep={sep} names={names} onCancel={onCancel} onSubmit={props.onNewSymlink} />;
  if (modal?.kind === 'moveConflict') return <MoveConflictDialog {...modal} />;
  if (modal?.kind === 'mkdir') {
    return (
      <PromptDialog
        title={`New ${side} folder`}
        label="Folder name"
        submitLabel="Create"
        validate={validateName}
        onCancel={onCancel}
        onSubmit={onMkdir}
      />
    );
  }
  if (modal?.kind === 'rename') {
    const { entry } = modal;
    return (
      <PromptDialog
        title={`Rename ${entry.name}`}
        label="New name"
        initial={entry.name}
        submitLabel="Rename"
        validate={(v) =>
          validateName(v) ?? (v !== entry.name && names.includes(v) ? 'A file with this name exists' : null)
        }
        onCancel={onCancel}
        onSubmit={(name) => onRename(entry, name)}
      />
    );
  }
  if (modal?.kind === 'delete') {
    const { entries } = modal;
    return (
      <ConfirmDialog
        title={`Delete from ${title.toLowerCase()}`}
        message={
          entries.length === 1
            ? `Delete "${entries[0].name}"${entries[0].type === 'dir' ? ' and everything inside it' : ''}? This cannot be undone.`
            : `Delete ${entries.length} items? Folders are deleted with everything inside. This cannot be undone.`
        }
        confirmLabel="Delete"
        danger
        onCancel={onCancel}
        onConfirm={() => onDelete(entries)}
      />
    );
  }
  return null;
}
