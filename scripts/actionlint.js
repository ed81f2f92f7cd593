#!/usr/bin/env node
'use strict';
/**
 * `npm run lint:workflows` (part of `npm run lint`): checks .github/workflows/*.yml with actionlint (rhysd/actionlint:
 * workflow syntax, expressions, runner labels, action inputs, and the run: scripts through shellcheck when that is
 * installed). The binary: ACTIONLINT, else `actionlint` on PATH, else Go's bin folder (`go install
 * github.com/rhysd/actionlint/cmd/actionlint@v1.7.12`, which .ci/run does). Without one it prints why the check did not
 * run and exits 0, so a machine without Go can still lint; its exit code otherwise.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const VERSION = 'v1.7.12';
const exe = process.platform === 'win32' ? 'actionlint.exe' : 'actionlint';

/** The actionlint binary to run, or undefined. */
function findActionlint(env = process.env) {
  if (env.ACTIONLINT) return env.ACTIONLINT;
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir && fs.existsSync(path.join(dir, exe))) return path.join(dir, exe);
  }
  const goBins = [env.GOBIN, env.GOPATH && path.join(env.GOPATH, 'bin'), path.join(os.homedir(), 'go', 'bin')];
  return goBins
    .filter(Boolean)
    .map((d) => path.join(d, exe))
    .find((f) => fs.existsSync(f));
}

/** The workflow files, relative to `root`. */
function workflowFiles(root = ROOT) {
  const dir = path.join(root, '.github', 'workflows');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => path.posix.join('.github/workflows', f));
}

/**
 * Runs actionlint on `files` (default: every workflow) in `root`.
 * @returns {{ ran: boolean, code: number, output: string, reason?: string }}
 */
function lintWorkflows(root = ROOT, files = workflowFiles(root), env = process.env) {
  const bin = findActionlint(env);
  if (!bin) {
    const install = `go install github.com/rhysd/actionlint/cmd/actionlint@${VERSION}`;
    return { ran: false, code: 0, output: '', reason: `actionlint not installed (${install})` };
  }
  const r = spawnSync(bin, ['-no-color', ...files], { cwd: root, encoding: 'utf8' });
  if (r.error) return { ran: false, code: 0, output: '', reason: `${bin}: ${r.error.message}` };
  return { ran: true, code: r.status ?? 1, output: `${r.stdout}${r.stderr}` };
}

module.exports = { findActionlint, workflowFiles, lintWorkflows };

if (require.main === module) {
  const files = workflowFiles();
  const r = lintWorkflows(ROOT, files);
  if (!r.ran) {
    console.log(`lint:workflows: not checked: ${r.reason}`);
  } else {
    process.stdout.write(r.output);
    console.log(`lint:workflows: actionlint ${r.code === 0 ? 'passed' : 'FAILED'} on ${files.join(', ')}`);
  }
  process.exit(r.code);
}
