/**
 * Untrusted text (remote names, server messages, a server's identification line) made safe to show: on a terminal,
 * where C0/C1 controls start escape sequences, and anywhere text is laid out, where Unicode bidirectional controls
 * reorder what is shown (a name `evil\u202Etxt.exe` displays as `evilexe.txt`).
 */

/**
 * C0, DEL, C1 (ESC and CSI among them), the line and paragraph separators, and the bidi controls: ALM U+061C,
 * LRM/RLM U+200E–U+200F, the embeddings and overrides U+202A–U+202E, the isolates U+2066–U+2069 (Unicode UAX #9).
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/**
 * Makes untrusted text safe to print: each unsafe character (see {@link UNSAFE}) becomes `\xNN` or `\uNNNN`, and
 * the result is cut at `max` characters (an ellipsis marks the cut). Idempotent: escaping twice changes nothing.
 * @param max characters kept (default 300); `Infinity` for no cut
 */
export function displayText(text: string, max = 300): string {
  let out = text.replace(UNSAFE, (c) => {
    const n = c.charCodeAt(0);
    return n <= 0xff ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`;
  });
  if (out.length > max) out = `${out.slice(0, max)}…`;
  return out;
}

/**
 * A message of one or more lines for a terminal: every line escaped by {@link displayText} without a cut, the line
 * breaks themselves kept. The last guard of every CLI line that can carry server text.
 */
export function terminalText(text: string): string {
  return text
    .split('\n')
    .map((l) => displayText(l, Infinity))
    .join('\n');
}
