/**
 * The workspace under the toolbar (issue #23 item 21): the file panes first, with most of the height; under them the
 * queue beside a column of the throughput graph and the log. Three splitters (panes | bottom, queue | column,
 * graph | log) resize them, the graph and the log fold to their headers, and an idle graph shrinks to one line (CSS
 * `.graph.idle`). The sizes are the `layout` setting (app/common/model/layout.ts, kept in sluice.db through
 * `settings.set`), fitted into the window as it is (fitLayout).
 */
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { DEFAULT_LAYOUT, LAYOUT_LIMITS, fitLayout, type UiLayout } from '../../app/common/model/layout';
import { useAppState, useBridge, useStore } from '../state/react';
import { Splitter } from './Splitter';

/** What the graph and the log get to fold themselves. */
export interface Fold {
  collapsed: boolean;
  onToggle: () => void;
}

export interface WorkspaceLayoutProps {
  panes: ReactNode;
  queue: ReactNode;
  graph: (fold: Fold) => ReactNode;
  log: (fold: Fold) => ReactNode;
}

/** The element's size, followed with a ResizeObserver. */
function useSize(): [React.RefObject<HTMLDivElement | null>, { width: number; height: number }] {
  const ref = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => setSize({ width: el.clientWidth, height: el.clientHeight }));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return [ref, size];
}

/** The panes, the splitters and the bottom area. */
export function WorkspaceLayout({ panes, queue, graph, log }: WorkspaceLayoutProps) {
  const saved = useAppState((s) => s.settings?.layout) ?? DEFAULT_LAYOUT;
  const bridge = useBridge();
  const store = useStore();
  const [dragging, setDragging] = useState<UiLayout | null>(null);
  const [ref, size] = useSize();
  const layout = fitLayout(dragging ?? saved, size);
  const L = LAYOUT_LIMITS;

  // The layout being saved stays shown until the store has it: a second key press while the first one's save is on
  // its way then steps from the new value, not from the old saved one.
  const commit = useCallback(
    async (next: UiLayout) => {
      setDragging(next);
      const r = await bridge.settingsSet({ layout: next });
      if (r.ok) store.dispatch({ type: 'settings', settings: r.value });
      else store.localLog('error', `Saving the layout failed: ${r.error.message}`);
      setDragging((shown) => (shown === next ? null : shown));
    },
    [bridge, store],
  );
  const change = (patch: Partial<UiLayout>) => setDragging({ ...(dragging ?? saved), ...patch });
  const save = (patch: Partial<UiLayout>) => void commit({ ...(dragging ?? saved), ...patch });

  // The column's height for the graph | log splitter (the bottom area less its 6 px bottom padding and the bar).
  const column = Math.max(1, layout.bottomHeight - 6 - L.splitter);
  const bothOpen = !layout.graphCollapsed && !layout.logCollapsed;
  return (
    <div
      className="workspace"
      ref={ref}
      style={{ gridTemplateRows: `minmax(0, 1fr) ${L.splitter}px ${layout.bottomHeight}px` }}
    >
      {panes}
      <Splitter
        orientation="horizontal"
        label="Resize the file panes and the queue"
        value={layout.bottomHeight}
        min={L.bottomMin}
        max={Math.max(L.bottomMin, size.height - L.panesMin - L.splitter)}
        direction={-1}
        onChange={(v) => change({ bottomHeight: v })}
        onCommit={(v) => save({ bottomHeight: v })}
      />
      <div className="bottom" style={{ gridTemplateColumns: `minmax(0, 1fr) ${L.splitter}px ${layout.sideWidth}px` }}>
        {queue}
        <Splitter
          orientation="vertical"
          label="Resize the queue and the graph"
          value={layout.sideWidth}
          min={L.sideMin}
          max={Math.max(L.sideMin, size.width - L.queueMin - L.splitter)}
          direction={-1}
          onChange={(v) => change({ sideWidth: v })}
          onCommit={(v) => save({ sideWidth: v })}
        />
        <div className="side" style={{ '--graph-share': layout.graphShare } as React.CSSProperties}>
          {graph({
            collapsed: layout.graphCollapsed,
            onToggle: () => save({ graphCollapsed: !layout.graphCollapsed }),
          })}
          {bothOpen && (
            <Splitter
              orientation="horizontal"
              label="Resize the graph and the log"
              value={layout.graphShare * column}
              min={0.1 * column}
              max={0.9 * column}
              direction={1}
              onChange={(v) => change({ graphShare: v / column })}
              onCommit={(v) => save({ graphShare: v / column })}
            />
          )}
          {log({ collapsed: layout.logCollapsed, onToggle: () => save({ logCollapsed: !layout.logCollapsed }) })}
        </div>
      </div>
    </div>
  );
}
