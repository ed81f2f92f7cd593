/**
 * `sluice find` (#26 item 5) run as a user runs it, against a private sshd: a substring and a glob found below a
 * folder (case alike unless asked), a symlink loop searched once and reported, --json, --max-results with what was
 * left out, a missing folder's exit code, and a hostile name escaped.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeRun, runCli, startTestServer, trustedServerHooks, urlOf, type SshServer } from './helpers';

let server: SshServer;
let knownHosts: string;
trustedServerHooks(startTestServer, 'sluice-find-', (t) => {
  ({ server, knownHosts } = t);
});

const sluice = (args: string[]) =>
  runCli(['find', '--batch', '--no-agent', '-i', server.clientKeyPath, ...args], { knownHosts, env: { TZ: 'UTC' } });
const sortedLines = (text: string) => text.split('\n').filter(Boolean).sort();

describe('find', () => {
  test('a glob and a substring below a folder; a loop searched once and reported; --json; --max-results', async () => {
    const root = path.join(server.root, 'find-tree');
    for (const d of ['logs/2025', 'logs/2026/nov', 'src']) fs.mkdirSync(path.join(root, d), { recursive: true });
    fs.writeFileSync(path.join(root, 'logs/2025/app.log'), 'x'.repeat(10));
    fs.writeFileSync(path.join(root, 'logs/2026/nov/APP.LOG'), 'y');
    fs.writeFileSync(path.join(root, 'src/catalog.c'), 'z');
    fs.symlinkSync('../..', path.join(root, 'logs/2025/back'));
    let r = await sluice(['--glob', urlOf(server, root), '*.log']);
    assert.equal(r.code, 0, describeRun(r));
    assert.deepEqual(sortedLines(r.stdout), [`${root}/logs/2025/app.log`, `${root}/logs/2026/nov/APP.LOG`]);
    assert.match(
      r.stderr,
      /logs\/2025\/back: a symlink loop \(it leads to .*find-tree, a folder above it\): searched once/,
    );

    r = await sluice([urlOf(server, root), 'log', '--case-sensitive']);
    assert.deepEqual(sortedLines(r.stdout), [`${root}/logs`, `${root}/logs/2025/app.log`, `${root}/src/catalog.c`]);

    r = await sluice(['--json', '--glob', urlOf(server, root), 'app.*']);
    const objects = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const entry = objects.find((o) => o.name === 'app.log');
    assert.deepEqual(entry && [entry.path, entry.type, entry.size], [`${root}/logs/2025/app.log`, 'file', 10]);
    assert.deepEqual(objects.at(-1), { type: 'report', matched: 2, shown: 2, folders: 6 });

    r = await sluice(['--max-results', '1', urlOf(server, root), 'log']);
    assert.equal(sortedLines(r.stdout).length, 1);
    assert.match(r.stderr, /sluice: find: 3 more matches not shown \(--max-results 1\)/);
  });

  test('a missing folder exits 5 naming it; a hostile name is escaped', async () => {
    const root = path.join(server.root, 'find-hostile');
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(root, 'evil\u202Etxt.exe\u001b[31m'), '');
    let r = await sluice([urlOf(server, root), 'evil']);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(r.stdout, `${root}/evil\\u202etxt.exe\\x1b[31m\n`);
    r = await sluice([urlOf(server, `${root}/missing`), 'x']);
    assert.equal(r.code, 5, describeRun(r));
    assert.match(r.stderr, /missing/);
  });
});
