/**
 * A context menu (WAI-ARIA menu pattern): role="menu" at a point, kept inside the window, the first enabled item
 * focused; Up/Down/Home/End move, Enter or Space runs an item, Escape or a click elsewhere closes it, and the focus
 * goes back where it was (the caller's grid).
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'react';

/** One item: its label, an optional shortcut shown on the right, disabled when it cannot run now. */
export interface MenuItem {
  id: string;
  label: string;
  shortcut?: string;
  disabled?: boolean;
  run: () => void;
  /** Draw a separator above this item. */
  separator?: boolean;
}

export interface ContextMenuProps {
  /** Accessible name, e.g. `Remote files menu`. */
  label: string;
  /** Where the menu opens, viewport px. */
  x: number;
  y: number;
  items: readonly MenuItem[];
  onClose: () => void;
}

/** Where the menu goes: at (x, y), or up / left of the point when it would overflow the window. */
function useInsideWindow(ref: React.RefObject<HTMLElement | null>, x: number, y: number) {
  const [pos, setPos] = useState({ left: x, top: y });
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const r = el.getBoundingClientRect();
    setPos({
      left: Math.max(0, Math.min(x, window.innerWidth - r.width - 2)),
      top: Math.max(0, y + r.height > window.innerHeight ? y - r.height : y),
    });
  }, [ref, x, y]);
  return pos;
}

/** Calls `onClose` on a mouse press outside the menu, or when the window loses the focus. */
function useCloseOnClickAway(ref: React.RefObject<HTMLElement | null>, onClose: () => void) {
  useEffect(() => {
    const away = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) onClose();
    };
    window.addEventListener('mousedown', away, true);
    window.addEventListener('blur', onClose);
    return () => {
      window.removeEventListener('mousedown', away, true);
      window.removeEventListener('blur', onClose);
    };
  }, [ref, onClose]);
}

/** The menu, rendered at (x, y); calls `onClose` after an item runs too. */
export function ContextMenu({ label, x, y, items, onClose }: ContextMenuProps) {
  const ref = useRef<HTMLUListElement>(null);
  const pos = useInsideWindow(ref, x, y);
  const enabled = items.map((it, i) => (it.disabled ? -1 : i)).filter((i) => i >= 0);
  const [active, setActive] = useState(enabled[0] ?? -1);

  useEffect(() => {
    ref.current?.querySelector<HTMLElement>(`[data-index="${active}"]`)?.focus();
  }, [active]);

  useCloseOnClickAway(ref, onClose);

  const run = (item: MenuItem) => {
    if (item.disabled) return;
    onClose();
    item.run();
  };

  const onKeyDown = (e: React.KeyboardEvent) => {
    e.stopPropagation();
    const at = enabled.indexOf(active);
    const go = (i: number) => setActive(enabled[(i + enabled.length) % enabled.length] ?? -1);
    if (e.key === 'Escape' || e.key === 'Tab' || (e.key === 'F10' && e.shiftKey) || e.key === 'ContextMenu') {
      e.preventDefault();
      onClose();
    } else if (e.key === 'ArrowDown') {
      e.preventDefault();
      go(at + 1);
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      go(at - 1);
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      go(e.key === 'Home' ? 0 : enabled.length - 1);
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      if (items[active]) run(items[active]);
    }
  };

  return (
    <ul
      ref={ref}
      className="context-menu"
      role="menu"
      aria-label={label}
      style={{ left: pos.left, top: pos.top }}
      onKeyDown={onKeyDown}
      onContextMenu={(e) => e.preventDefault()}
    >
      {items.map((item, i) => (
        <li
          key={item.id}
          role="menuitem"
          data-index={i}
          tabIndex={i === active ? 0 : -1}
          aria-disabled={item.disabled ? 'true' : undefined}
          aria-keyshortcuts={item.shortcut}
          className={item.separator ? 'separator' : undefined}
          onMouseEnter={() => !item.disabled && setActive(i)}
          onClick={() => run(item)}
        >
          <span>{item.label}</span>
          {item.shortcut && <kbd>{item.shortcut}</kbd>}
        </li>
      ))}
    </ul>
  );
}
