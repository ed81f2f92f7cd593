/**
 * The CLI's V8 heap sizing (bin/sluice.js HEAP_FLAGS, issue #28 item 4): a command's young generation stays at its
 * initial size however many objects survive (V8 would double it up to 32 MiB), also after its connection worker has
 * started (a worker's start resets V8's flags for the whole process: ssh/connection.ts keepV8Flags sets them again
 * from the worker's entry); `--version` and put are left with V8's defaults. Each check keeps 400,000 small objects
 * alive in the process under test and reads the new space's size (without the flags it grows to 32 MiB).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { scratchDir } from '../../../e2e/fixtures/tmp';
import { runCli, startTestServer, trustedServerHooks, urlOf, type SshServer } from './helpers';

const MIB = 1024 * 1024;

/**
 * An expression: the new space's size in bytes before and after keeping 400,000 small objects alive, as `"BEFORE
 * AFTER"`. Before: what the command itself left (under load its main thread may have grown the young generation
 * before its worker set the flags); after: whether V8 may still grow it.
 */
const GROW =
  "(() => { const size = () => require('node:v8').getHeapSpaceStatistics()" +
  ".find((s) => s.space_name === 'new_space').space_size; const before = size(); const keep = []; " +
  "for (let i = 0; i < 400000; i++) keep.push({ i, s: 'x' + i }); return before + ' ' + size(); })()";

/** A `--require` hook: GROW once the command has ended (its worker, if any, has run), written to HEAP_OUT. */
const HOOK = [
  'let done = false;',
  "process.on('beforeExit', () => {",
  '  if (done) return;',
  '  done = true;',
  `  require('node:fs').writeFileSync(process.env.HEAP_OUT, String(${GROW}));`,
  '});',
].join('\n');

let server: SshServer;
let knownHosts: string;
trustedServerHooks(startTestServer, 'sluice-heap-', (t) => {
  ({ server, knownHosts } = t);
});

/** Runs the CLI with `args` under the hook; @returns the new space's size before and after GROW, bytes */
async function newSpaceAround(args: string[]): Promise<{ before: number; after: number }> {
  const dir = scratchDir('sluice-heap-');
  try {
    const hook = path.join(dir, 'hook.js');
    const out = path.join(dir, 'new-space');
    fs.writeFileSync(hook, HOOK);
    const r = await runCli(args, { knownHosts, env: { NODE_OPTIONS: `--require ${hook}`, HEAP_OUT: out } });
    assert.equal(r.code, 0, r.stderr);
    const [before, after] = fs.readFileSync(out, 'utf8').split(' ').map(Number);
    return { before, after };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('a command that connects keeps its young generation from growing however many objects survive', async () => {
  fs.writeFileSync(path.join(server.root, 'heap-probe.txt'), 'x');
  const args = ['ls', '--batch', '--no-agent', '-i', server.clientKeyPath, urlOf(server, '/')];
  const { before, after } = await newSpaceAround(args);
  assert.ok(after <= before, `new space ${before / MIB} -> ${after / MIB} MiB after an ls (not to grow)`);
});

test('--version and put are left with V8 defaults (their young generation grows)', async () => {
  const version = (await newSpaceAround(['--version'])).after;
  assert.ok(version > 4 * MIB, `new space ${version / MIB} MiB after --version (V8 grows it past 4 MiB)`);
  const local = path.join(scratchDir('sluice-heap-put-'), 'up.txt');
  fs.writeFileSync(local, 'x');
  const put = (
    await newSpaceAround(['put', '--batch', '--no-agent', '-i', server.clientKeyPath, local, urlOf(server, '/')])
  ).after;
  fs.rmSync(path.dirname(local), { recursive: true, force: true });
  assert.ok(put > 4 * MIB, `new space ${put / MIB} MiB after a put (V8 grows it past 4 MiB)`);
});

test('keepV8Flags: the flags hold after a connection worker has started', () => {
  const connection = path.join(__dirname, '..', 'ssh', 'connection.js');
  const script = [
    `const { keepV8Flags, WorkerConnection } = require(${JSON.stringify(connection)});`,
    `const file = ${JSON.stringify(connection)};`,
    "keepV8Flags(['--semi-space-growth-factor=1']);",
    'const c = new WorkerConnection(1, 1, { verifyHostKey: async () => ({ accept: false }) });',
    // hashLocal runs in the worker without a connection: its answer means the worker's entry has run.
    'c.call("hashLocal", { path: file }).then(async () => {',
    `  const size = ${GROW};`,
    '  await c.close();',
    '  process.stdout.write(String(size));',
    '});',
  ].join('\n');
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  const size = Number(r.stdout.split(' ')[1]);
  assert.ok(size > 0 && size <= 4 * MIB, `new space ${size / MIB} MiB after the worker started (≤ 4 MiB expected)`);
});
