/**
 * A file pane's folder in its header: the breadcrumbs (each one navigates there; a click beside them, the pencil
 * button or Ctrl+L opens the path field to type or paste a path: Enter goes, Escape cancels), and the Back/Forward
 * buttons of the pane's history (views/usePaneNavigation.ts).
 */
import { useEffect, useRef } from 'react';
import { breadcrumbs } from '../format/format';
import type { PaneKeyLabels } from '../format/paneKeys';
import type { PaneNavigation } from './usePaneNavigation';

export interface PanePathProps {
  title: string;
  /** The folder shown, or null when the pane has none. */
  cwd: string | null;
  sep: '/' | '\\';
  nav: PaneNavigation;
  /** The keys the buttons name (macOS: ⌘[, ⌘L). */
  keys: PaneKeyLabels;
  onNavigate: (path: string) => void;
}

/** The typed path: the folder's path selected, ready to be replaced. */
function PathField({ title, cwd, nav }: PanePathProps & { cwd: string }) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => ref.current?.select(), []);
  return (
    <input
      ref={ref}
      className="path-field"
      aria-label={`${title} path`}
      defaultValue={cwd}
      spellCheck={false}
      autoComplete="off"
      onKeyDown={(e) => {
        if (e.key === 'Enter') nav.submitPath(e.currentTarget.value);
        else if (e.key === 'Escape') nav.cancelPath();
        else return;
        e.preventDefault();
        e.stopPropagation();
      }}
      onBlur={() => nav.editingPath && nav.cancelPath()}
    />
  );
}

/** The pane's title and its folder: breadcrumbs, or the path field while it is open. */
export function PaneTitle(p: PanePathProps) {
  const { title, cwd, sep, nav, onNavigate } = p;
  if (cwd !== null && nav.editingPath) {
    return (
      <div className="pane-title">
        <h2>{title}</h2>
        <PathField {...p} cwd={cwd} />
      </div>
    );
  }
  const crumbs = cwd === null ? [] : breadcrumbs(cwd, sep);
  return (
    <div className="pane-title">
      <h2>{title}</h2>
      <nav
        className="crumbs"
        aria-label={`${title} path`}
        onClick={(e) => e.target === e.currentTarget && nav.editPath()}
      >
        <ol onClick={(e) => e.target === e.currentTarget && nav.editPath()}>
          {crumbs.map((c, i) => (
            <li key={c.path}>
              <button
                type="button"
                onClick={() => onNavigate(c.path)}
                aria-current={i === crumbs.length - 1 ? 'location' : undefined}
              >
                {c.label}
              </button>
            </li>
          ))}
        </ol>
      </nav>
      {cwd !== null && (
        <button
          type="button"
          className="edit-path"
          aria-label={`${title}: type a path`}
          title={`Type a path (${p.keys.path})`}
          onClick={nav.editPath}
        >
          ✎
        </button>
      )}
    </div>
  );
}

/** Back and Forward through the pane's history. */
export function HistoryButtons({ title, nav, keys }: { title: string; nav: PaneNavigation; keys: PaneKeyLabels }) {
  return (
    <>
      <button
        type="button"
        aria-label={`${title}: back`}
        title={`Back (${keys.back})`}
        disabled={!nav.canBack}
        onClick={nav.back}
      >
        ←
      </button>
      <button
        type="button"
        aria-label={`${title}: forward`}
        title={`Forward (${keys.forward})`}
        disabled={!nav.canForward}
        onClick={nav.forward}
      >
        →
      </button>
    </>
  );
}
