/**
 * Synchronize…'s preview list (#27): the plan's create, update and delete sections, each with its counts, bytes and a
 * box that ticks or unticks it, and every item with its own box, its reason and size. Virtualized
 * (@tanstack/react-virtual, as the panes' rows and the queue): a plan of 100,000 items keeps a few dozen rows in the
 * DOM.
 */
import { useMemo, useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { SyncPreviewItem } from '../../app/common/ipc/contract';
import { displayText } from '../../app/common/displayText';
import { formatBytes, plural } from '../format/format';
import { SYNC_SECTIONS, sectionTotals, setSection, setTicked, type SectionTotals } from '../state/syncSelection';

/** Height of a row, px (the CSS's `.sync-list .row`). */
const ROW_HEIGHT = 24;

const SECTION_NAMES = { create: 'Create', update: 'Update', delete: 'Delete' } as const;

type Row = { kind: 'section'; action: SyncPreviewItem['action'] } | { kind: 'item'; item: SyncPreviewItem };

export interface SyncPreviewListProps {
  items: readonly SyncPreviewItem[];
  unticked: ReadonlySet<string>;
  onChange: (unticked: Set<string>) => void;
}

/** A section's line: `Create: 3 files, 1 folder, 1.2 KiB` (ticked ones; `of N` when some are unticked). */
export function sectionText(action: SyncPreviewItem['action'], t: SectionTotals): string {
  const what = [plural(t.files, 'file'), ...(t.folders ? [plural(t.folders, 'folder')] : [])].join(', ');
  const part = t.ticked < t.items ? ` (${t.ticked} of ${t.items} ticked)` : '';
  return `${SECTION_NAMES[action]}: ${what}, ${formatBytes(t.bytes)}${part}`;
}

/** The list. */
export function SyncPreviewList({ items, unticked, onChange }: SyncPreviewListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const rows = useMemo(() => {
    const out: Row[] = [];
    for (const action of SYNC_SECTIONS) {
      const mine = items.filter((i) => i.action === action);
      if (mine.length === 0) continue;
      out.push({ kind: 'section', action }, ...mine.map((item) => ({ kind: 'item' as const, item })));
    }
    return out;
  }, [items]);
  const totals = useMemo(() => sectionTotals(items, unticked), [items, unticked]);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    getItemKey: (i) => {
      const r = rows[i];
      return r.kind === 'section' ? `section:${r.action}` : `${r.item.action}:${r.item.path}`;
    },
    overscan: 12,
  });
  return (
    <div className="sync-list" ref={scrollRef} role="group" aria-label="Synchronization preview">
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {virtualizer.getVirtualItems().map((v) => {
          const r = rows[v.index];
          const style = { position: 'absolute' as const, top: v.start, left: 0, right: 0, height: ROW_HEIGHT };
          if (r.kind === 'section') {
            const t = totals[r.action];
            const text = sectionText(r.action, t);
            return (
              <label key={v.key} className={`row section sync-${r.action}`} style={style}>
                <input
                  type="checkbox"
                  aria-label={text}
                  checked={t.ticked === t.items}
                  ref={(el) => {
                    if (el) el.indeterminate = t.ticked > 0 && t.ticked < t.items;
                  }}
                  onChange={(e) => onChange(setSection(items, unticked, r.action, e.target.checked))}
                />
                {text}
              </label>
            );
          }
          const { item } = r;
          const name = displayText(item.path, Infinity);
          return (
            <label key={v.key} className={`row item sync-${item.action}`} style={style} title={item.reason}>
              <input
                type="checkbox"
                aria-label={`${SECTION_NAMES[item.action]} ${name}`}
                checked={!unticked.has(item.path)}
                onChange={(e) => onChange(setTicked(items, unticked, [item.path], e.target.checked))}
              />
              <span className="path">
                {name}
                {item.kind === 'dir' ? '/' : ''}
              </span>
              <span className="reason muted">{item.reason}</span>
              <span className="num">{item.kind === 'dir' ? '' : formatBytes(item.bytes)}</span>
            </label>
          );
        })}
      </div>
    </div>
  );
}
