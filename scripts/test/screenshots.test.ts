/**
 * scripts/screenshots.js (`npm run screenshots`): docs/screenshots is refreshed only from one whole run, at one
 * size, and pictures no spec writes any more are removed; the e2e run itself writes only to an ignored folder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, screenshotsScript } from './scriptsApi';

const s = screenshotsScript();
const W = 1400;
const H = 860;

test('a whole run at one size is copied; a picture no spec writes any more is removed', () => {
  const p = s.plan({
    expected: ['a', 'b'],
    written: [
      { name: 'a', width: W, height: H },
      { name: 'b', width: W, height: H },
    ],
    existing: ['a', 'old'],
  });
  assert.deepEqual(p, { problems: [], copy: ['a', 'b'], remove: ['old'] });
});

test('an incomplete run or mixed sizes copy nothing and say why', () => {
  const missing = s.plan({
    expected: ['a', 'b', 'c'],
    written: [{ name: 'a', width: W, height: H }],
    existing: ['a', 'b', 'c'],
  });
  assert.deepEqual([missing.copy, missing.remove], [[], []]);
  assert.deepEqual(missing.problems, ['not written by this run (a spec skipped or failed before it): b, c']);
  const mixed = s.plan({
    expected: ['a', 'b'],
    written: [
      { name: 'a', width: W, height: H },
      { name: 'b', width: 800, height: 600 },
    ],
    existing: [],
  });
  assert.deepEqual(mixed.problems, ['pictures of different sizes: 1400×860 (a); 800×600 (b)']);
  assert.deepEqual(s.plan({ expected: [], written: [], existing: ['a'] }).problems, ['the run wrote no picture']);
  const sized = s.plan({
    expected: ['a', 'w-1024x700', 'x-800x600'],
    written: [
      { name: 'a', width: W, height: H },
      { name: 'w-1024x700', width: 1024, height: 700 },
      { name: 'x-800x600', width: W, height: H },
    ],
    existing: [],
  });
  assert.deepEqual(
    sized.problems,
    ['x-800x600 is 1400×860, not the size its name says'],
    'a size in the name is checked, not mixed',
  );
});

test('PNG sizes are read from the file header; anything else is refused', () => {
  assert.deepEqual(s.pngSize(fs.readFileSync(path.join(ROOT, 'docs', 'screenshots', 'browser.png'))), {
    width: W,
    height: H,
  });
  assert.throws(() => s.pngSize(Buffer.from('not a png at all, really not')), /not a PNG/);
});

test('docs/screenshots holds exactly the pictures the specs write, each listed in its README.md', () => {
  const expected = s.expectedNames();
  assert.ok(expected.includes('queue-and-graph') && expected.includes('hostkey-unknown'), expected.join(', '));
  const docs = fs
    .readdirSync(path.join(ROOT, 'docs', 'screenshots'))
    .filter((f) => f.endsWith('.png'))
    .map((f) => f.slice(0, -4))
    .sort();
  assert.deepEqual(docs, expected);
  assert.deepEqual(
    s.unlisted(expected, fs.readFileSync(path.join(ROOT, 'docs', 'screenshots', 'README.md'), 'utf8')),
    [],
  );
});

test('the e2e run writes its screenshots to an ignored folder, not into docs/', () => {
  const page = fs.readFileSync(path.join(ROOT, 'e2e', 'pages', 'SluicePage.ts'), 'utf8');
  assert.match(page, /'test-results', 'screenshots'/);
  assert.doesNotMatch(page, /'docs', 'screenshots'/);
  const ignored = spawnSync('git', ['check-ignore', '-q', 'test-results/screenshots/x.png'], { cwd: ROOT });
  assert.equal(ignored.status, 0, 'test-results/screenshots is ignored by git');
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  assert.equal(pkg.scripts.screenshots, 'npm run build && npm run build:renderer && node scripts/screenshots.js');
});
