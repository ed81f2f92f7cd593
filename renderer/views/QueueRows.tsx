/**
 * The queue's rows: one per batch (a drop of files and folders, run as one transfer), with its state, progress, speed,
 * ETA, the buttons the engine would accept (`allowedBatchIntents`), "Move to top" and its error, reason first, or
 * "resumed from X" when its latest run took up what earlier ones left (`BatchView.resumedFrom`); an
 * expanded batch lists its files under it, each done, skipped or failed with why. Rows are memoized on their batch's
 * view, which stays the same object while none of its jobs changed.
 */
import { memo } from 'react';
import { etaSeconds } from '../../app/common/model/job';
import { allSkipped, type BatchView } from '../../app/common/queue/batches';
import { allowedBatchIntents, type JobIntentType } from '../../app/common/queue/rules';
import { formatBytes, formatDuration, formatRate, percent } from '../format/format';
import type { FileLineView } from '../state/batchFiles';
import { JOB_INTENT_LABEL } from '../state/queueActions';
import { Icon } from './Icon';
import { displayText } from '../../app/common/displayText';

export const ROW_HEIGHT = 44;
export const LINE_HEIGHT = 24;

export interface BatchRowProps {
  view: BatchView;
  top: number;
  expanded: boolean;
  /** Whether the engine would move this batch to the top (`can(queue, {type: 'move', …})`). */
  canTop: boolean;
  onToggle: (batchId: string) => void;
  onAction: (view: BatchView, intent: JobIntentType) => void;
  onTop: (view: BatchView) => void;
  /** A row dragged onto this one: the dragged batch goes just before this one. */
  onDropBefore: (draggedBatchId: string, beforeBatchId: string) => void;
}

/** The drag data type of a queue row (files dragged from a pane or the OS carry other types and are ignored here). */
export const BATCH_DRAG_TYPE = 'application/x-sluice-batch';

/** A batch's row. */
export const BatchRow = memo(function BatchRow({ view, top, expanded, canTop, onToggle, onAction, onTop, onDropBefore }: BatchRowProps) {
  const pct = percent(view.bytesDone, view.bytesTotal, view.state === 'done');
  const eta = view.state === 'running' ? etaSeconds(view) : undefined;
  const expandable = view.jobs.length > 1 || view.filesTotal > 1;
  const shown = allSkipped(view) ? 'skipped' : view.state;
  return (
    <div
      className="row"
      role="listitem"
      aria-label={view.name}
      aria-expanded={expandable ? expanded : undefined}
      data-job-id={view.jobs[0].id}
      data-batch-id={view.batchId}
      data-state={view.state}
      data-bytes-done={view.bytesDone}
      style={{ transform: `translateY(${top}px)`, height: ROW_HEIGHT }}
      draggable
      onDragStart={(e) => {
        e.dataTransfer.setData(BATCH_DRAG_TYPE, view.batchId);
        e.dataTransfer.effectAllowed = 'move';
      }}
      onDragOver={(e) => {
        if (!e.dataTransfer.types.includes(BATCH_DRAG_TYPE)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = 'move';
      }}
      onDrop={(e) => {
        const dragged = e.dataTransfer.getData(BATCH_DRAG_TYPE);
        if (!dragged) return;
        e.preventDefault();
        onDropBefore(dragged, view.batchId);
      }}
    >
      <span className="name" title={`${view.jobs.map((j) => j.source).join(', ')} → ${view.dest}`}>
        {expandable && (
          <button type="button" className="expander" aria-label={`${expanded ? 'Hide' : 'Show'} files of ${view.name}`} onClick={() => onToggle(view.batchId)}>
            {expanded ? '▾' : '▸'}
          </button>
        )}
        <Icon name={view.direction === 'upload' ? 'up' : 'down'} /> {displayText(view.name, Infinity)}
        {view.filesTotal > 1 ? <span className="muted"> ({view.filesDone}/{view.filesTotal} files)</span> : null}
      </span>
      <span className={`state state-${shown}`}>{shown}</span>
      <div className="bar" role="progressbar" aria-label={`${view.name} progress`} aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(pct)}>
        <div style={{ transform: `scaleX(${pct / 100})` }} />
      </div>
      <span className="muted">
        {formatBytes(view.bytesDone)}
        {view.bytesTotal > 0 ? ` / ${formatBytes(view.bytesTotal)}` : ''}
      </span>
      <span>{view.state === 'running' ? formatRate(view.rate) : ''}</span>
      <span className="actions">
        {eta !== undefined && <span className="muted" aria-label="Time left">{formatDuration(eta * 1000)}</span>}
        {allowedBatchIntents(view.jobs).map((a) => (
          <button key={a} type="button" aria-label={`${JOB_INTENT_LABEL[a]} ${view.name}`} onClick={() => onAction(view, a)}>
            {JOB_INTENT_LABEL[a]}
          </button>
        ))}
        {canTop && (
          <button type="button" aria-label={`Move ${view.name} to the top`} title="Move to the top of the queue" onClick={() => onTop(view)}>
            Top
          </button>
        )}
      </span>
      {view.error && (
        <span className="err" role="note" aria-label={`${view.name} error`} title={`${view.error.message} (${view.error.code})`}>
          {view.error.message} ({view.error.code})
        </span>
      )}
      {!view.error && view.resumedFrom !== undefined && (
        <span className="resumed muted" role="note" aria-label={`${view.name} resumed`}>
          resumed from {formatBytes(view.resumedFrom)}
        </span>
      )}
    </div>
  );
});

/** One file under an expanded batch. */
export const FileLineRow = memo(function FileLineRow({ line, top }: { line: FileLineView; top: number }) {
  return (
    <div
      className="file-line"
      role="listitem"
      aria-roledescription="file"
      aria-label={`File ${line.name}`}
      data-file-state={line.state}
      style={{ transform: `translateY(${top}px)`, height: LINE_HEIGHT }}
    >
      <span className="name" title={line.path}>{line.name}</span>
      <span className={`state state-${line.state}`}>{line.state}</span>
      <span className="muted">{line.size !== undefined ? formatBytes(line.size) : ''}</span>
      <span className={line.state === 'failed' ? 'err' : 'muted'} role={line.note ? 'note' : undefined} aria-label={line.note ? `Why ${line.name} ${line.state}` : undefined} title={line.note}>
        {line.note ?? ''}
      </span>
    </div>
  );
});

/** The line after the listed files of a batch that has more. */
export function MoreLine({ count, top }: { count: number; top: number }) {
  return (
    <div className="file-line muted" style={{ transform: `translateY(${top}px)`, height: LINE_HEIGHT }}>
      <span className="name">and {count} more files</span>
    </div>
  );
}
