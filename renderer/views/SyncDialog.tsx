/**
 * Synchronize… (#27; WinSCP's Synchronize, rclone's sync): make the remote pane's folder like the local one's or the
 * reverse. The options (direction, what counts as different, deleting what the source lacks, include/exclude globs),
 * Preview (the service lists both folders recursively and plans them as `sluice sync -n`; Cancel stops the listing),
 * the plan in views/SyncPreviewList.tsx with a box per item, and Run: the ticked plan as one batch in the queue.
 * A folder that could not be listed is shown, and nothing is deleted in that run (the plan withholds deletions).
 */
import { displayText } from '../../app/common/displayText';
import { Dialog } from './Dialog';
import { SyncPreviewList } from './SyncPreviewList';
import { useSyncPreview, type SyncOptions, type SyncPreviewState } from './useSyncPreview';

export interface SyncDialogProps {
  siteId: string;
  localPath: string;
  remotePath: string;
  onClose: () => void;
  /** A line for the log once Run queued the batch. */
  onQueued: (message: string) => void;
}

/** The options' fields. */
function SyncOptionsForm({ s, deletionOff }: { s: SyncPreviewState; deletionOff: boolean }) {
  const o = s.options;
  const set = (patch: Partial<SyncOptions>) => s.setOptions({ ...o, ...patch });
  return (
    <div className="sync-options">
      <fieldset>
        <legend>Direction</legend>
        <label>
          <input type="radio" checked={o.direction === 'upload'} onChange={() => set({ direction: 'upload' })} /> Local
          → Remote
        </label>
        <label>
          <input type="radio" checked={o.direction === 'download'} onChange={() => set({ direction: 'download' })} />{' '}
          Remote → Local
        </label>
      </fieldset>
      <label>
        Compare by{' '}
        <select value={o.compare} onChange={(e) => set({ compare: e.target.value as SyncOptions['compare'] })}>
          <option value="size-time">Size and time</option>
          <option value="size">Size only</option>
          <option value="checksum">Checksum (where the server hashes)</option>
        </select>
      </label>
      <label>
        <input
          type="checkbox"
          checked={o.delete && !deletionOff}
          disabled={deletionOff}
          onChange={(e) => set({ delete: e.target.checked })}
        />{' '}
        Delete files the source does not have
      </label>
      <label>
        Include (one glob a line)
        <textarea rows={2} value={o.include} onChange={(e) => set({ include: e.target.value })} />
      </label>
      <label>
        Exclude (one glob a line)
        <textarea rows={2} value={o.exclude} onChange={(e) => set({ exclude: e.target.value })} />
      </label>
    </div>
  );
}

/** What the preview found beside its items: listing errors (deletion off), the counts left alone. */
function PreviewNotes({ s }: { s: SyncPreviewState }) {
  const p = s.preview;
  if (!p) return null;
  return (
    <>
      {p.errors.length > 0 && (
        <div role="alert" className="error-text sync-errors" aria-label="Listing errors">
          <p>
            {p.deletionsWithheld ? 'Nothing will be deleted: ' : ''}
            {p.errors.length === 1 ? 'a folder' : `${p.errors.length} folders`} could not be listed.
          </p>
          <ul>
            {p.errors.slice(0, 20).map((e) => (
              <li key={`${e.side}:${e.path}`}>
                {e.side === 'local' ? 'Local' : 'Remote'} {displayText(e.path || '(the folder itself)', 200)}:{' '}
                {displayText(e.message, 300)}
              </li>
            ))}
          </ul>
        </div>
      )}
      <p className="muted" aria-label="Preview summary">
        {p.items.length === 0 ? 'Nothing to do: the folders are in step. ' : ''}
        {p.same} alike, {p.onlyInDest} only in the destination kept, {p.skipped} left out (links, special files).
      </p>
    </>
  );
}

/** The dialog. */
export function SyncDialog(props: SyncDialogProps) {
  const s = useSyncPreview(props.siteId, props.localPath, props.remotePath, (m) => {
    props.onQueued(m);
    props.onClose();
  });
  const p = s.preview;
  const deletionOff = (p?.errors.length ?? 0) > 0 && !s.stale;
  const [from, to] =
    s.options.direction === 'upload' ? [props.localPath, props.remotePath] : [props.remotePath, props.localPath];
  return (
    <Dialog title="Synchronize" onCancel={props.onClose} className="sync-dialog">
      <p className="muted">
        Make {displayText(to, 200)} like {displayText(from, 200)} (and its subfolders).
      </p>
      <SyncOptionsForm s={s} deletionOff={deletionOff} />
      {s.error && (
        <p role="alert" className="error-text">
          {s.error}
        </p>
      )}
      {s.listing && <p role="status">Listing both folders…</p>}
      <PreviewNotes s={s} />
      {p && !s.stale && <SyncPreviewList items={p.items} unticked={s.unticked} onChange={s.setUnticked} />}
      {s.stale && <p className="muted">The options changed: preview again before running.</p>}
      <div className="buttons">
        {s.listing ? (
          <button type="button" onClick={s.cancel}>
            Cancel listing
          </button>
        ) : (
          <button type="button" data-autofocus onClick={() => void s.start()}>
            Preview
          </button>
        )}
        <button type="button" disabled={!p || s.stale || !!s.listing || s.running} onClick={() => void s.run()}>
          Run
        </button>
        <button type="button" onClick={props.onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
