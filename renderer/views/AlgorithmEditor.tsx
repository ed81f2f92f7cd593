/**
 * The site form's algorithm lists (issue #15): one collapsible group per family (ciphers, key exchanges, MACs,
 * host-key algorithms) with a checkbox per name, Move up / Move down buttons for the enabled ones (most preferred
 * first), weak names marked with their reason, and "Reset to defaults". Keyboard: Tab through the checkboxes and
 * buttons; a moved row keeps the focus on its button.
 */
import { useEffect, useRef, useState } from 'react';
import type { AlgorithmCatalog, AlgorithmFamilyName } from '../../app/common/algorithms';
import { ALGORITHM_FAMILIES, SITE_ALGORITHM_FIELDS } from '../../app/common/algorithms';
import {
  FAMILY_LABELS,
  choiceSummary,
  familyOf,
  move,
  rowsOf,
  toggle,
  type AlgorithmChoice,
} from '../state/algorithmLists';
import { useBridge } from '../state/react';
import type { AlgorithmField } from '../state/siteForm';

export interface AlgorithmEditorProps {
  /** The engine's catalog (`algorithms.catalog`); null while it loads. */
  catalog: AlgorithmCatalog | null;
  /** Why the catalog could not be read, if it could not. */
  catalogError?: string | null;
  choices: Readonly<Record<AlgorithmField, AlgorithmChoice>>;
  errors: Partial<Record<AlgorithmField, string>>;
  onChange: (field: AlgorithmField, choice: AlgorithmChoice) => void;
  /** Families shown open at first (e.g. one with a weak name enabled). */
  initiallyOpen?: AlgorithmFamilyName[];
}

/** The engine's catalog (`algorithms.catalog`), read once per form; null while it loads, or with the error. */
export function useAlgorithmCatalog(): { catalog: AlgorithmCatalog | null; catalogError: string | null } {
  const bridge = useBridge();
  const [state, setState] = useState<{ catalog: AlgorithmCatalog | null; catalogError: string | null }>({
    catalog: null,
    catalogError: null,
  });
  useEffect(() => {
    let live = true;
    void bridge.algorithmsCatalog().then((r) => {
      if (live)
        setState(r.ok ? { catalog: r.value, catalogError: null } : { catalog: null, catalogError: r.error.message });
    });
    return () => {
      live = false;
    };
  }, [bridge]);
  return state;
}

/** Every family's list. */
export function AlgorithmEditor({
  catalog,
  catalogError,
  choices,
  errors,
  onChange,
  initiallyOpen = [],
}: AlgorithmEditorProps) {
  if (catalogError)
    return (
      <p className="error-text" role="alert">
        Algorithm lists unavailable: {catalogError}
      </p>
    );
  if (!catalog) return <p className="note">Loading the algorithm lists…</p>;
  return (
    <div className="algorithm-lists">
      {ALGORITHM_FAMILIES.map((family) => {
        const field = SITE_ALGORITHM_FIELDS[family];
        return (
          <FamilyList
            key={family}
            family={family}
            catalog={catalog}
            choice={choices[field]}
            error={errors[field]}
            open={initiallyOpen.includes(family)}
            onChange={(c) => onChange(field, c)}
          />
        );
      })}
    </div>
  );
}

interface FamilyListProps {
  family: AlgorithmFamilyName;
  catalog: AlgorithmCatalog;
  choice: AlgorithmChoice;
  error?: string;
  open: boolean;
  onChange: (choice: AlgorithmChoice) => void;
}

/**
 * Focuses, after a move re-rendered the list, the button whose aria-label was given (or its partner in the row when
 * it became disabled at an end of the list); returns the setter of that label.
 */
