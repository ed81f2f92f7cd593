/**
 * The "Open files" list (#26 item 1): each remote file edited in a local editor, one line under the toolbar while
 * there is any, with where its saves stand (editing, uploading, uploaded at …, conflict, failed) and what it offers:
 * a conflict's overwrite / save under another name / reopen, a failure's retry, and close; "Clear finished" closes
 * every file whose saves are all on the server (their private copies removed). It keeps its own list from
 * `edit.list` and the `edit.changed` / `edit.closed` events (the engine side: app/node/edit/).
 */
import { useEffect, useState } from 'react';
import { displayText } from '../../app/common/displayText';
import type { EditChoice, EditView } from '../../app/common/model/edit';
import { formatTime } from '../format/format';
import { useBridge } from '../state/react';

/** What a line says of its file's state. */
export function editStateText(v: EditView): string {
  switch (v.state) {
    case 'downloading':
      return 'downloading';
    case 'editing':
      return 'editing';
    case 'uploading':
      return 'uploading';
    case 'uploaded':
      return `uploaded at ${formatTime(v.uploadedAt)}`;
    case 'conflict':
      if (v.conflict?.content) return 'changed on the server (same size and time, other content): not uploaded';
      return `${v.conflict?.found ? 'changed on' : 'gone from'} the server: not uploaded`;
    case 'failed':
      return `failed: ${displayText(v.error?.message ?? 'unknown error')}`;
  }
}

/** Edits whose last save is on the server (nothing unsent): what "Clear finished" closes. */
export function finishedEdits(edits: readonly EditView[]): EditView[] {
  return edits.filter((v) => v.state === 'uploaded' && !v.unsent);
}

const CHOICES: ReadonlyArray<[EditChoice, string]> = [
  ['overwrite', 'Overwrite'],
  ['rename', 'Save as new name'],
  ['reopen', 'Reopen'],
];

/** The edited files as the engine reports them: `edit.list`, then `edit.changed` / `edit.closed`. */
function useEditList(): EditView[] {
  const bridge = useBridge();
  const [edits, setEdits] = useState<EditView[]>([]);
  useEffect(() => {
    const put = (v: EditView) =>
      setEdits((all) =>
        all.some((e) => e.editId === v.editId) ? all.map((e) => (e.editId === v.editId ? v : e)) : [...all, v],
      );
    const offChanged = bridge.on('edit.changed', put);
    const offClosed = bridge.on('edit.closed', ({ editId }) =>
      setEdits((all) => all.filter((e) => e.editId !== editId)),
    );
    void bridge.editList().then((r) => {
      if (r.ok) r.value.forEach(put);
    });
    return () => {
      offChanged();
      offClosed();
    };
  }, [bridge]);
  return edits;
}

/** The edited files' list, shown while there is one. */
export function OpenFiles({ onError }: { onError: (message: string) => void }) {
  const bridge = useBridge();
  const edits = useEditList();
  const [confirming, setConfirming] = useState<string>();
  if (edits.length === 0) return null;

  // A file with a save not on the server closes on a second click only, named for what it loses.
  const close = (v: EditView) => {
    if (v.unsent && confirming !== v.editId) return setConfirming(v.editId);
    setConfirming(undefined);
    void act('Close', () => bridge.editClose({ editId: v.editId, force: v.unsent }));
  };

  const act = async (what: string, call: () => Promise<{ ok: boolean; error?: { message: string } }>) => {
    const r = await call();
    if (!r.ok) onError(`${what}: ${r.error?.message ?? 'failed'}`);
  };
  const finished = finishedEdits(edits);
  const clearFinished = () =>
    finished.forEach((v) => void act('Clear finished', () => bridge.editClose({ editId: v.editId })));
  return (
    <section className="open-files" aria-label="Open files">
      {finished.length > 0 && (
        <button
          type="button"
          className="clear-finished"
          title="Close the files whose saves are all on the server (their private copies are removed)"
          onClick={clearFinished}
        >
          Clear finished ({finished.length})
        </button>
      )}
      {edits.map((v) => {
        const name = displayText(v.remotePath);
        const bad = v.state === 'conflict' || v.state === 'failed';
        return (
          <div
            key={v.editId}
            className={`banner banner-${bad ? 'error' : 'info'}`}
            role="group"
            aria-label={`Edited file ${name}`}
            data-state={v.state}
          >
            <span className="banner-text" title={name}>{`${name} — ${editStateText(v)}`}</span>
            {v.state === 'conflict' &&
              CHOICES.map(([choice, label]) => (
                <button
                  key={choice}
                  type="button"
                  onClick={() => void act(label, () => bridge.editResolve({ editId: v.editId, choice }))}
                >
                  {label}
                </button>
              ))}
            {v.state === 'failed' && (
              <button
                type="button"
                onClick={() => void act('Retry', () => bridge.editResolve({ editId: v.editId, choice: 'retry' }))}
              >
                Retry
              </button>
            )}
            <button type="button" onClick={() => close(v)}>
              {confirming === v.editId && v.unsent ? 'Close anyway (the save is lost)' : 'Close'}
            </button>
          </div>
        );
      })}
    </section>
  );
}
