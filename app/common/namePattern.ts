/**
 * A name pattern of the remote find (#26 item 5): a substring, or a glob over the whole name (`*` any run of
 * characters, `?` one character, `[abc]`, `[a-z]` and `[!abc]` a set, `\` quotes the next character), either with or
 * without regard to case.
 */

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\/]/g;

/** A glob as a regular expression's source, anchored. An unclosed `[` is a plain character. */
function globSource(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '\\' && i + 1 < glob.length) out += glob[++i].replace(REGEX_SPECIAL, '\\$&');
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) {
        out += '\\[';
        continue;
      }
      let body = glob.slice(i + 1, end);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      out += `[${negate ? '^' : ''}${body.replace(/[\\\]^[]/g, '\\$&')}]`;
      i = end;
    } else out += c.replace(REGEX_SPECIAL, '\\$&');
  }
  return `^${out}$`;
}

/**
 * The test of a name against a pattern.
 * @param match `substring`: the name contains the pattern; `glob`: the whole name matches it
 * @param caseSensitive false: `README` matches `readme`
 */
export function namePattern(
  pattern: string,
  match: 'substring' | 'glob',
  caseSensitive = false,
): (name: string) => boolean {
  if (match === 'glob') {
    const re = new RegExp(globSource(pattern), caseSensitive ? 'su' : 'siu');
    return (name) => re.test(name);
  }
  if (caseSensitive) return (name) => name.includes(pattern);
  const lower = pattern.toLowerCase();
  return (name) => name.toLowerCase().includes(lower);
}
