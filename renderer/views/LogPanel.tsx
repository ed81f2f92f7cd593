/**
 * Log panel: the engine's redacted log lines plus UI-side errors, newest at the bottom, auto-scrolled. The header's
 * button folds it to its header (the layout keeps it).
 */
import { useEffect, useRef } from 'react';
import { useAppState } from '../state/react';
import { formatTime } from '../format/format';
import { displayText } from '../../app/common/displayText';

/** The log panel. */
export function LogPanel({ collapsed = false, onToggle }: { collapsed?: boolean; onToggle?: () => void }) {
  const lines = useAppState((s) => s.log);
  const ref = useRef<HTMLOListElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [lines]);
  return (
    <section className={`log${collapsed ? ' collapsed' : ''}`} aria-label="Log">
      <h2>
        Log
        {onToggle && (
          <button
            type="button"
            className="fold"
            aria-expanded={!collapsed}
            aria-label={collapsed ? 'Show the log' : 'Hide the log'}
            onClick={onToggle}
          >
            {collapsed ? '▸' : '▾'}
          </button>
        )}
      </h2>
      <ol ref={ref} role="log" aria-label="Log lines" aria-live="polite">
        {lines.map((l, i) => (
          <li key={`${l.t}-${i}`} className={`lvl-${l.level}`}>
            {formatTime(l.t)} {l.level.toUpperCase()} {displayText(l.message, Infinity)}
          </li>
        ))}
      </ol>
    </section>
  );
}
