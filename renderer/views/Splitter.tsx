/**
 * A splitter between two panels (WAI-ARIA "window splitter": role="separator", focusable, aria-valuenow): dragged with
 * the pointer, or moved with the arrow keys (16 px, Shift 64 px) and Home/End. `onChange` follows the drag; `onCommit`
 * gets the final value once (pointer up, key press) to be saved.
 */
import { useRef } from 'react';

export interface SplitterProps {
  /** `horizontal`: a bar between panels stacked vertically (it moves up and down). */
  orientation: 'horizontal' | 'vertical';
  label: string;
  /** The size the splitter controls, px, and its bounds. */
  value: number;
  min: number;
  max: number;
  /** +1: moving right/down makes `value` larger; -1: smaller (a panel below or to the right of the bar). */
  direction: 1 | -1;
  onChange: (value: number) => void;
  onCommit: (value: number) => void;
}

/** The bar. */
export function Splitter({ orientation, label, value, min, max, direction, onChange, onCommit }: SplitterProps) {
  const drag = useRef<{ start: number; value: number; last: number } | null>(null);
  const clamp = (v: number) => Math.round(Math.max(min, Math.min(max, v)));
  const coord = (e: React.PointerEvent) => (orientation === 'horizontal' ? e.clientY : e.clientX);
  const step = (delta: number) => {
    const next = clamp(value + delta);
    onChange(next);
    onCommit(next);
  };
  return (
    <div
      role="separator"
      className={`splitter splitter-${orientation}`}
      aria-orientation={orientation}
      aria-label={label}
      aria-valuenow={Math.round(value)}
      aria-valuemin={Math.round(min)}
      aria-valuemax={Math.round(max)}
      tabIndex={0}
      onPointerDown={(e) => {
        e.currentTarget.setPointerCapture(e.pointerId);
        drag.current = { start: coord(e), value, last: value };
        e.preventDefault();
      }}
      onPointerMove={(e) => {
        const d = drag.current;
        if (!d) return;
        d.last = clamp(d.value + direction * (coord(e) - d.start));
        onChange(d.last);
      }}
      onPointerUp={(e) => {
        const d = drag.current;
        drag.current = null;
        if (e.currentTarget.hasPointerCapture(e.pointerId)) e.currentTarget.releasePointerCapture(e.pointerId);
        if (d) onCommit(d.last);
      }}
      onKeyDown={(e) => {
        const unit = e.shiftKey ? 64 : 16;
        const back = orientation === 'horizontal' ? 'ArrowUp' : 'ArrowLeft';
        const fwd = orientation === 'horizontal' ? 'ArrowDown' : 'ArrowRight';
        if (e.key === back) step(-direction * unit);
        else if (e.key === fwd) step(direction * unit);
        else if (e.key === 'Home') step(min - value);
        else if (e.key === 'End') step(max - value);
        else return;
        e.preventDefault();
      }}
    />
  );
}
