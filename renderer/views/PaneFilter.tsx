/**
 * A pane's filter field in its action bar: a substring or a glob (`*`, `?`) over the names, a clear button, Escape
 * clears (views/usePaneFilter.ts holds the state).
 */
import type { PaneFilterState } from './usePaneFilter';

/** The filter field and its clear button. */
export function PaneFilter({ title, filter }: { title: string; filter: PaneFilterState }) {
  return (
    <span className="pane-filter">
      <input
        ref={filter.inputRef}
        type="search"
        aria-label={`${title} filter`}
        placeholder="Filter"
        title="Show only names containing this text, or matching a pattern with * and ?"
        value={filter.text}
        spellCheck={false}
        autoComplete="off"
        onChange={(e) => filter.setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key !== 'Escape') return;
          e.preventDefault();
          e.stopPropagation();
          filter.clearFilter();
        }}
      />
      {filter.text !== '' && (
        <button
          type="button"
          aria-label={`${title}: clear filter`}
          title="Clear the filter (Escape)"
          onClick={filter.clearFilter}
        >
          ×
        </button>
      )}
    </span>
  );
}
