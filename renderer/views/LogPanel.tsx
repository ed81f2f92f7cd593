/**
 * Log panel: the engine's redacted log lines plus UI-side errors, newest at the bottom, auto-scrolled.
 */
import { useEffect, useRef } from 'react';
import { useAppState } from '../state/react';
import { displayText } from '../../app/common/displayText';

function time(t: number): string {
  const d = new Date(t);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/** The log panel. */
export function LogPanel() {
  const lines = useAppState((s) => s.log);
  const ref = useRef<HTMLOListElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [lines]);
  return (
    <section className="log" aria-label="Log">
      <h2>Log</h2>
      <ol ref={ref} role="log" aria-label="Log lines" aria-live="polite">
        {lines.map((l, i) => (
          <li key={`${l.t}-${i}`} className={`lvl-${l.level}`}>
            {time(l.t)} {l.level.toUpperCase()} {displayText(l.message, Infinity)}
          </li>
        ))}
      </ol>
    </section>
  );
}
