#!/usr/bin/env node
'use strict';
/**
 * `npm run screenshots`: refreshes docs/screenshots from ONE run of the Playwright specs, so that the set is
 * consistent (same build, same window size, neutral paths). The run writes test-results/screenshots/ (ignored by
 * git; Playwright empties test-results at the start); only when it passes, wrote every picture the specs name and
 * all pictures have one size (except those whose name ends in their size, e.g. `window-1024x700`) are they copied into
 * docs/screenshots; a picture there that no spec writes any more is removed (and named). HOME is a fresh scratch folder
 * for the run, so the local pane shows an empty neutral home (/home/alice in the pictures:
 * e2e/fixtures/neutralPaths.ts) rather than the machine's.
 *
 *   npm run screenshots                # build, build:renderer, then this
 *   node scripts/screenshots.js        # the run and the copy (dist/ and renderer/dist built)
 *
 * Exit 0 when docs/screenshots was refreshed; 1 when the run failed or the set is incomplete (docs/screenshots then
 * left as it was).
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const RUN_DIR = path.join(ROOT, 'test-results', 'screenshots');
const DOCS_DIR = path.join(ROOT, 'docs', 'screenshots');

/** Every name the specs pass to `app.screenshot('NAME')` (a static scan of e2e/**\/*.spec.ts). */
function expectedNames(e2eDir = path.join(ROOT, 'e2e')) {
  const names = new Set();
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith('.spec.ts')) {
        const text = fs.readFileSync(full, 'utf8');
        for (const m of text.matchAll(/\.screenshot\(\s*'([^']+)'\s*\)/g)) names.add(m[1]);
        // Pictures taken in a loop name themselves in a table: `{ …, shot: 'window-1024x700' }`.
        for (const m of text.matchAll(/\bshot:\s*'([^']+)'/g)) names.add(m[1]);
      }
    }
  };
  walk(e2eDir);
  return [...names].sort();
}

/** Width and height of a PNG from its IHDR chunk; throws when `buf` is not a PNG. */
function pngSize(buf) {
  if (buf.length < 24 || buf.toString('latin1', 1, 4) !== 'PNG' || buf.toString('latin1', 12, 16) !== 'IHDR') {
    throw new Error('not a PNG file');
  }
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

/**
 * What to do with one run's pictures.
 * @param expected  names the specs write (without .png)
 * @param written   `{ name, width, height }` of each PNG the run wrote
 * @param existing  names of the PNGs in docs/screenshots now
 * @returns `{ problems: string[], copy: string[], remove: string[] }`: copy and remove only when there is no problem
 */
function plan({ expected, written, existing }) {
  const problems = [];
  const got = new Set(written.map((w) => w.name));
  const missing = expected.filter((n) => !got.has(n));
  if (missing.length)
    problems.push(`not written by this run (a spec skipped or failed before it): ${missing.join(', ')}`);
  const sizes = new Map();
  for (const w of written) {
    // A picture of a deliberate window size says it in its name (`-1024x700`) and must have that size.
    const sized = /-(\d+)x(\d+)$/.exec(w.name);
    if (sized) {
      if (w.width !== Number(sized[1]) || w.height !== Number(sized[2])) {
        problems.push(`${w.name} is ${w.width}×${w.height}, not the size its name says`);
      }
      continue;
    }
    const k = `${w.width}×${w.height}`;
    sizes.set(k, [...(sizes.get(k) || []), w.name]);
  }
  if (sizes.size > 1) {
    problems.push(`pictures of different sizes: ${[...sizes].map(([k, v]) => `${k} (${v.join(', ')})`).join('; ')}`);
  }
  if (written.length === 0) problems.push('the run wrote no picture');
  if (problems.length) return { problems, copy: [], remove: [] };
  return { problems, copy: [...got].sort(), remove: existing.filter((n) => !got.has(n)).sort() };
}

/** The names of `docs/screenshots/*.png` that its README.md does not mention. */
function unlisted(names, readme) {
  return names.filter((n) => !readme.includes(`${n}.png`));
}

function main(argv) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-e2e-local-'));
  fs.rmSync(RUN_DIR, { recursive: true, force: true });
  console.log('screenshots: running every Playwright spec once (this takes several minutes)');
  const playwright = path.join(ROOT, 'node_modules', '.bin', 'playwright');
  const run = spawnSync(playwright, ['test', ...argv], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, HOME: home, USERPROFILE: home, SLUICE_SCREENSHOT_DIR: RUN_DIR },
  });
  fs.rmSync(home, { recursive: true, force: true });
  if (run.status !== 0) {
    console.error(
      `screenshots: the e2e run failed (exit ${run.status ?? run.signal}); docs/screenshots left as it was`,
    );
    return 1;
  }
  const files = fs.existsSync(RUN_DIR) ? fs.readdirSync(RUN_DIR).filter((f) => f.endsWith('.png')) : [];
  const written = files.map((f) => ({ name: f.slice(0, -4), ...pngSize(fs.readFileSync(path.join(RUN_DIR, f))) }));
  const existing = fs
    .readdirSync(DOCS_DIR)
    .filter((f) => f.endsWith('.png'))
    .map((f) => f.slice(0, -4));
  const p = plan({ expected: expectedNames(), written, existing });
  if (p.problems.length) {
    for (const m of p.problems) console.error(`screenshots: ${m}`);
    console.error('screenshots: docs/screenshots left as it was');
    return 1;
  }
  for (const n of p.copy) fs.copyFileSync(path.join(RUN_DIR, `${n}.png`), path.join(DOCS_DIR, `${n}.png`));
  for (const n of p.remove) {
    fs.rmSync(path.join(DOCS_DIR, `${n}.png`));
    console.log(`screenshots: removed docs/screenshots/${n}.png (no spec writes it any more)`);
  }
  const size = `${written[0].width}×${written[0].height}`;
  console.log(`screenshots: ${p.copy.length} pictures (${size}) copied into docs/screenshots from one run`);
  const missingDocs = unlisted(p.copy, fs.readFileSync(path.join(DOCS_DIR, 'README.md'), 'utf8'));
  if (missingDocs.length)
    console.log(`screenshots: add to docs/screenshots/README.md: ${missingDocs.map((n) => `${n}.png`).join(', ')}`);
  return 0;
}

module.exports = { expectedNames, pngSize, plan, unlisted };

if (require.main === module) process.exitCode = main(process.argv.slice(2));
