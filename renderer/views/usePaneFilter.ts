/**
 * A pane's name filter (format/paneFilter.ts): its text, the field it is typed in, and the matcher over names. A
 * printable key in the grid starts it (type-to-filter), Escape or the clear button empties it; it is emptied when the
 * pane's folder changes (a filter is for the folder in view, as in WinSCP's and Total Commander's quick filters).
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { nameMatcher } from '../format/paneFilter';

/** What the header's field and the keys use. */
export interface PaneFilterState {
  text: string;
  setText: (text: string) => void;
  /** Types `more` at the end and puts the focus in the field. */
  typeFilter: (more: string) => void;
  /** Empties the filter (the grid keeps or gets the focus). */
  clearFilter: () => void;
  inputRef: React.RefObject<HTMLInputElement | null>;
  matches: (name: string) => boolean;
}

/**
 * @param cwd the folder shown (a change empties the filter)
 * @param focusGrid gives the grid the focus (after a clear)
 */
export function usePaneFilter(cwd: string, focusGrid: () => void): PaneFilterState {
  const [text, setText] = useState('');
  const inputRef = useRef<HTMLInputElement>(null);
  useEffect(() => setText(''), [cwd]);
  const matches = useMemo(() => nameMatcher(text), [text]);
  return {
    text,
    setText,
    typeFilter: (more) => {
      setText((t) => t + more);
      inputRef.current?.focus();
    },
    clearFilter: () => {
      setText('');
      focusGrid();
    },
    inputRef,
    matches,
  };
}
