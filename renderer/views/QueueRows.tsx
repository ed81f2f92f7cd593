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
  /** The name of the batch's site (every row says which site it belongs to). */
  siteName: string;
  /** Why a queued batch is not running yet (its site is reconnecting), shown beside its state. */
  waitReason?: string;
  /** Position in the virtual list, and the list's measuring ref (a failed row grows to show its whole error). */
  index: number;
  measure: (el: Element | null) => void;
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

/** The column headers above the rows (the same grid as a row). */
export function QueueColumns() {
  return (
    <div className="row columns" role="presentation" aria-hidden="true">
      <span>Name</span>
      <span>State</span>
      <span>Progress</span>
      <span>Size</span>
      <span>Speed</span>
      <span>Time</span>
      <span>Actions</span>
    </div>
  );
}

/** How long a batch has run (ms): from its first job's start to its last one's end, or to now while it runs. */
export function batchElapsed(view: BatchView, now: number): number | undefined {
  const starts = view.jobs.flatMap((j) => (j.startedAt !== undefined ? [j.startedAt] : []));
  if (starts.length === 0) return undefined;
  const ends = view.jobs.flatMap((j) => (j.finishedAt !== undefined ? [j.finishedAt] : []));
  const end = view.state === 'running' || ends.length === 0 ? now : Math.max(...ends);
  return Math.max(0, end - Math.min(...starts));
}

/** The name cell: the expander of a batch of several files, the direction and the files done. */
function BatchName(p: {
  view: BatchView;
  expandable: boolean;
  expanded: boolean;
  onToggle: (batchId: string) => void;
}) {
  const { view, expanded } = p;
  return (
    <span className="name" title={`${view.jobs.map((j) => j.source).join(', ')} → ${view.dest}`}>
      {p.expandable && (
        <button
          type="button"
          className="expander"
          aria-label={`${expanded ? 'Hide' : 'Show'} files of ${view.name}`}
          onClick={() => p.onToggle(view.batchId)}
        >
          {expanded ? '▾' : '▸'}
        </button>
      )}
      <Icon name={view.direction === 'upload' ? 'up' : 'down'} /> {displayText(view.name, Infinity)}
      {view.filesTotal > 1 ? (
        <span className="muted">
          {' '}
          ({view.filesDone}/{view.filesTotal} files)
        </span>
      ) : null}
    </span>
  );
}

/** The buttons the engine would accept for the batch, and Top. */
function BatchActions(p: Pick<BatchRowProps, 'view' | 'canTop' | 'onAction' | 'onTop'>) {
  const { view } = p;
  return (
    <span className="actions">
      {allowedBatchIntents(view.jobs).map((a) => (
        <button
          key={a}
          type="button"
          aria-label={`${JOB_INTENT_LABEL[a]} ${view.name}`}
          onClick={() => p.onAction(view, a)}
        >
          {JOB_INTENT_LABEL[a]}
        </button>
      ))}
      {p.canTop && (
        <button
          type="button"
          aria-label={`Move ${view.name} to the top`}
          title="Move to the top of the queue"
          onClick={() => p.onTop(view)}
        >
          Top
        </button>
      )}
    </span>
  );
}

/** The lines under a row: why it waits, its site and destination, its error or where it resumed from. */
function BatchNotes({ view, siteName, waitReason }: Pick<BatchRowProps, 'view' | 'siteName' | 'waitReason'>) {
  return (
    <>
      {view.state === 'queued' && waitReason && (
        <span className="wait" role="note" aria-label={`${view.name} waits`}>
          {waitReason}
        </span>
      )}
      <span className="where muted" aria-label={`${view.name} site and destination`}>
        {siteName} {view.direction === 'upload' ? '→' : '←'} {view.dest}
      </span>
      {view.error && (
        <span className="err" role="note" aria-label={`${view.name} error`}>
          {view.error.message} ({view.error.code})
        </span>
      )}
      {!view.error && view.resumedFrom !== undefined && (
        <span className="resumed muted" role="note" aria-label={`${view.name} resumed`}>
          resumed from {formatBytes(view.resumedFrom)}
        </span>
      )}
    </>
  );
}

