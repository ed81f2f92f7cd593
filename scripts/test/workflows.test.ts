/**
 * The GitHub Actions workflow (#30 "Tests and CI"): it cannot run here, so actionlint checks it (and must be able to
 * fail: a broken copy is refused), and its jobs are read back: Linux, macOS on arm64 and Windows each build the
 * native addon and run the unit and integration tests, and each builds unsigned installers kept as artifacts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT } from './scriptsApi';

interface Step {
  name?: string;
  run?: string;
  uses?: string;
  with?: Record<string, unknown>;
  if?: string;
}
interface Job {
  'runs-on': string;
  container?: string;
  steps: Step[];
  env?: Record<string, string>;
  strategy?: { matrix: { include: Array<Record<string, string>> } };
}
interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<string, Job>;
}
const actionlint = require(path.join(ROOT, 'scripts', 'actionlint.js')) as {
  findActionlint(): string | undefined;
  workflowFiles(root?: string): string[];
  lintWorkflows(root?: string, files?: string[]): { ran: boolean; code: number; output: string; reason?: string };
};
const yaml = require(require.resolve('js-yaml', { paths: [ROOT] })) as { load(text: string): unknown };

const WORKFLOW = '.github/workflows/ci.yml';
const noActionlint = actionlint.findActionlint()
  ? false
  : 'actionlint not installed (go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12; .ci/run does)';
if (noActionlint) console.log(`# workflows.test: ${noActionlint}`);

test('actionlint passes the workflow, and refuses a broken copy of it', { skip: noActionlint }, (t) => {
  assert.deepEqual(actionlint.workflowFiles(), [WORKFLOW]);
  const good = actionlint.lintWorkflows();
  assert.deepEqual([good.ran, good.code, good.output], [true, 0, '']);

  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-actionlint-'));
  t.after(() => fs.rmSync(scratch, { recursive: true, force: true }));
  fs.mkdirSync(path.join(scratch, '.github', 'workflows'), { recursive: true });
  const text = fs.readFileSync(path.join(ROOT, WORKFLOW), 'utf8');
  const broken = text
    .replace('runs-on: ${{ matrix.os }}', 'runs-on: ${{ matrix.oss }}')
    .replace('timeout-minutes: 60', 'timeout-minute: 60');
  assert.notEqual(broken, text);
  fs.writeFileSync(path.join(scratch, WORKFLOW), broken);
  const bad = actionlint.lintWorkflows(scratch);
  assert.equal(bad.code, 1, bad.output);
  assert.match(bad.output, /property "oss" is not defined/);
  assert.match(bad.output, /unexpected key "timeout-minute"/);
});

/** Every step's run: text and uses: of a job, joined. */
const scriptOf = (job: Job): string => job.steps.map((s) => `${s.run ?? ''} ${s.uses ?? ''}`).join('\n');

test('Linux, macOS arm64 and Windows build the native addon, run the tests and keep unsigned installers', () => {
  const wf = yaml.load(fs.readFileSync(path.join(ROOT, WORKFLOW), 'utf8')) as Workflow;
  assert.ok('pull_request' in wf.on && 'push' in wf.on);
  const { linux, test: others, installers } = wf.jobs;

  // Linux: the project's own CI entry point, in the Debian it runs on (npm ci builds native/, npm test runs all).
  assert.equal(linux.container, 'debian:bookworm');
  assert.match(scriptOf(linux), /bash \.ci\/run/);
  assert.match(fs.readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8'), /^npm ci\nnpm test$/m);

  const runners = others.strategy!.matrix.include.map((m) => m.os).sort();
  assert.deepEqual(runners, ['macos-14', 'windows-2022'], 'macos-14 is an arm64 (M1) runner');
  const steps = scriptOf(others);
  const expected = [
    ['native addon', /npm run build:native/],
    ['unit and integration', /node scripts\/run-tests\.js/],
    ['e2e', /npx playwright test/],
    ['lint', /npm run lint/],
  ] as const;
  for (const [what, re] of expected) assert.match(steps, re, what);

  const targets = Object.fromEntries(installers.strategy!.matrix.include.map((m) => [m.os, m.target]));
  assert.deepEqual(targets, {
    'ubuntu-24.04': '--linux AppImage deb --x64',
    'macos-14': '--mac dmg --arm64',
    'windows-2022': '--win nsis --x64',
  });
  assert.match(scriptOf(installers), /npx electron-builder \$\{\{ matrix\.target \}\} --publish never/);
  assert.ok(
    installers.steps.some((s) => s.uses?.startsWith('actions/upload-artifact@')),
    'kept as artifacts',
  );
  assert.equal(installers.env?.CSC_IDENTITY_AUTO_DISCOVERY, 'false', 'unsigned');
});

test('npm run lint runs the workflow check', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  assert.match(pkg.scripts.lint, /npm run lint:workflows/);
  assert.equal(pkg.scripts['lint:workflows'], 'node scripts/actionlint.js');
});
