/** compileFilters by tables: rsync's order (first match wins), rclone's globs, anchors, folder-only patterns. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileFilters, parseExcludeFrom, type FilterRule } from './filters';

const ex = (pattern: string): FilterRule => ({ kind: 'exclude', pattern });
const inc = (pattern: string): FilterRule => ({ kind: 'include', pattern });

const cases: Array<[string, FilterRule[], string, boolean, boolean]> = [
  // [what, rules, path, isDir, included]
  ['no rules: everything', [], 'a/b.txt', false, true],
  ['a name pattern matches at any depth', [ex('*.log')], 'a/b/x.log', false, false],
  ['… and at the top', [ex('*.log')], 'x.log', false, false],
  ['* stays within one name', [ex('/*.log')], 'a/x.log', false, true],
  ['a leading / anchors at the root', [ex('/build')], 'build', true, false],
  ['… and not below it', [ex('/build')], 'src/build', true, true],
  ['a / inside matches the end of the path', [ex('cache/*.tmp')], 'a/cache/x.tmp', false, false],
  ['** crosses folders', [ex('/a/**/z')], 'a/b/c/z', false, false],
  ['? is one character', [ex('file?.txt')], 'file1.txt', false, false],
  ['? is not two', [ex('file?.txt')], 'file12.txt', false, true],
  ['a class', [ex('[0-9]*')], 'd/7up', false, false],
  ['braces', [ex('*.{jpg,png}')], 'p/x.png', false, false],
  ['dot files are matched by *', [ex('*')], '.hidden', false, false],
  ['a trailing / matches folders', [ex('tmp/')], 'a/tmp', true, false],
  ['… and not files', [ex('tmp/')], 'a/tmp', false, true],
  ['first match wins: include before exclude', [inc('keep.log'), ex('*.log')], 'keep.log', false, true],
  ['first match wins: exclude before include', [ex('*.log'), inc('keep.log')], 'keep.log', false, false],
  ['an --include leaves other files out (rclone)', [inc('*.jpg')], 'a/b.txt', false, false],
  ['… and lets its files in', [inc('*.jpg')], 'a/b.jpg', false, true],
  ['… while folders are still walked', [inc('*.jpg')], 'a', true, true],
  ['excludes alone keep the rest', [ex('*.log')], 'a/b.txt', false, true],
  ['no negation: a leading ! is a name', [ex('!x')], '!x', false, false],
];
for (const [what, rules, p, isDir, want] of cases) {
  test(`filters: ${what} (${rules.map((r) => `${r.kind} ${r.pattern}`).join(', ') || 'none'}; ${p}${isDir ? '/' : ''})`, () => {
    assert.equal(compileFilters(rules).includes(p, isDir), want);
  });
}

test('an empty pattern is a usage error', () => {
  assert.throws(() => compileFilters([ex('')]), /--exclude: an empty pattern/);
});

test('--exclude-from: one exclude per line, blank lines and # or ; comments skipped, blanks trimmed', () => {
  assert.deepEqual(parseExcludeFrom('# build output\n*.o\r\n\n; editor\n  .*.swp  \n/dist/\n'), [
    ex('*.o'),
    ex('.*.swp'),
    ex('/dist/'),
  ]);
});
