/**
 * The editor command of Settings (#26 item 1), as app/node/edit/launch.ts starts it and the Settings field checks it:
 * split into words as a POSIX shell splits plain words and quotes ('…', "…", backslash), without a shell (nothing is
 * expanded, no `;` or `$()`); `{file}` stands for the edited file's path, else the path is added as the last word.
 */

/** A command that cannot be split: empty, or an unclosed quote. */
export class EditorCommandError extends Error {}

/**
 * Splits an editor command into words.
 * @throws EditorCommandError for an empty command or an unclosed quote
 */
export function splitEditorCommand(command: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < command.length) word += command[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < command.length) {
      word += command[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new EditorCommandError(`The editor command has an unclosed ${quote}: ${command}`);
  if (inWord) words.push(word);
  if (words.length === 0) throw new EditorCommandError('The editor command is empty');
  return words;
}
