/**
 * Keep remote up to date in the status bar (#27): per keep-up, the folders (local → remote), the files uploaded,
 * deleted and renamed so far, the last change, `reconnecting…` while the site comes back, the last failure (the
 * operation, the local path, the server's message) and Stop. Every path and message is escaped (displayText): names
 * and server messages are untrusted.
 */
import { displayText } from '../../app/common/displayText';
import type { KeepUpChange, KeepUpView } from '../../app/common/ipc/keepUpIpc';
import { formatTime } from '../format/format';

const short = (p: string) => displayText(p, 60);

/** The last change in words. */
export function changeText(c: KeepUpChange): string {
  if (c.what === 'renamed') return `renamed ${short(c.from ?? '')} → ${short(c.path)}`;
  if (c.what === 'kept') return `${short(c.path)} removed here, kept on the server`;
  return `${c.what} ${short(c.path)}`;
}

/** The counts in words: `3 uploaded, 1 deleted` (renamed only when any). */
export function countsText(v: KeepUpView): string {
  const parts = [`${v.uploaded} uploaded`, `${v.deleted} deleted`];
  if (v.renamed) parts.push(`${v.renamed} renamed`);
  return parts.join(', ');
}

function stateText(v: KeepUpView): string {
  if (v.state === 'starting') return 'starting…';
  if (v.state === 'reconnecting') return 'reconnecting…';
  if (v.state === 'failed') return 'stopped by an error';
  return countsText(v);
}

/** The failure in words: `cannot upload /home/a/x.txt: Permission denied`. */
function errorText(e: NonNullable<KeepUpView['error']>): string {
  return `cannot ${e.op} ${displayText(e.path, 120)}: ${displayText(e.message, 200)}`;
}

/** One keep-up's segment: its words shrink (ellipsis, the whole as tooltip), Stop stays whole. */
function KeepUpSegment({ v, onStop }: { v: KeepUpView; onStop: (id: string) => void }) {
  const folders = `${short(v.localRoot)} → ${short(v.remoteRoot)}`;
  const last = v.last && ` · ${changeText(v.last)} at ${formatTime(v.last.at)}`;
  const error = v.error && ` · ${errorText(v.error)}`;
  return (
    <span
      className={`keepup keepup-${v.state}`}
      role="group"
      aria-label={`Keep up to date ${displayText(v.localRoot, 200)}`}
    >
      <span className="keepup-text" title={`${folders}: ${stateText(v)}${last ?? ''}${error ?? ''}`}>
        Watching <output aria-label="Kept folders">{folders}</output>:{' '}
        <output aria-label="Keep-up state">{stateText(v)}</output>
        {last && (
          <output aria-label="Last change" className="muted">
            {last}
          </output>
        )}
        {error && (
          <output role="alert" aria-label="Keep-up error" className="error-text">
            {error}
          </output>
        )}
      </span>
      <button type="button" onClick={() => onStop(v.keepUpId)}>
        {v.state === 'failed' ? 'Dismiss' : 'Stop'}
      </button>
    </span>
  );
}

/** Every keep-up's segment (none: nothing). */
export function KeepUpStatus({ views, onStop }: { views: readonly KeepUpView[]; onStop: (id: string) => void }) {
  return (
    <>
      {views.map((v) => (
        <KeepUpSegment key={v.keepUpId} v={v} onStop={onStop} />
      ))}
    </>
  );
}
