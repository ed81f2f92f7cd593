/**
 * `sluice sync --dry-run` as a person sees it: the real CLI in an 80-column pseudo-terminal (terminal.ts) against a
 * private sshd, a local tree onto a remote one and back: each path with its action and reason, a long path wrapped
 * without losing a character, a hostile remote name escaped, the counts and bytes; nothing changed on either side.
 * Then --json, the refusals (--checksum with --size-only, --backup-dir alone, --max-delete), the filters on the
 * command line, and a folder the (scripted) server cannot list: no deletion planned, exit 5 naming it; Ctrl-C
 * during a stalled READDIR.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  describeRun,
  runCli,
  sshdWithKnownHosts,
  startScriptedServer,
  treeOf,
  within,
  type SshdServer,
} from './helpers';
import { startCliInTerminal } from './terminal';

let sshd: SshdServer;
let local: string;
let knownHosts: string;
let stop: () => Promise<void>;
const T = new Date('2024-05-01T12:00:00Z');
const LONG = `${'deep-folder-name/'.repeat(5)}a-file-with-a-long-name.txt`;

before(async () => {
  ({ server: sshd, local, knownHosts, stop } = await sshdWithKnownHosts('sluice-cli-sync-'));
  const src = path.join(local, 'site');
  const dest = path.join(sshd.root, 'www');
  const write = (root: string, rel: string, text: string, time = T) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
    fs.utimesSync(path.join(root, rel), time, time);
  };
  write(src, 'index.html', '<h1>new</h1>');
  write(dest, 'index.html', '<h1>old</h1>!');
  write(src, 'same.css', 'body{}');
  write(dest, 'same.css', 'body{}');
  write(src, 'news.txt', 'today', new Date(T.getTime() + 60_000));
  write(dest, 'news.txt', 'today');
  write(src, 'img/logo.png', 'png');
  write(src, LONG, 'x'.repeat(2048));
  write(src, 'build/out.o', 'obj');
  write(dest, 'old.html', 'gone');
  write(dest, 'evil\x1b[31mred.txt', 'esc');
});
after(async () => {
  await stop?.();
});

function remote(p: string): string {
  return `sftp://${sshd.user}@127.0.0.1:${sshd.port}${p}`;
}
const flags = (): string[] => ['--batch', '--no-agent', '-i', sshd.clientKeyPath];

test('sync -n at 80 columns: each path with its action and reason, wrapped and escaped; nothing changed', async () => {
  const before = [await treeOf(path.join(local, 'site')), await treeOf(path.join(sshd.root, 'www'))];
  const args = [
    'sync',
    '-n',
    '--delete',
    '--exclude',
    '/build/',
    ...flags(),
    path.join(local, 'site'),
    remote(`${sshd.root}/www`),
  ];
  const run = startCliInTerminal(args, { knownHosts, cols: 80, rows: 40 });
  const r = await run.result;
  assert.equal(r.code, 0, r.raw);
  assert.ok(
    r.lines.every((l) => l.length <= 80),
    r.text,
  );
  const text = r.text;
  assert.match(text, /^create {2}img\/ {2}\(folder not in DEST\)$/m);
  assert.match(text, /^create {2}img\/logo\.png {2}\(not in DEST, 3 B\)$/m);
  assert.match(text, /^update {2}index\.html {2}\(size differs: SRC 12 B, DEST 13 B\)$/m);
  assert.match(text, /^update {2}news\.txt {2}\(SRC is newer by 60 s\)$/m);
  assert.match(text, /^delete {2}evil\\x1b\[31mred\.txt {2}\(not in SRC, 3 B\)$/m, 'the escape is shown, not obeyed');
  assert.match(text, /^delete {2}old\.html {2}\(not in SRC, 4 B\)$/m);
  assert.doesNotMatch(text, /same\.css|build/, 'same files only with -v; the excluded folder nowhere');
  // The long path: cut into lines of 72 characters after the 8 of the action, nothing lost, its reason below.
  const at = r.lines.findIndex((l, i) => l.startsWith('create  ') && r.lines[i + 1]?.includes('a-file-with'));
  assert.ok(at >= 0, text);
  assert.equal(r.lines[at].length, 80, 'the first piece fills the line');
  assert.equal(`${r.lines[at].slice(8)}${r.lines[at + 1].slice(8)}`, `${LONG}  (not in DEST, 2.0 KiB)`);
  assert.match(text, /^ {2}create {2}2 files, 6 folders, 2\.0 KiB$/m);
  assert.match(text, /^ {2}update {2}2 files, 17 B$/m);
  assert.match(text, /^ {2}delete {2}2 files, 7 B$/m);
  assert.match(text, /^ {2}same {4}1 file$/m);
  assert.match(text, /Plan \(dry run: nothing was changed\):/);
  assert.deepEqual([await treeOf(path.join(local, 'site')), await treeOf(path.join(sshd.root, 'www'))], before);
});

test('sync -n remote to local with --json: one plan-item line per path, then the plan with its totals', async () => {
  const out = path.join(local, 'copy');
  const r = await runCli(['sync', '-n', '--json', ...flags(), remote(`${sshd.root}/www`), out], { knownHosts });
  assert.equal(r.code, 0, describeRun(r));
  const lines = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const items = lines.filter((l) => l.type === 'plan-item');
  assert.deepEqual(items.map((i) => `${String(i.action)} ${String(i.path)} ${String(i.reason)}`).sort(), [
    'create evil\x1b[31mred.txt missing',
    'create index.html missing',
    'create news.txt missing',
    'create old.html missing',
    'create same.css missing',
  ]);
  const plan = lines[lines.length - 1] as { type: string; totals: { create: { files: number; bytes: number } } };
  assert.equal(plan.type, 'plan');
  assert.deepEqual(plan.totals.create, { files: 5, folders: 0, bytes: 31 });
  assert.equal(fs.existsSync(out), false, 'the dry run made no folder');
});

test('refusals: --checksum with --size-only, --backup-dir without --delete, and --max-delete below the deletions', async () => {
  const src = path.join(local, 'site');
  const run = (extra: string[]) =>
    runCli(['sync', ...extra, ...flags(), src, remote(`${sshd.root}/www`)], { knownHosts });
  const backup = await run(['-n', '--backup-dir', '/tmp/x']);
  assert.equal(backup.code, 2, describeRun(backup));
  assert.match(backup.stderr, /--backup-dir keeps what --delete removes: add --delete/);
  const sum = await run(['-n', '--checksum', '--size-only']);
  assert.equal(sum.code, 2);
  assert.match(sum.stderr, /--checksum and --size-only: choose one/);
  const max = await run(['-n', '--delete', '--max-delete', '1']);
  assert.equal(max.code, 2, describeRun(max));
  assert.match(max.stderr, /the plan deletes 2 paths, more than --max-delete 1: nothing is done/);
  const ok = await run(['-n', '--delete', '--max-delete', '2']);
  assert.equal(ok.code, 0, describeRun(ok));
});

test('filters in command-line order: an --include before an --exclude keeps its file; other files left out', async () => {
  const list = path.join(local, 'excludes.txt');
  fs.writeFileSync(list, '# not these\n*.png\n');
  const args = [
    'sync',
    '-n',
    '--include',
    'news.txt',
    '--exclude',
    '*.txt',
    '--exclude-from',
    list,
    ...flags(),
    path.join(local, 'site'),
    remote(`${sshd.root}/www`),
  ];
  const r = await runCli(args, { knownHosts });
  assert.equal(r.code, 0, describeRun(r));
  assert.match(r.stdout, /^update {2}news\.txt/m);
  assert.doesNotMatch(r.stdout, /a-file-with-a-long-name\.txt|logo\.png/);
  // With an --include, a file matching no rule is left out (rclone): index.html is not planned, folders are walked.
  assert.doesNotMatch(r.stdout, /index\.html/);
  assert.match(r.stdout, /^create {2}img\/ /m);
  const fromFile = await runCli(
    ['sync', '-n', '--exclude-from', list, ...flags(), path.join(local, 'site'), remote(`${sshd.root}/www`)],
    { knownHosts },
  );
  assert.equal(fromFile.code, 0, describeRun(fromFile));
  assert.doesNotMatch(fromFile.stdout, /logo\.png/, '*.png from the file (its # line a comment)');
  assert.match(fromFile.stdout, /^update {2}index\.html/m);
});

test('sync --help fits 80 columns and says how a killed run and deletions behave', async () => {
  const r = await startCliInTerminal(['sync', '--help'], { knownHosts: '/dev/null', cols: 80 }).result;
  assert.equal(r.code, 0, r.raw);
  assert.equal(r.lines[0], 'Usage: sluice sync [options] <src> <dest>');
  assert.deepEqual(
    r.raw.split(/\r?\n/).filter((l) => [...l.replace(/\r/g, '')].length > 80),
    [],
  );
  assert.match(r.text, /^A run killed at any point and run again finishes the same plan: what$/m);
  assert.match(r.text, /^every copy is committed, never after a listing error\.$/m);
});

test('a folder the server cannot list: --delete plans no deletion, exit 5 naming the folder and the reason', async () => {
  const server = await startScriptedServer();
  try {
    const kh = path.join(local, 'known_hosts-scripted');
    fs.writeFileSync(kh, `${server.knownHostsLine()}\n`);
    const dest = path.join(server.root, 'dest');
    fs.mkdirSync(dest);
    fs.writeFileSync(path.join(dest, 'extra.txt'), 'only here');
    // The server lists a folder `locked` that it then refuses to open.
    server.overrides.readdir = (p) =>
      p === dest
        ? [
            { filename: 'extra.txt', attrs: { mode: 0o100644, size: 9, mtime: 1 } },
            { filename: 'locked', attrs: { mode: 0o40755, size: 0, mtime: 1 } },
          ]
        : undefined;
    const url = `sftp://${server.user}@127.0.0.1:${server.port}${dest}`;
    const r = await runCli(
      ['sync', '-n', '--delete', '--batch', '--no-agent', '-i', server.clientKeyPath, path.join(local, 'site'), url],
      { knownHosts: kh },
    );
    assert.equal(r.code, 5, describeRun(r));
    assert.doesNotMatch(r.stdout, /^delete/m, 'no deletion planned');
    assert.match(r.stdout, /2 paths only in DEST, kept: deletions withheld/);
    assert.match(r.stderr, /cannot list DEST locked: /);
    assert.match(r.stderr, /no deletion planned: the listing of DEST locked failed: .*no such file/i);
    assert.ok(fs.existsSync(path.join(dest, 'extra.txt')));
  } finally {
    await server.stop();
  }
});

test('Ctrl-C while the server sits on a READDIR: the dry run ends at once, exit 130, on a clean line', async () => {
  const server = await startScriptedServer();
  try {
    const kh = path.join(local, 'known_hosts-stalled');
    fs.writeFileSync(kh, `${server.knownHostsLine()}\n`);
    let asked!: () => void;
    const readdirAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    Object.defineProperty(server.overrides, 'unansweredReaddir', {
      configurable: true,
      get: () => {
        asked();
        return true;
      },
    });
    const url = `sftp://${server.user}@127.0.0.1:${server.port}${server.root}`;
    const run = startCliInTerminal(
      ['sync', '-n', '--batch', '--no-agent', '-i', server.clientKeyPath, path.join(local, 'site'), url],
      { knownHosts: kh, cols: 80 },
    );
    await within('READDIR sent', 30_000, readdirAsked);
    run.write('\x03');
    const r = await within('sync after Ctrl-C', 20_000, run.result);
    assert.equal(r.code, 130, r.raw);
    assert.match(r.text, /^sluice: listing cancelled \(SIGINT\)$/m, r.text);
    assert.equal(r.cursor.x, 0, 'the prompt comes back on a line of its own');
  } finally {
    await server.stop();
  }
});

test('an ssh_config Host alias (-F) names the server as for get and put', async () => {
  const cfg = path.join(local, 'ssh_config');
  fs.writeFileSync(
    cfg,
    `Host synchost\n  HostName 127.0.0.1\n  Port ${sshd.port}\n  User ${sshd.user}\n  IdentityFile ${sshd.clientKeyPath}\n`,
  );
  const r = await runCli(
    ['sync', '-n', '--batch', '--no-agent', '-F', cfg, path.join(local, 'site'), `sftp://synchost${sshd.root}/www`],
    { knownHosts },
  );
  assert.equal(r.code, 0, describeRun(r));
  assert.match(r.stdout, /^update {2}index\.html/m);
});
