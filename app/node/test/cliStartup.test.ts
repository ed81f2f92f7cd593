/**
 * What the CLI loads at start-up (issue #28): `--version` nothing but its own few files, a command's `--help` only
 * commander and that command's grammar, a get or put neither zod (the cipher-speed store's validator, loaded only
 * when that file exists), cli-progress without a bar, ssh2's client (the worker's) nor another command's module.
 * Run in a child process with a `--require` hook that writes the main thread's module cache at exit, so an eager
 * import added anywhere on these paths fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { scratchDir } from '../../../e2e/fixtures/tmp';
import { CLI_BIN } from '../cli';

/** Packages none of the paths below needs until a command runs. */
const HEAVY = ['commander', 'ssh2', 'zod', 'better-sqlite3', 'cli-progress', 'fast-xml-parser', 'picomatch'];

/**
 * Runs the CLI with `args`; returns its exit status, stdout and the main thread's loaded files. `bundle`: as
 * `sluice` runs after `npm run build` (scripts/bundle-cli.js); else the compiled modules, one file each, which the
 * module-level checks need.
 */
function loaded(args: string[], bundle = false): { status: number | null; stdout: string; files: string[] } {
  const dir = scratchDir('sluice-startup-');
  try {
    const hook = path.join(dir, 'hook.js');
    const list = path.join(dir, 'modules.txt');
    fs.writeFileSync(
      hook,
      `process.on('exit', () => { if (require('node:worker_threads').isMainThread) ` +
        `require('node:fs').writeFileSync(${JSON.stringify(list)}, Object.keys(require.cache).join('\\n')); });\n`,
    );
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: dir, SLUICE_HOME: path.join(dir, 'data') };
    env.SLUICE_CLI_BUNDLE = bundle ? undefined : '0';
    delete env.SSH_AUTH_SOCK;
    const r = spawnSync(process.execPath, ['--require', hook, CLI_BIN, ...args], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { status: r.status, stdout: r.stdout, files: fs.readFileSync(list, 'utf8').split('\n') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The packages of `HEAVY` among loaded files. */
function heavyIn(files: string[]): string[] {
  return HEAVY.filter((n) => files.some((f) => f.includes(`${path.sep}node_modules${path.sep}${n}${path.sep}`)));
}

/** Loaded files of the CLI's own modules under dist/app/node/cli/ (the command modules). */
function cliModules(files: string[]): string[] {
  const dir = `${path.sep}app${path.sep}node${path.sep}cli${path.sep}`;
  return files.filter((f) => f.includes(dir)).map((f) => path.basename(f, '.js'));
}

test('sluice --version prints the version and loads no package and no command', () => {
  const r = loaded(['--version']);
  assert.equal(r.status, 0);
  assert.match(r.stdout, /^\d+\.\d+\.\d+\S*\n$/);
  assert.deepEqual(heavyIn(r.files), []);
  assert.deepEqual(cliModules(r.files).sort(), ['closedPipe', 'fatal', 'version']);
});

test('sluice get --help loads commander and the grammar, not the engine or another command', () => {
  const r = loaded(['get', '--help']);
  assert.equal(r.status, 0);
  assert.match(r.stdout, /--connections <n>/);
  assert.deepEqual(heavyIn(r.files), ['commander']);
  for (const m of ['transferCommand', 'queueCommands', 'sitesCommands', 'fileCommands', 'syncCommand', 'jobSetup'])
    assert.ok(!cliModules(r.files).includes(m), `${m} loaded`);
});

test("sluice get without a server loads the engine but neither zod, ssh2's client nor another command", () => {
  // Port 1 on loopback refuses at once: the run goes through the engine's set-up and fails to connect.
  const r = loaded(['get', '--batch', '--no-agent', '--retries', '0', 'sftp://127.0.0.1:1/x', 'out']);
  assert.notEqual(r.status, 0);
  assert.ok(cliModules(r.files).includes('transferCommand'), 'the run loaded');
  assert.ok(
    r.files.some((f) => f.endsWith(path.join('engine', 'engine.js'))),
    'the engine loaded',
  );
  // No progress bar without a terminal; ssh2's client, server and agent run in the connection worker only.
  assert.deepEqual(
    heavyIn(r.files).filter((n) => ['zod', 'cli-progress', 'fast-xml-parser', 'picomatch'].includes(n)),
    [],
  );
  const ssh2 = `${path.sep}node_modules${path.sep}ssh2${path.sep}lib${path.sep}`;
  assert.deepEqual(
    r.files.filter((f) => f.includes(ssh2) && /(index|client|agent|server)\.js$/.test(f)),
    [],
  );
  for (const m of ['queueCommands', 'sitesCommands', 'fileCommands', 'syncCommand', 'benchCiphers'])
    assert.ok(!cliModules(r.files).includes(m), `${m} loaded`);
});

test('sluice --help still lists every command', () => {
  const r = loaded(['--help']);
  assert.equal(r.status, 0);
  for (const c of ['get', 'put', 'queue', 'sites', 'ls', 'stat', 'mkdir', 'rm', 'mv', 'chmod', 'ln', 'df', 'sync'])
    assert.match(r.stdout, new RegExp(`^  ${c} `, 'm'));
  assert.match(r.stdout, /^ {2}bench-ciphers /m);
});

const BUNDLE = path.join(path.dirname(CLI_BIN), '..', 'dist', 'app', 'node', 'bundle', 'sluice-cli.js');

test('the bundled CLI: --version skips it, a get runs from it without zod or cli-progress', (t) => {
  if (!fs.existsSync(BUNDLE)) {
    t.skip(`no ${BUNDLE}: npm run build makes it (scripts/bundle-cli.js)`);
    return;
  }
  const version = loaded(['--version'], true);
  assert.equal(version.status, 0);
  assert.ok(!version.files.includes(BUNDLE), '--version read the bundle');
  const args = ['get', '--batch', '--no-agent', '--retries', '0', 'sftp://127.0.0.1:1/x', 'out'];
  const r = loaded(args, true);
  assert.equal(r.status, loaded(args).status, 'the exit status of the compiled modules');
  assert.ok(r.files.includes(BUNDLE), 'the get ran from the bundle');
  assert.deepEqual(cliModules(r.files), [], 'compiled CLI modules loaded beside the bundle');
  assert.deepEqual(
    heavyIn(r.files).filter((n) => ['zod', 'cli-progress', 'fast-xml-parser', 'picomatch'].includes(n)),
    [],
  );
});

test('the bundled CLI is ASCII, so that V8 holds its source as a one-byte string (half the memory)', (t) => {
  if (!fs.existsSync(BUNDLE)) {
    t.skip(`no ${BUNDLE}: npm run build makes it (scripts/bundle-cli.js)`);
    return;
  }
  const text = fs.readFileSync(BUNDLE, 'utf8');
  const lines = text.split('\n').flatMap((l, i) => (/[^\t\r\x20-\x7e]/.test(l) ? [`${i + 1}: ${l.trim()}`] : []));
  assert.deepEqual(lines.slice(0, 3), [], 'lines with a character outside printable ASCII');
});
