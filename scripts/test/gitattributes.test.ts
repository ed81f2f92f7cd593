/**
 * .gitattributes (#30 item 3): a Windows clone (Git for Windows' default core.autocrlf=true) gets patches/*.patch and
 * the shell and node scripts with LF, so `npm install`'s patch-package run patches ssh2 exactly. Checked with a real
 * core.autocrlf=true checkout of those files in a scratch repository (which, without the rules, converts them: the
 * control case), then with patch-package's own parser and applier on what was checked out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT } from './scriptsApi';

interface PatchEffect {
  type: string;
  path: string;
}
const fromRoot = (m: string): unknown => require(require.resolve(m, { paths: [ROOT] }));
const { parsePatchFile } = fromRoot('patch-package/dist/patch/parse') as {
  parsePatchFile(text: string): PatchEffect[];
};
const { reversePatch } = fromRoot('patch-package/dist/patch/reverse') as {
  reversePatch(e: PatchEffect[]): PatchEffect[];
};
const { executeEffects } = fromRoot('patch-package/dist/patch/apply') as {
  executeEffects(e: PatchEffect[], o: { dryRun: boolean; cwd: string }): void;
};

const gitMissing = spawnSync('git', ['--version']).error ? 'git is not on PATH' : false;
const PATCHES = fs
  .readdirSync(path.join(ROOT, 'patches'))
  .filter((f) => f.endsWith('.patch'))
  .map((f) => `patches/${f}`);
/** The files the rules pin: every patch and each kind of script (shell, CI entry point, CLI launcher, scripts/). */
const PINNED = [...PATCHES, '.ci/run', 'scripts/build-sftpgo.sh', 'bin/sluice.js', 'scripts/run-tests.js'];

function git(cwd: string, args: string[]): string {
  const config = ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'core.autocrlf=true'];
  const r = spawnSync('git', [...config, ...args], { cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** Commits `files` (and .gitattributes when `withAttributes`) to a scratch repository, then checks them out again as
 * Git for Windows would (core.autocrlf=true); returns the checked-out folder. */
function windowsCheckout(t: { after(fn: () => void): void }, withAttributes: boolean): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-gitattr-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  git(dir, ['init', '-q']);
  for (const f of [...PINNED, ...(withAttributes ? ['.gitattributes'] : [])]) {
    fs.mkdirSync(path.join(dir, path.dirname(f)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
  }
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', 'files']);
  for (const f of PINNED) fs.rmSync(path.join(dir, f));
  git(dir, ['checkout', '--', '.']);
  return dir;
}

const hasCrlf = (file: string): boolean => fs.readFileSync(file).includes('\r\n');

test(
  'a core.autocrlf=true checkout keeps the patches and scripts LF (without .gitattributes it would not)',
  { skip: gitMissing },
  (t) => {
    assert.ok(PATCHES.length > 0, 'patches/ holds the ssh2 patch');
    const bare = windowsCheckout(t, false);
    assert.deepEqual(
      PINNED.filter((f) => !hasCrlf(path.join(bare, f))),
      [],
      'the control checkout converts all to CRLF',
    );
    const pinned = windowsCheckout(t, true);
    assert.deepEqual(
      PINNED.filter((f) => hasCrlf(path.join(pinned, f))),
      [],
      'no pinned file has CRLF',
    );
    for (const f of PINNED) {
      const same = fs.readFileSync(path.join(pinned, f)).equals(fs.readFileSync(path.join(ROOT, f)));
      assert.ok(same, `${f} is byte for byte the committed file`);
    }
  },
);

test('git check-attr reports eol=lf for the pinned files of this checkout', { skip: gitMissing }, (t) => {
  const r = spawnSync('git', ['check-attr', 'eol', '--', ...PINNED], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) {
    t.skip(`not a git checkout: ${r.stderr.trim()}`);
    return;
  }
  const lines = r.stdout.trim().split('\n');
  assert.deepEqual(
    lines,
    PINNED.map((f) => `${f}: eol: lf`),
  );
});

/** Applies `patchText` with patch-package to the files it names, unpatched again from this tree's node_modules
 * (patched at install) by the committed patch in reverse; returns the folder. */
function applyToPristine(
  t: { after(fn: () => void): void },
  committed: string,
  patchText: string,
): { dir: string; files: string[] } {
  const effects = parsePatchFile(committed);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-patch-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const files = effects.filter((e) => e.type === 'patch').map((e) => e.path);
  for (const f of files) {
    fs.mkdirSync(path.join(dir, path.dirname(f)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
  }
  executeEffects(reversePatch(effects), { dryRun: false, cwd: dir });
  executeEffects(parsePatchFile(patchText), { dryRun: false, cwd: dir });
  return { dir, files };
}

test(
  'patch-package applies the checked-out patch exactly; a CRLF copy would leave "\\r" in ssh2',
  { skip: gitMissing },
  (t) => {
    const pinned = windowsCheckout(t, true);
    for (const p of PATCHES) {
      const committed = fs.readFileSync(path.join(ROOT, p), 'utf8');
      const good = applyToPristine(t, committed, fs.readFileSync(path.join(pinned, p), 'utf8'));
      assert.ok(good.files.length > 0, `${p} patches at least one file`);
      for (const f of good.files) {
        const got = fs.readFileSync(path.join(good.dir, f), 'utf8');
        assert.equal(got, fs.readFileSync(path.join(ROOT, f), 'utf8'), `${f} as npm install patched it`);
      }
      const bad = applyToPristine(t, committed, committed.replace(/\n/g, '\r\n'));
      const corrupted = bad.files.filter((f) => fs.readFileSync(path.join(bad.dir, f), 'utf8').includes('\r'));
      assert.deepEqual(
        corrupted,
        bad.files,
        'a CRLF patch writes "\\r" into each file it touches (why the rule exists)',
      );
    }
  },
);
