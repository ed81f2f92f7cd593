/**
 * The transfer queue: one row per batch (views/QueueRows.tsx), expandable into its files; virtualized (only the
 * visible rows and file lines are in the DOM, so 10,000 rows stay smooth); filters, pause all / resume all / retry
 * failed for every site or one, clear finished, and totals. Every button is enabled by the engine's own rules
 * (app/common/queue/rules.ts `can` and `allowedBatchIntents`): it shows exactly the intents the engine accepts.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { batchViews, type BatchView } from '../../app/common/queue/batches';
import { queueTotals, type QueueState } from '../../app/common/queue/reducer';
import { can, type BulkIntentType, type JobIntentType } from '../../app/common/queue/rules';
import type { SessionStatus } from '../../app/common/ipc/contract';
import { formatBytes, formatRate, plural, sessionStateText } from '../format/format';
import { filterBatches, type QueueFilter } from '../state/appState';
import { fileLines, unlisted, type FetchedFiles, type FileLineView } from '../state/batchFiles';
import {
  BULK_INTENT_LABEL,
  JOB_INTENT_LABEL,
  moveBatchBefore,
  moveBatchToTop,
  sendBatchIntent,
  sendBulkIntent,
} from '../state/queueActions';
import { useAppState, useBridge, useStore } from '../state/react';
import { BatchRow, FileList, filesHeight, QueueColumns, ROW_HEIGHT } from './QueueRows';
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

/** One virtual item of the list: a batch's row, or the bounded box of an expanded batch's files. */
type Item =
  | { kind: 'batch'; key: string; view: BatchView }
  | { kind: 'files'; key: string; view: BatchView; lines: FileLineView[]; more: number };

function listItems(
  rows: readonly BatchView[],
  expanded: ReadonlySet<string>,
  files: ReadonlyMap<string, FetchedFiles>,
): Item[] {
  const items: Item[] = [];
  for (const view of rows) {
    items.push({ kind: 'batch', key: view.batchId, view });
    if (!expanded.has(view.batchId)) continue;
    const fetched = files.get(view.batchId);
    items.push({
      kind: 'files',
      key: `${view.batchId}\nfiles`,
      view,
      lines: fileLines(view, fetched),
      more: unlisted(fetched),
    });
  }
  return items;
}

/** Why a queued job of a site waits: its session is coming back after a loss. */
function waitReason(status: SessionStatus | undefined): string | undefined {
  if (status?.state !== 'reconnecting') return undefined;
  return `waiting for the connection to ${status.siteName} (${sessionStateText(status)})`;
}

/** A batch expanded while it ran folds when it is done, so the rows after it come back into view. */
function useFoldFinished(
  views: ReadonlyMap<string, BatchView>,
  expanded: ReadonlySet<string>,
  setExpanded: (f: (s: ReadonlySet<string>) => ReadonlySet<string>) => void,
): void {
  const wasDone = useRef(new Map<string, boolean>());
  useEffect(() => {
    const fold: string[] = [];
    for (const id of expanded) {
      const done = views.get(id)?.state === 'done';
      if (wasDone.current.get(id) === false && done) fold.push(id);
      wasDone.current.set(id, done);
    }
    for (const id of [...wasDone.current.keys()]) if (!expanded.has(id)) wasDone.current.delete(id);
    if (fold.length) setExpanded((s) => new Set([...s].filter((id) => !fold.includes(id))));
  }, [views, expanded, setExpanded]);
}

/** Scrolls the newest of the batches that just appeared into view (not those of the first load). */
function useRevealNew(
  rows: readonly BatchView[],
  items: readonly Item[],
  scrollToIndex: (i: number, o: { align: 'auto' }) => void,
): void {
  const seen = useRef<ReadonlySet<string>>(new Set());
  useEffect(() => {
    const before = seen.current;
    seen.current = new Set(rows.map((r) => r.batchId));
    if (before.size === 0) return;
    const fresh = rows.filter((r) => !before.has(r.batchId));
    if (fresh.length === 0) return;
    const index = items.findIndex((it) => it.kind === 'batch' && it.key === fresh[fresh.length - 1].batchId);
    if (index >= 0) scrollToIndex(index, { align: 'auto' });
  }, [rows, items, scrollToIndex]);
}