/** A batch's row. */
export const BatchRow = memo(function BatchRow(p: BatchRowProps) {
  const { view, siteName, top, expanded, canTop, onToggle, onAction, onTop, onDropBefore } = p;
  const pct = percent(view.bytesDone, view.bytesTotal, view.state === 'done');
  const eta = view.state === 'running' ? etaSeconds(view) : undefined;
  const expandable = view.jobs.length > 1 || view.filesTotal > 1;
  const shown = allSkipped(view) ? 'skipped' : view.state;
  const elapsed = batchElapsed(view, Date.now());
  return (
    <div
      ref={p.measure}
      data-index={p.index}
      className="row"
      role="listitem"
      aria-label={view.name}
      aria-expanded={expandable ? expanded : undefined}
      data-job-id={view.jobs[0].id}
      data-batch-id={view.batchId}
      data-state={view.state}
      data-bytes-done={view.bytesDone}
      style={{ transform: `translateY(${top}px)`, minHeight: ROW_HEIGHT }}
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
      <BatchName view={view} expandable={expandable} expanded={expanded} onToggle={onToggle} />
      <span className={`state state-${shown}`}>{shown}</span>
      <div
        className="bar"
        role="progressbar"
        aria-label={`${view.name} progress`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(pct)}
      >
        <div style={{ transform: `scaleX(${pct / 100})` }} />
      </div>
      <span className="muted">
        {formatBytes(view.bytesDone)}
        {view.bytesTotal > 0 ? ` / ${formatBytes(view.bytesTotal)}` : ''}
      </span>
      <span>{view.state === 'running' ? formatRate(view.rate) : ''}</span>
      <span className="time">
        {elapsed !== undefined && (
          <span aria-label={`${view.name} elapsed`} title="Time taken">
            {formatDuration(elapsed)}
          </span>
        )}
        {eta !== undefined && (
          <span className="muted" aria-label="Time left" title="Time left">
            {' '}
            +{formatDuration(eta * 1000)}
          </span>
        )}
      </span>
      <BatchActions view={view} canTop={canTop} onAction={onAction} onTop={onTop} />
      <BatchNotes view={view} siteName={siteName} waitReason={p.waitReason} />
    </div>
  );
});

/** Lines an expanded batch shows at once; more scroll inside its own box, so the rows after it stay in view. */
export const FILES_IN_VIEW = 8;

/** The height of an expanded batch's box of files, px. */
export function filesHeight(lines: number, more: number): number {
  return Math.min(lines + (more > 0 ? 1 : 0), FILES_IN_VIEW) * LINE_HEIGHT + 2;
}

/** An expanded batch's files: a bounded box that scrolls on its own (the queue's own rows go on below it). */
export function FileList({
  name,
  lines,
  more,
  top,
}: {
  name: string;
  lines: readonly FileLineView[];
  more: number;
  top: number;
}) {
  return (
    <div
      className="file-list"
      role="list"
      aria-label={`Files of ${name}`}
      style={{ transform: `translateY(${top}px)`, height: filesHeight(lines.length, more) }}
    >
      {lines.map((line) => (
        <FileLineRow key={line.key} line={line} />
      ))}
      {more > 0 && <MoreLine count={more} />}
    </div>
  );
}

/** One file under an expanded batch. */
export const FileLineRow = memo(function FileLineRow({ line }: { line: FileLineView }) {
  return (
    <div
      className="file-line"
      role="listitem"
      aria-roledescription="file"
      aria-label={`File ${line.name}`}
      data-file-state={line.state}
      style={{ height: LINE_HEIGHT }}
    >
      <span className="name" title={line.path}>
        {line.name}
      </span>
      <span className={`state state-${line.state}`}>{line.state}</span>
      <span className="muted">{line.size !== undefined ? formatBytes(line.size) : ''}</span>
      <span
        className={line.state === 'failed' ? 'err' : 'muted'}
        role={line.note ? 'note' : undefined}
        aria-label={line.note ? `Why ${line.name} ${line.state}` : undefined}
        title={line.note}
      >
        {line.note ?? ''}
      </span>
    </div>
  );
});

/** The line after the listed files of a batch that has more. */
export function MoreLine({ count }: { count: number }) {
  return (
    <div className="file-line muted" style={{ height: LINE_HEIGHT }}>
      <span className="name">and {count} more files</span>
    </div>
  );
}
