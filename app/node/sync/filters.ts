/**
 * `sluice sync`'s `--include`, `--exclude` and `--exclude-from`: rsync's rule order with rclone's glob rules, matched
 * by picomatch. Paths are relative to the synced folder, `/`-separated, without a leading `/`.
 *
 * - The rules are read in the order they are given on the command line; the first rule that matches decides (rsync).
 * - `*` matches within one name, `**` across folders, `?` one character, `[a-z]` a class, `{a,b}` either (rclone).
 * - A pattern without a `/` matches the name at any depth (`*.log` matches `a/b/x.log`); a pattern with a `/` inside
 *   matches the end of the path (`cache/*.tmp` matches `a/cache/x.tmp`); a leading `/` anchors it at the root of the
 *   synced folder (`/build` matches `build`, not `src/build`) (rsync and rclone alike).
 * - A trailing `/` matches folders only (`tmp/` excludes every folder named tmp, not a file of that name).
 * - An excluded folder is not walked at all: nothing below it is listed, copied or deleted, whatever rules follow
 *   (rsync, and rclone since 1.54: `--exclude dir/` equals `--exclude dir/**`).
 * - When any `--include` is given, a file that matches no rule is excluded (rclone's implicit `- **` at the end),
 *   while folders that match no rule are still walked, so `--include '*.jpg'` syncs the jpgs of every folder.
 * - Excluded files are left alone on both sides: `--delete` never removes them (rsync without --delete-excluded).
 */
import fs from 'node:fs';
import picomatch from 'picomatch';
import { SluiceError, fromLocalError } from '../errors';

/** One `--include` or `--exclude` pattern, in command-line order. */
export interface FilterRule {
  kind: 'include' | 'exclude';
  pattern: string;
}

interface CompiledRule extends FilterRule {
  foldersOnly: boolean;
  test: (rel: string) => boolean;
}

/** Decides which paths of a sync are considered ({@link compileFilters}). */
export interface PathFilter {
  /** True when `rel` (a file, or a folder when `isDir`) is part of the sync. */
  includes(rel: string, isDir: boolean): boolean;
  /** The rules as given, for the plan's header. */
  readonly rules: readonly FilterRule[];
}

/** Patterns longer than this are refused (picomatch builds one regular expression per pattern). */
const MAX_PATTERN_LENGTH = 4096;

function compileRule(rule: FilterRule): CompiledRule {
  let p = rule.pattern;
  if (p === '' || p === '/') throw new SluiceError('USAGE', `--${rule.kind}: an empty pattern matches nothing`);
  if (p.length > MAX_PATTERN_LENGTH)
    throw new SluiceError('USAGE', `--${rule.kind}: pattern longer than ${MAX_PATTERN_LENGTH} characters`);
  const foldersOnly = p.endsWith('/');
  if (foldersOnly) p = p.replace(/\/+$/, '');
  const anchored = p.startsWith('/');
  if (anchored) p = p.replace(/^\/+/, '');
  // Without a `/` the name is matched at any depth; with one inside, the end of the path; anchored, the whole path.
  const globs = anchored || p.startsWith('**/') ? [p] : [p, `**/${p}`];
  const test = picomatch(globs, { dot: true, nonegate: true, noextglob: true });
  return { ...rule, foldersOnly, test };
}

/**
 * Compiles filter rules, checked in order, the first match deciding (see the module comment for the rules).
 * @param rules `--include`/`--exclude` patterns in command-line order (`--exclude-from` lines as excludes, in place)
 * @throws SluiceError USAGE for an empty or over-long pattern
 */
export function compileFilters(rules: readonly FilterRule[]): PathFilter {
  const compiled = rules.map(compileRule);
  const anyInclude = rules.some((r) => r.kind === 'include');
  return {
    rules,
    includes(rel: string, isDir: boolean): boolean {
      for (const r of compiled) {
        if (r.foldersOnly && !isDir) continue;
        if (r.test(rel)) return r.kind === 'include';
      }
      return isDir || !anyInclude;
    },
  };
}

/**
 * The patterns of an `--exclude-from` file as rclone reads them: one per line, surrounding blanks trimmed; empty
 * lines and lines starting with `#` or `;` are comments. Each pattern is an exclude.
 * @param text the file's content (UTF-8)
 */
export function parseExcludeFrom(text: string): FilterRule[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#') && !l.startsWith(';'))
    .map((pattern) => ({ kind: 'exclude' as const, pattern }));
}

/**
 * Reads an `--exclude-from` file ({@link parseExcludeFrom}); `-` reads standard input.
 * @throws SluiceError LOCAL_IO (or NO_SUCH_FILE) naming the file when it cannot be read
 */
export function readExcludeFrom(file: string): FilterRule[] {
  try {
    return parseExcludeFrom(fs.readFileSync(file === '-' ? 0 : file, 'utf8'));
  } catch (e) {
    throw fromLocalError(e, file);
  }
}