/** The filter buttons: which jobs the list shows. */
function QueueFilters({ filter, setFilter }: { filter: QueueFilter; setFilter: (f: QueueFilter) => void }) {
  return (
    <div className="filters" role="group" aria-label="Queue filter">
      {FILTERS.map((f) => (
        <button key={f.id} type="button" aria-pressed={filter === f.id} onClick={() => setFilter(f.id)}>
          {f.label}
        </button>
      ))}
    </div>
  );
}

/** Pause all, Resume all, Retry failed and Clear finished, as buttons and in the narrow layout's "more" menu. */
function BulkActions({
  queue,
  siteId,
  bulk,
}: {
  queue: QueueState;
  siteId: string | undefined;
  bulk: (intent: BulkIntentType) => Promise<void>;
}) {
  const bridge = useBridge();
  const [menu, setMenu] = useState<{ x: number; y: number } | null>(null);
  const allowed = (intent: BulkIntentType) => can(queue, { type: intent, ...(siteId ? { siteId } : {}) });
  const canClear = can(queue, { type: 'clearFinished' });
  return (
    <>
      <span className="bulk">
        {BULK.map((intent) => (
          <button key={intent} type="button" disabled={!allowed(intent)} onClick={() => void bulk(intent)}>
            {BULK_INTENT_LABEL[intent]}
          </button>
        ))}
        <button type="button" disabled={!canClear} onClick={() => void bridge.queueClearFinished()}>
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
            ...BULK.map((intent) => ({
              id: intent,
              label: BULK_INTENT_LABEL[intent],
              disabled: !allowed(intent),
              run: () => void bulk(intent),
            })),
            { id: 'clear', label: 'Clear finished', disabled: !canClear, run: () => void bridge.queueClearFinished() },
          ]}
        />
      )}
    </>
  );
}

/** The header: filters, the bulk buttons for all sites or one, clear finished. */
function QueueHeader({
  queue,
  views,
  filter,
  setFilter,
}: {
  queue: QueueState;
  views: ReadonlyMap<string, BatchView>;
  filter: QueueFilter;
  setFilter: (f: QueueFilter) => void;
}) {
  const bridge = useBridge();
  const store = useStore();
  const sites = useAppState((s) => s.sites.sites);
  const [scope, setScope] = useState('');
  const siteIds = useMemo(() => [...new Set([...views.values()].map((v) => v.siteId))], [views]);
  const siteId = siteIds.includes(scope) ? scope : undefined;
  const bulk = async (intent: BulkIntentType) => {
    const error = await sendBulkIntent(bridge, intent, siteId);
    if (error !== undefined) store.localLog('error', `${BULK_INTENT_LABEL[intent]} failed: ${error}`);
  };
  return (
    <header>
      <h2>Queue</h2>
      <QueueFilters filter={filter} setFilter={setFilter} />
      <span style={{ flex: 1 }} />
      <select aria-label="Sites the buttons act on" value={siteId ?? ''} onChange={(e) => setScope(e.target.value)}>
        <option value="">All sites</option>
        {siteIds.map((id) => (
          <option key={id} value={id}>
            {sites.find((s) => s.id === id)?.name ?? id}
          </option>
        ))}
      </select>
      <BulkActions queue={queue} siteId={siteId} bulk={bulk} />
    </header>
  );
}

