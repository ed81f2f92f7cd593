#!/usr/bin/env node
'use strict';
/**
 * Checks the running Node against package.json `engines.node` before anything is installed (.ci/run calls it before
 * `npm ci`, so it needs no dependency). The range is `^20.19.0 || >=22.12.0`: the build tools (vite, rolldown,
 * @vitejs/plugin-react) accept exactly that, and Node 20.19 is the first 20.x that loads ES modules with require(),
 * which Electron's downloader (@electron/get 5, ESM only) needs. Electron's own packages (electron, @electron/get,
 * @electron/rebuild) declare `>=22.12.0`, so `npm install` warns EBADENGINE on Node 20; they are used only by
 * `npm start` and `npm run dist`, and load on 20.19+ (docs/packaging.md).
 *
 *   node scripts/check-node.js            exit 0 inside the range; else one paragraph on stderr and exit 1
 *
 * Grammar understood: ranges joined by `||`, each one or more of `>=X.Y.Z`, `<X.Y.Z` or `^X.Y.Z` (a missing minor or
 * patch is 0). Anything else is an error naming the range.
 */
const fs = require('node:fs');
const path = require('node:path');

/** "20.19.0" or "v20.19" -> [20, 19, 0]; throws on anything else. */
function parseVersion(s) {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(String(s).trim());
  if (!m) throw new Error(`not a version: ${s}`);
  return [Number(m[1]), Number(m[2] || 0), Number(m[3] || 0)];
}

function compare(a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

/**
 * True when `version` satisfies `range` (the subset of npm's semver ranges described above).
 * @throws Error naming the range when a part of it is not understood
 */
function satisfies(version, range) {
  const v = parseVersion(version);
  return range.split('||').some((alt) => {
    const parts = alt.trim().split(/\s+/).filter(Boolean);
    if (parts.length === 0) throw new Error(`empty alternative in the Node range "${range}"`);
    return parts.every((p) => {
      const m = /^(\^|>=|<)(.+)$/.exec(p);
      if (!m) throw new Error(`cannot read "${p}" in the Node range "${range}"`);
      const bound = parseVersion(m[2]);
      if (m[1] === '>=') return compare(v, bound) >= 0;
      if (m[1] === '<') return compare(v, bound) < 0;
      return v[0] === bound[0] && compare(v, bound) >= 0;
    });
  });
}

/** The paragraph printed when `version` is outside `range`, or null when it is inside. */
function verdict(version, range) {
  if (satisfies(version, range)) return null;
  return (
    `sluice: Node ${version} is outside the supported range ${range} (package.json "engines").\n` +
    '  Install a Node inside it (e.g. the current 20.x or 22.x LTS), then run this again.\n'
  );
}

function main() {
  const range = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')).engines.node;
  const text = verdict(process.versions.node, range);
  if (text) {
    process.stderr.write(text);
    return 1;
  }
  process.stdout.write(`Node ${process.versions.node} is inside the supported range ${range}\n`);
  return 0;
}

module.exports = { satisfies, verdict };

if (require.main === module) process.exitCode = main();
