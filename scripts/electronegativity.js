#!/usr/bin/env node
'use strict';
// Runs Electronegativity (@doyensec/electronegativity) over the Electron sources and fails on HIGH or
// CRITICAL findings (or when a file could not be parsed, since then it was not checked).
// Usage: node scripts/electronegativity.js [-i main] [-o <report.csv|report.sarif>]
// Its own CLI (`npx electronegativity`) breaks with the commander 14 this repo hoists
// ("_commander2.default.version is not a function"), so this calls its runner API directly.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

function arg(flag, fallback) {
  const i = process.argv.indexOf(flag);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const input = path.resolve(arg('-i', 'main'));
const tmpDir = arg('-o') ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), 'electronegativity-'));
const output = path.resolve(arg('-o', tmpDir && path.join(tmpDir, 'report.csv')));
const electronVersion = require('electron/package.json').version;
const FAILING = new Set(['HIGH', 'CRITICAL']);

const run = require('@doyensec/electronegativity');
run(
  {
    input,
    output,
    isSarif: output.endsWith('.sarif'),
    customScan: [],
    excludeFromScan: [],
    severitySet: undefined,
    confidenceSet: undefined,
    isRelative: true,
    isVerbose: false,
    electronUpgrade: undefined,
    electronVersionOverride: electronVersion,
    parserPlugins: [],
  },
  false,
).then(
  (result) => {
    for (const e of result.errors)
      console.error(`electronegativity: could not parse ${e.file}: ${e.message ?? e.error ?? ''}`);
    let failing = 0;
    for (const issue of result.issues) {
      const severity = issue.severity.name;
      if (FAILING.has(severity)) failing++;
      console.log(
        `${severity.padEnd(13)} ${issue.confidence.name.padEnd(9)} ${issue.id.padEnd(32)} ${issue.file}:${issue.location.line}`,
      );
    }
    console.log(
      `electronegativity: ${result.atomicChecks} atomic + ${result.globalChecks} global checks over ${path.relative(process.cwd(), input) || '.'}, ` +
        `${result.issues.length} finding(s), ${failing} high/critical${tmpDir ? '' : `; report: ${output}`}`,
    );
    if (tmpDir) fs.rmSync(tmpDir, { recursive: true, force: true });
    process.exit(failing > 0 || result.errors.length > 0 ? 1 : 0);
  },
  (e) => {
    console.error(`electronegativity failed: ${e && e.stack ? e.stack : e}`);
    process.exit(2);
  },
);