/** A batch's actions from its row (pause, resume, cancel, retry, to the top, dragged before another, unfolded). */
function useBatchActions(setExpanded: React.Dispatch<React.SetStateAction<ReadonlySet<string>>>) {
  const bridge = useBridge();
  const store = useStore();
  const report = useCallback(
    (what: string, error: string | undefined) => {
      if (error !== undefined) store.localLog('error', `${what} failed: ${error}`);
    },
    [store],
  );
  const onAction = useCallback(
    async (view: BatchView, intent: JobIntentType) =>
      report(`${JOB_INTENT_LABEL[intent]} ${view.name}`, await sendBatchIntent(bridge, view.batchId, intent)),
    [bridge, report],
  );
  const onTop = useCallback(
    async (view: BatchView) => report(`Moving ${view.name}`, await moveBatchToTop(bridge, view.batchId)),
    [bridge, report],
  );
  const onDropBefore = useCallback(
    async (dragged: string, before: string) => report('Moving a batch', await moveBatchBefore(bridge, dragged, before)),
    [bridge, report],
  );
  const onToggle = useCallback(
    (batchId: string) =>
      setExpanded((s) => {
        const next = new Set(s);
        if (!next.delete(batchId)) next.add(batchId);
        return next;
      }),
    [setExpanded],
  );
  return { onAction, onTop, onDropBefore, onToggle };
}

/** The footer: job counts by state, bytes done of all, and the total speed. */
function QueueTotals({ queue }: { queue: QueueState }) {
  const totals = useMemo(() => queueTotals(queue), [queue]);
  const active = totals.count.queued + totals.count.running;
  return (
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
  );
}

/** The queue panel. */
export function QueueView() {
  const queue = useAppState((s) => s.queue);
  const bridge = useBridge();
  const [filter, setFilter] = useState<QueueFilter>('all');
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const scrollRef = useRef<HTMLDivElement>(null);
  const previous = useRef<Map<string, BatchView>>(undefined);
  const views = useMemo(() => (previous.current = batchViews(queue, previous.current)), [queue]);
  const rows = useMemo(() => filterBatches(views, filter), [views, filter]);
  const files = useBatchFiles(bridge, expanded, views);
  const items = useMemo(() => listItems(rows, expanded, files), [rows, expanded, files]);
  const sites = useAppState((s) => s.sites.sites);
  const sessions = useAppState((s) => s.sessions);
  const siteNames = useMemo(() => new Map(sites.map((s) => [s.id, s.name])), [sites]);
  const getItemKey = useCallback((i: number) => items[i].key, [items]);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => {
      const it = items[i];
      return it.kind === 'batch' ? ROW_HEIGHT : filesHeight(it.lines.length, it.more);
    },
    getItemKey,
    overscan: 8,
  });

  useFoldFinished(views, expanded, setExpanded);
  useRevealNew(rows, items, virtualizer.scrollToIndex);

  const { onAction, onTop, onDropBefore, onToggle } = useBatchActions(setExpanded);

  return (
    <section className="queue" aria-label="Queue">
      <QueueHeader queue={queue} views={views} filter={filter} setFilter={setFilter} />
      {rows.length > 0 && <QueueColumns />}
      <div className="scroller" ref={scrollRef}>
        <div
          role="list"
          aria-label="Transfers"
          aria-rowcount={rows.length}
          style={{ height: virtualizer.getTotalSize(), position: 'relative' }}
        >
          {virtualizer.getVirtualItems().map((v) => {
            const item = items[v.index];
            if (item.kind === 'files')
              return (
                <FileList key={item.key} name={item.view.name} lines={item.lines} more={item.more} top={v.start} />
              );
            const canTop = can(queue, { type: 'move', batchId: item.view.batchId, to: 'top' });
            return (
              <BatchRow
                key={item.key}
                view={item.view}
                siteName={siteNames.get(item.view.siteId) ?? item.view.siteId}
                waitReason={waitReason(sessions[item.view.siteId])}
                index={v.index}
                measure={virtualizer.measureElement}
                top={v.start}
                expanded={expanded.has(item.key)}
                canTop={canTop}
                onToggle={onToggle}
                onAction={onAction}
                onTop={onTop}
                onDropBefore={onDropBefore}
              />
            );
          })}
        </div>
        {rows.length === 0 && (
          <p className="muted" style={{ padding: 8 }}>
            {filter === 'all' ? 'Drag files between the panes to transfer them.' : 'No jobs match this filter.'}
          </p>
        )}
      </div>
      <QueueTotals queue={queue} />
    </section>
  );
}
