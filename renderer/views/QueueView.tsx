/**
 * The transfer queue: one row per batch (views/QueueRows.tsx), expandable into its files; virtualized (only the
 * visible rows and file lines are in the DOM, so 10,000 rows stay smooth); filters, pause all / resume all / retry
 * failed for every site or one, clear finished, and totals. Every button is enabled by the engine's own rules
 * (app/common/queue/rules.ts `can` and `allowedBatchIntents`): it shows exactly the intents the engine accepts.
 */
import { useCallback, useMemo, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { batchViews, type BatchView } from '../../app/common/queue/batches';
import { queueTotals, type QueueState } from '../../app/common/queue/reducer';
import { can, type BulkIntentType, type JobIntentType } from '../../app/common/queue/rules';
import type { SessionStatus } from '../../app/common/ipc/contract';
import { formatBytes, formatRate, plural, sessionStateText } from '../format/format';
import { filterBatches, type QueueFilter } from '../state/appState';
import { fileLines, unlisted, type FetchedFiles, type FileLineView } from '../state/batchFiles';
import { BULK_INTENT_LABEL, JOB_INTENT_LABEL, moveBatchBefore, moveBatchToTop, sendBatchIntent, sendBulkIntent } from '../state/queueActions';
import { useAppState, useBridge, useStore } from '../state/react';
import { BatchRow, FileLineRow, LINE_HEIGHT, MoreLine, QueueColumns, ROW_HEIGHT } from './QueueRows';
import { queueSpeed } from '../state/speeds';
import { useBatchFiles } from './useBatchFiles';
import { ContextMenu } from './ContextMenu';
import { Icon } from './Icon';

const FILTERS: Array<{ id: QueueFilter; label: string }> = [
  { id: 'all', label: 'All' },
  { id: 'active', label: 'Active' },
  { id: 'failed', label: 'Failed' },
  { id: 'done', label: 'Done' },
];
const BULK: readonly BulkIntentType[] = ['pauseAll', 'resumeAll', 'retryFailed'];

/** One virtual item of the list: a batch's row, one of its files, or how many more files it has. */
type Item =
  | { kind: 'batch'; key: string; view: BatchView }
  | { kind: 'file'; key: string; line: FileLineView }
  | { kind: 'more'; key: string; count: number };

function listItems(rows: readonly BatchView[], expanded: ReadonlySet<string>, files: ReadonlyMap<string, FetchedFiles>): Item[] {
  const items: Item[] = [];
  for (const view of rows) {
    items.push({ kind: 'batch', key: view.batchId, view });
    if (!expanded.has(view.batchId)) continue;
    const fetched = files.get(view.batchId);
    for (const line of fileLines(view, fetched)) items.push({ kind: 'file', key: `${view.batchId}\n${line.key}`, line });
    const more = unlisted(fetched);
    if (more > 0) items.push({ kind: 'more', key: `${view.batchId}\nmore`, count: more });
  }
  return items;
}

/** Why a queued job of a site waits: its session is coming back after a loss. */
function waitReason(status: SessionStatus | undefined): string | undefined {
  if (status?.state !== 'reconnecting') return undefined;
  return `waiting for the connection to ${status.siteName} (${sessionStateText(status)})`;
}

/** The header: filters, the bulk buttons for all sites or one, clear finished. */
function QueueHeader({ queue, views, filter, setFilter }: { queue: QueueState; views: ReadonlyMap<string, BatchView>; filter: QueueFilter; setFilter: (f: QueueFilter) => void }) {
  const bridge = useBridge();
  const store = useStore();
  const sites = useAppState((s) => s.sites.sites);
  const [scope, setScope] = useState('');
  const [menu, setMenu] = useState<{ x: number; y: number } | null>(null);
  const siteIds = useMemo(() => [...new Set([...views.values()].map((v) => v.siteId))], [views]);
  const siteId = siteIds.includes(scope) ? scope : undefined;
  const bulk = async (intent: BulkIntentType) => {
    const error = await sendBulkIntent(bridge, intent, siteId);
    if (error !== undefined) store.localLog('error', `${BULK_INTENT_LABEL[intent]} failed: ${error}`);
  };
  return (
    <header>
      <h2>Queue</h2>
      <div className="filters" role="group" aria-label="Queue filter">
        {FILTERS.map((f) => (
          <button key={f.id} type="button" aria-pressed={filter === f.id} onClick={() => setFilter(f.id)}>{f.label}</button>
        ))}
      </div>
      <span style={{ flex: 1 }} />
      <select aria-label="Sites the buttons act on" value={siteId ?? ''} onChange={(e) => setScope(e.target.value)}>
        <option value="">All sites</option>
        {siteIds.map((id) => <option key={id} value={id}>{sites.find((s) => s.id === id)?.name ?? id}</option>)}
      </select>
      <span className="bulk">
        {BULK.map((intent) => (
          <button key={intent} type="button" disabled={!can(queue, { type: intent, ...(siteId ? { siteId } : {}) })} onClick={() => void bulk(intent)}>
            {BULK_INTENT_LABEL[intent]}
          </button>
        ))}
        <button type="button" disabled={!can(queue, { type: 'clearFinished' })} onClick={() => void bridge.queueClearFinished()}>
          Clear finished
        </button>
      </span>
      <button
        type="button"
        className="more"
        aria-label="More queue actions"
        title="Pause all, Resume all, Retry failed, Clear finished"
        aria-haspopup="menu"
        onClick={(e) => {
          const r = e.currentTarget.getBoundingClientRect();
          setMenu({ x: r.right - 190, y: r.bottom });
        }}
      >
        <Icon name="more" />
      </button>
      {menu && (
        <ContextMenu
          label="Queue actions"
          x={menu.x}
          y={menu.y}
          onClose={() => setMenu(null)}
          items={[
            ...BULK.map((intent) => ({ id: intent, label: BULK_INTENT_LABEL[intent], disabled: !can(queue, { type: intent, ...(siteId ? { siteId } : {}) }), run: () => void bulk(intent) })),
            { id: 'clear', label: 'Clear finished', disabled: !can(queue, { type: 'clearFinished' }), run: () => void bridge.queueClearFinished() },
          ]}
        />
      )}
    </header>
  );
}

/** The queue panel. */
export function QueueView() {
  const queue = useAppState((s) => s.queue);
  const bridge = useBridge();
  const store = useStore();
  const [filter, setFilter] = useState<QueueFilter>('all');
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const scrollRef = useRef<HTMLDivElement>(null);
  const previous = useRef<Map<string, BatchView>>(undefined);
  const views = useMemo(() => (previous.current = batchViews(queue, previous.current)), [queue]);
  const rows = useMemo(() => filterBatches(views, filter), [views, filter]);
  const files = useBatchFiles(bridge, expanded, views);
  const items = useMemo(() => listItems(rows, expanded, files), [rows, expanded, files]);
  const totals = useMemo(() => queueTotals(queue), [queue]);
  const sites = useAppState((s) => s.sites.sites);
  const sessions = useAppState((s) => s.sessions);
  const siteNames = useMemo(() => new Map(sites.map((s) => [s.id, s.name])), [sites]);
  const getItemKey = useCallback((i: number) => items[i].key, [items]);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => (items[i].kind === 'batch' ? ROW_HEIGHT : LINE_HEIGHT),
    getItemKey,
    overscan: 8,
  });

  const report = useCallback((what: string, error: string | undefined) => {
    if (error !== undefined) store.localLog('error', `${what} failed: ${error}`);
  }, [store]);
  const onAction = useCallback(async (view: BatchView, intent: JobIntentType) =>
    report(`${JOB_INTENT_LABEL[intent]} ${view.name}`, await sendBatchIntent(bridge, view.batchId, intent)), [bridge, report]);
  const onTop = useCallback(async (view: BatchView) => report(`Moving ${view.name}`, await moveBatchToTop(bridge, view.batchId)), [bridge, report]);
  const onDropBefore = useCallback(async (dragged: string, before: string) => report('Moving a batch', await moveBatchBefore(bridge, dragged, before)), [bridge, report]);
  const onToggle = useCallback((batchId: string) => setExpanded((s) => {
    const next = new Set(s);
    if (!next.delete(batchId)) next.add(batchId);
    return next;
  }), []);

  const active = totals.count.queued + totals.count.running;
  return (
    <section className="queue" aria-label="Queue">
      <QueueHeader queue={queue} views={views} filter={filter} setFilter={setFilter} />
      {rows.length > 0 && <QueueColumns />}
      <div className="scroller" ref={scrollRef}>
        <div role="list" aria-label="Transfers" aria-rowcount={rows.length} style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((v) => {
            const item = items[v.index];
            if (item.kind === 'file') return <FileLineRow key={item.key} line={item.line} top={v.start} />;
            if (item.kind === 'more') return <MoreLine key={item.key} count={item.count} top={v.start} />;
            const canTop = can(queue, { type: 'move', batchId: item.view.batchId, to: 'top' });
            return (
              <BatchRow key={item.key} view={item.view} siteName={siteNames.get(item.view.siteId) ?? item.view.siteId}
                waitReason={waitReason(sessions[item.view.siteId])} index={v.index} measure={virtualizer.measureElement} top={v.start} expanded={expanded.has(item.key)} canTop={canTop}
                onToggle={onToggle} onAction={onAction} onTop={onTop} onDropBefore={onDropBefore} />
            );
          })}
        </div>
        {rows.length === 0 && <p className="muted" style={{ padding: 8 }}>{filter === 'all' ? 'Drag files between the panes to transfer them.' : 'No jobs match this filter.'}</p>}
      </div>
      <footer className="totals" aria-label="Queue totals">
        <output aria-label="Jobs total">{plural(queue.order.length, 'job')}</output>
        <output aria-label="Active jobs">{active} active</output>
        {totals.count.paused > 0 && <output aria-label="Paused jobs">{totals.count.paused} paused</output>}
        <output aria-label="Done jobs">{totals.count.done} done</output>
        <output aria-label="Failed jobs">{totals.count.failed} failed</output>
        <output aria-label="Bytes transferred">
          {formatBytes(totals.bytesDone)} / {formatBytes(totals.bytesTotal)}
        </output>
        <output aria-label="Total speed">{formatRate(queueSpeed(queue))}</output>
      </footer>
    </section>
  );
}