function useFocusAfterMove(listRef: React.RefObject<HTMLOListElement | null>) {
  const [focusAfter, setFocusAfter] = useState<string | null>(null);
  useEffect(() => {
    if (!focusAfter || !listRef.current) return;
    const target = [...listRef.current.querySelectorAll<HTMLButtonElement>('button')].find(
      (b) => b.getAttribute('aria-label') === focusAfter,
    );
    // At the end of the list the button is disabled: its partner in the row takes the focus.
    (target && !target.disabled
      ? target
      : target?.parentElement?.querySelector<HTMLButtonElement>('button:not(:disabled)')
    )?.focus();
    setFocusAfter(null);
  }, [listRef, focusAfter]);
  return setFocusAfter;
}

/** One name of a family: its checkbox, Move up / Move down (enabled names only), and why it is marked. */
function AlgorithmRow({
  row: r,
  first,
  last,
  onToggle,
  onMove,
}: {
  row: ReturnType<typeof rowsOf>[number];
  /** The first enabled row (no Move up). */
  first: boolean;
  /** The last enabled row or below (no Move down). */
  last: boolean;
  onToggle: (enabled: boolean) => void;
  onMove: (delta: -1 | 1, buttonLabel: string) => void;
}) {
  const up = `Move ${r.name} up`;
  const down = `Move ${r.name} down`;
  return (
    <li className={`${r.enabled ? 'on' : 'off'}${r.weak ? ' weak' : ''}`}>
      <label>
        <input type="checkbox" checked={r.enabled} onChange={(e) => onToggle(e.target.checked)} />
        <code>{r.name}</code>
      </label>
      <span className="row-buttons">
        <button
          type="button"
          aria-label={up}
          title="More preferred"
          disabled={!r.enabled || first}
          onClick={() => onMove(-1, up)}
        >
          ↑
        </button>
        <button
          type="button"
          aria-label={down}
          title="Less preferred"
          disabled={!r.enabled || last}
          onClick={() => onMove(1, down)}
        >
          ↓
        </button>
      </span>
      {/* The reason whole, on its own line under the name (never cut). */}
      {r.weak && <span className="weak-badge">weak: {r.weak}</span>}
      {r.unsupported && <span className="weak-badge">not supported by this version of Sluice</span>}
      {r.aliasOf && <span className="note alias-note">another spelling of {r.aliasOf} (RFC 5647)</span>}
    </li>
  );
}

/** One family: its rows in a list, and Reset. */
function FamilyList({ family, catalog, choice, error, open, onChange }: FamilyListProps) {
  const fam = familyOf(catalog, family);
  const { title } = FAMILY_LABELS[family];
  const rows = rowsOf(fam, choice);
  const enabledCount = rows.filter((r) => r.enabled).length;
  const listRef = useRef<HTMLOListElement>(null);
  // Open or closed as the user left it (a reset must not fold the list away); a list with an error opens.
  const [expanded, setExpanded] = useState(open);
  const setFocusAfter = useFocusAfterMove(listRef);

  const moveRow = (name: string, delta: -1 | 1, label: string) => {
    onChange(move(fam, choice, name, delta));
    setFocusAfter(label);
  };

  return (
    <details
      className="algorithm-family"
      open={expanded || error !== undefined}
      onToggle={(e) => setExpanded(e.currentTarget.open)}
    >
      <summary>
        {title} <span className="note">— {choiceSummary(fam, choice)}</span>
      </summary>
      <ol ref={listRef} aria-label={title} className="algorithm-rows">
        {rows.map((r, i) => (
          <AlgorithmRow
            key={r.name}
            row={r}
            first={i === 0}
            last={i >= enabledCount - 1}
            onToggle={(on) => onChange(toggle(fam, choice, r.name, on))}
            onMove={(delta, label) => moveRow(r.name, delta, label)}
          />
        ))}
      </ol>
      {error && (
        <div className="error-text" role="alert">
          {error}
        </div>
      )}
      <button
        type="button"
        onClick={() => onChange(null)}
        disabled={choice === null}
        aria-label={`Reset ${title.toLowerCase()} to defaults`}
      >
        Reset to defaults
      </button>
    </details>
  );
}
