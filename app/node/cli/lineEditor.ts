/**
 * The CLI prompts' line editor, pure: it takes the characters that arrived and returns what the line became, what
 * to echo, and whether the line ended (Enter: CR, LF or CR LF), was cancelled (Ctrl-C; Ctrl-D on an empty line) or
 * wants more. Backspace (DEL or BS) removes the last code point, Ctrl-U the whole line; escape sequences (arrow keys:
 * ESC [ … final byte, ECMA-48 §5.4) and other control characters are dropped. cli/prompt.ts drives it over a
 * terminal in raw mode.
 */

/** What the editor remembers between chunks. */
export interface LineState {
  /** The line so far. */
  answer: string;
  /** Inside an escape sequence: after ESC, or inside a CSI (ESC [) until its final byte. */
  escape: 'none' | 'esc' | 'csi';
  /** The previous line ended with CR: a LF right after belongs to it (kept from one line to the next). */
  skipLf: boolean;
}

/** How a chunk left the line. */
export type LineOutcome =
  | { kind: 'more' }
  /** Enter: `rest` is what came after it in the chunk (typed ahead, for the next question). */
  | { kind: 'done'; rest: string }
  | { kind: 'cancel'; message: string };

/** What {@link editLine} returns. */
export interface LineEdit {
  state: LineState;
  outcome: LineOutcome;
  /** What to write to the terminal: the typed characters and erasures when echoing, else ''. */
  echo: string;
}

/** A new line's state; `skipLf` carries over from the line before. */
export function newLine(skipLf = false): LineState {
  return { answer: '', escape: 'none', skipLf };
}

/**
 * Feeds `text` (decoded characters) to the line `state`.
 * @param echo whether typed characters are shown (false for secrets: nothing is written)
 */
export function editLine(state: LineState, text: string, echo: boolean): LineEdit {
  let { answer, escape, skipLf } = state;
  let out = '';
  const erase = (count: number): void => {
    if (echo && count > 0) out += '\b \b'.repeat(count);
  };
  const result = (outcome: LineOutcome): LineEdit => ({ state: { answer, escape, skipLf }, outcome, echo: out });
  let used = 0;
  for (const ch of Array.from(text)) {
    used += ch.length;
    if (skipLf) {
      skipLf = false;
      if (ch === '\n') continue;
    }
    if (escape === 'esc') {
      escape = ch === '[' ? 'csi' : 'none';
      continue;
    }
    if (escape === 'csi') {
      if (ch >= '@' && ch <= '~') escape = 'none'; // CSI final byte (ECMA-48 §5.4)
      continue;
    }
    switch (ch) {
      case '\r':
        skipLf = true;
        return result({ kind: 'done', rest: text.slice(used) });
      case '\n':
        return result({ kind: 'done', rest: text.slice(used) });
      case '\u0003': // Ctrl-C
        return result({ kind: 'cancel', message: 'Cancelled' });
      case '\u0004': // Ctrl-D: end of input on an empty line
        if (answer === '') return result({ kind: 'cancel', message: 'Cancelled (end of input)' });
        continue;
      case '\u007f':
      case '\b':
        if (answer !== '') {
          answer = Array.from(answer).slice(0, -1).join('');
          erase(1);
        }
        continue;
      case '\u0015': // Ctrl-U: kill the line
        erase(Array.from(answer).length);
        answer = '';
        continue;
      case '\u001b':
        escape = 'esc';
        continue;
      default:
        if (ch < ' ') continue;
        answer += ch;
        if (echo) out += ch;
    }
  }
  return result({ kind: 'more' });
}
