/**
 * The two text forms Windows programs keep settings in, read into sections of named values: INI files (`[Section]`
 * then `Name=value` lines, as WinSCP.ini) and registry exports (`.reg` files written by regedit or `reg export`:
 * `Windows Registry Editor Version 5.00` or `REGEDIT4`, `[HKEY_…\Key]` then `"Name"="text"` with `\\` and `\"`
 * escapes, or `"Name"=dword:0000001f` in hex). Binary and multi-string registry values are left out.
 */

/** One INI section or registry key. */
export interface KeySection {
  /** The section name or the registry key path, as written (still escaped the program's way). */
  path: string;
  /** Values by name: strings, or numbers for registry DWORDs. */
  values: Map<string, string | number>;
}

/** Whether a text is a registry export (its first line is the regedit header). */
export function isRegFile(text: string): boolean {
  return /^\uFEFF?\s*(Windows Registry Editor Version [\d.]+|REGEDIT4)\s*$/.test(text.split(/\r?\n/, 1)[0] ?? '');
}

/** An INI file: `[Section]`, `Name=value` (the value is the rest of the line); `;` and `#` lines are comments. */
export function parseIni(text: string): KeySection[] {
  const sections: KeySection[] = [];
  let current: KeySection | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith(';') || line.startsWith('#')) continue;
    const head = /^\[(.*)\]$/.exec(line);
    if (head) {
      current = { path: head[1], values: new Map() };
      sections.push(current);
      continue;
    }
    const eq = line.indexOf('=');
    if (current && eq > 0) current.values.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  return sections;
}

/** A `.reg` string value's text: `\\` -> `\`, `\"` -> `"`. */
function unescapeRegString(s: string): string {
  return s.replace(/\\(.)/g, '$1');
}

/** One `"Name"=…` line into the section; other value kinds are skipped. */
function regValue(section: KeySection, line: string): void {
  const m = /^"((?:[^"\\]|\\.)*)"=(.*)$/.exec(line);
  if (!m) return;
  const name = unescapeRegString(m[1]);
  const value = m[2].trim();
  const str = /^"((?:[^"\\]|\\.)*)"$/.exec(value);
  if (str) section.values.set(name, unescapeRegString(str[1]));
  const dword = /^dword:([0-9a-f]{1,8})$/i.exec(value);
  if (dword) section.values.set(name, parseInt(dword[1], 16));
}

/**
 * A registry export. Lines continued with a trailing `\` (long hex values) are joined; `[-Key]` deletions and
 * comments are skipped.
 */
export function parseRegFile(text: string): KeySection[] {
  const sections: KeySection[] = [];
  let current: KeySection | undefined;
  const lines = text
    .replace(/\\\r?\n\s*/g, '')
    .split(/\r?\n/)
    .slice(1);
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '' || line.startsWith(';')) continue;
    const head = /^\[(.*)\]$/.exec(line);
    if (head) {
      current = head[1].startsWith('-') ? undefined : { path: head[1], values: new Map() };
      if (current) sections.push(current);
      continue;
    }
    if (current) regValue(current, line);
  }
  return sections;
}

/**
 * The sessions of a store: the sections right under `…\Sessions\` (INI `[Sessions\NAME]`, registry
 * `[HKEY_CURRENT_USER\Software\…\Sessions\NAME]`), with NAME still escaped.
 */
export function sessionSections(sections: KeySection[]): Array<{ name: string; values: Map<string, string | number> }> {
  const out: Array<{ name: string; values: Map<string, string | number> }> = [];
  for (const s of sections) {
    const m = /(?:^|\\)Sessions\\([^\\]+)$/i.exec(s.path);
    if (m) out.push({ name: m[1], values: s.values });
  }
  return out;
}
