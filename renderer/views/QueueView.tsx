/**
 * The transfer queue: virtualized rows (only the visible ones are in the DOM, so 10,000 jobs stay smooth),
 * per-job state, progress, speed, ETA and error text, pause / resume / cancel / retry, filters and totals.
 * The buttons are enabled by the engine's own rules (app/common/queue/rules.ts): a row shows exactly the intents
 * the engine accepts in the job's state, and "Clear finished" is enabled when the engine would clear something.
 * Rows are memoized on the job object: the shared reducer keeps unchanged jobs identical, so a progress
 * delta re-renders only the rows whose job changed.
 */
import { memo, useMemo, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { Job } from '../../app/common/model/job';
import { etaSeconds } from '../../app/common/model/job';
import { queueTotals } from '../../app/common/queue/reducer';
import { allowedIntents, can, type JobIntentType } from '../../app/common/queue/rules';
import { formatBytes, formatDuration, formatRate, percent, plural } from '../format/format';
import { filterJobIds, type QueueFilter } from '../state/appState';
import { JOB_INTENT_LABEL, sendJobIntent } from '../state/queueActions';
import { useAppState, useBridge, useStore } from '../state/react';
import { Icon } from './Icon';

const ROW_HEIGHT = 44;
const FILTERS: Array<{ id: QueueFilter; label: string }> = [
  { id: 'all', label: 'All' },
  { id: 'active', label: 'Active' },
  { id: 'failed', label: 'Failed' },
  { id: 'done', label: 'Done' },
];

const JobRow = memo(function JobRow({ job, top, onAction }: { job: Job; top: number; onAction: (job: Job, a: JobIntentType) => void }) {
  const pct = percent(job.bytesDone, job.bytesTotal, job.state === 'done');
  const eta = job.state === 'running' ? etaSeconds(job) : undefined;
  return (
    <div
      className="row"
      role="listitem"
      aria-label={job.name}
      data-job-id={job.id}
      data-state={job.state}
      data-bytes-done={job.bytesDone}
      style={{ transform: `translateY(${top}px)`, height: ROW_HEIGHT }}
    >
      <span className="name" title={`${job.source} → ${job.dest}`}>
        <Icon name={job.direction === 'upload' ? 'up' : 'down'} /> {job.name}
        {job.filesTotal > 1 ? <span className="muted"> ({job.filesDone}/{job.filesTotal} files)</span> : null}
      </span>
      <span className={`state state-${job.state}`}>{job.state}</span>
      <div
        className="bar"
        role="progressbar"
        aria-label={`${job.name} progress`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(pct)}
      >
        <div style={{ transform: `scaleX(${pct / 100})` }} />
      </div>
      <span className="muted">
        {formatBytes(job.bytesDone)}
        {job.bytesTotal > 0 ? ` / ${formatBytes(job.bytesTotal)}` : ''}
      </span>
      <span>{job.state === 'running' ? formatRate(job.rate) : ''}</span>
      <span className="actions">
        {eta !== undefined && <span className="muted" aria-label="Time left">{formatDuration(eta * 1000)}</span>}
        {allowedIntents(job).map((a) => (
          <button key={a} type="button" aria-label={`${JOB_INTENT_LABEL[a]} ${job.name}`} onClick={() => onAction(job, a)}>
            {JOB_INTENT_LABEL[a]}
          </button>
        ))}
      </span>
      {job.error && (
        <span className="err" role="note" aria-label={`${job.name} error`} title={`${job.error.code}: ${job.error.message}`}>
          {job.error.code}: {job.error.message}
        </span>
      )}
    </div>
  );
});

/** The queue panel. */
export function QueueView() {
  const queue = useAppState((s) => s.queue);
  const bridge = useBridge();
  const store = useStore();
  const [filter, setFilter] = useState<QueueFilter>('all');
  const scrollRef = useRef<HTMLDivElement>(null);
  const ids = useMemo(() => filterJobIds(queue, filter), [queue, filter]);
  const totals = useMemo(() => queueTotals(queue), [queue]);
  const virtualizer = useVirtualizer({
    count: ids.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
  });

  const onAction = useMemo(
    () => async (job: Job, intent: JobIntentType) => {
      const error = await sendJobIntent(bridge, job, intent);
      if (error !== undefined) store.localLog('error', `${JOB_INTENT_LABEL[intent]} ${job.name} failed: ${error}`);
    },
    [bridge, store],
  );

  const clearable = useMemo(() => can(queue, { type: 'clearFinished' }), [queue]);
  const active = totals.count.queued + totals.count.running + totals.count.paused;
  return (
    <section className="queue" aria-label="Queue">
      <header>
        <h2>Queue</h2>
        <div className="filters" role="group" aria-label="Queue filter">
          {FILTERS.map((f) => (
            <button key={f.id} type="button" aria-pressed={filter === f.id} onClick={() => setFilter(f.id)}>
              {f.label}
            </button>
          ))}
        </div>
        <span style={{ flex: 1 }} />
        <button type="button" disabled={!clearable} onClick={() => void bridge.queueClearFinished()}>
          Clear finished
        </button>
      </header>
      <div className="scroller" ref={scrollRef}>
        <div role="list" aria-label="Transfers" aria-rowcount={ids.length} style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const job = queue.byId[ids[item.index]];
            return job ? <JobRow key={job.id} job={job} top={item.start} onAction={onAction} /> : null;
          })}
        </div>
        {ids.length === 0 && <p className="muted" style={{ padding: 8 }}>{filter === 'all' ? 'Drag files between the panes to transfer them.' : 'No jobs match this filter.'}</p>}
      </div>
      <footer className="totals" aria-label="Queue totals">
        <output aria-label="Jobs total">{plural(queue.order.length, 'job')}</output>
        <output aria-label="Active jobs">{active} active</output>
        <output aria-label="Done jobs">{totals.count.done} done</output>
        <output aria-label="Failed jobs">{totals.count.failed} failed</output>
        <output aria-label="Bytes transferred">
          {formatBytes(totals.bytesDone)} / {formatBytes(totals.bytesTotal)}
        </output>
        <output aria-label="Total speed">{formatRate(totals.rate)}</output>
      </footer>
    </section>
  );
}
