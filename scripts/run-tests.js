#!/usr/bin/env node
'use strict';
// Runs every compiled *.test.js under dist/ with node's test runner (Node 20 has no --test globs).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..', 'dist');
const skipDirs = new Set(['node_modules']);
function walk(dir, out) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!skipDirs.has(entry.name)) walk(full, out);
    } else if (entry.name.endsWith('.test.js') && !entry.name.startsWith('large.')) out.push(full);
  }
  return out;
}
const filter = process.argv.slice(2);
let files = walk(root, []).sort();
if (filter.length) files = files.filter((f) => filter.some((s) => f.includes(s)));
if (!files.length) {
  console.error('run-tests: no test files found under dist/');
  process.exit(1);
}
const res = spawnSync(process.execPath, ['--test', '--test-concurrency=1', ...files], { stdio: 'inherit' });
process.exit(res.status ?? 1);
