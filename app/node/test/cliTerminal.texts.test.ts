/**
 * The CLI's prompts, errors and small texts as a person sees them: the real CLI in an 80-column pseudo-terminal
 * (terminal.ts) against a private sshd with password logins on: the host-key question (its answers listed, `y`
 * taken, Ctrl-C exits 130), a wrong password asked 3 times (NumberOfPasswordPrompts), an output pipe closed early.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  CLI_BIN,
  cliEnv,
  fingerprintOf,
  generateKeyFile,
  isProgressWithBytes,
  makeTempDir,
  removeDir,
  runCli,
  startAgent,
  startCli,
  startSshd,
  waitUntil,
  writeRandomFile,
  type SshdServer,
} from './helpers';
import { LIST_HEADER } from '../cli/queueCommands';
import { startCliInTerminal } from './terminal';

let sshd: SshdServer;
let work: string;
let caseNo = 0;

before(async () => {
  // Password logins on (root has no usable password here: every one is refused).
  sshd = await startSshd({ extraConfig: ['PasswordAuthentication yes'] });
  work = await makeTempDir('sluice-cli-texts-');
  writeRandomFile(path.join(sshd.root, 'hello.bin'), 10_000);
  writeRandomFile(path.join(sshd.root, 'big.bin'), 3 * 1024 * 1024);
});
after(async () => {
  await sshd.stop();
  await removeDir(work);
});

/** A fresh, empty known_hosts file. */
function emptyKnownHosts(): string {
  const p = path.join(work, `known_hosts-${++caseNo}`);
  fs.writeFileSync(p, '');
  return p;
}

function getArgs(extra: string[] = []): string[] {
  return [
    'get',
    '--no-agent',
    '--no-progress',
    ...extra,
    `sftp://${sshd.user}@127.0.0.1:${sshd.port}${sshd.root}/hello.bin`,
    path.join(work, `out-${++caseNo}.bin`),
  ];
}

test('host-key question: lists yes among its answers, takes y, saves the key and the get goes on', async () => {
  const knownHosts = emptyKnownHosts();
  const run = startCliInTerminal(getArgs(['-i', sshd.clientKeyPath]), { knownHosts, cols: 80 });
  const shown = await run.waitForScreen(/^> $/m);
  assert.match(shown.text, /can't be established\.\n.*key fingerprint is SHA256:/, shown.text);
  assert.match(
    shown.text,
    /\[yes\].*\[once\].*\[no\]\?\n {2}1\) yes {2}2\) once {2}3\) no \(default\)\n> $/,
    shown.text,
  );
  assert.ok(
    shown.lines.every((l) => l.length <= 80),
    shown.text,
  );
  run.write('y\r');
  const r = await run.result;
  assert.equal(r.code, 0, r.raw);
  assert.match(fs.readFileSync(knownHosts, 'utf8'), /^\[127\.0\.0\.1\]:\d+ ssh-ed25519 /);
});

test('Ctrl-C at the host-key question exits 130 (interrupted), not 4 (key refused), on a clean line', async () => {
  const knownHosts = emptyKnownHosts();
  const run = startCliInTerminal(getArgs(['-i', sshd.clientKeyPath]), { knownHosts, cols: 80 });
  await run.waitForScreen(/^> $/m);
  run.write('\x03');
  const r = await run.result;
  assert.equal(r.code, 130, r.raw);
  assert.doesNotMatch(r.text, /rejected|Host key verification failed/, r.text);
  assert.match(r.text, /\n> \nsluice: interrupted at the host-key question/, r.text);
  assert.match(
    unwrapped(r.lines),
    /sluice: interrupted at the host-key question for \[127\.0\.0\.1\]:\d+: nothing was saved$/,
    r.text,
  );
  assert.equal(r.cursor.x, 0, 'the cursor ends at the start of a line');
  assert.equal(fs.readFileSync(knownHosts, 'utf8'), '', 'nothing saved');
});

test('a wrong password is asked 3 times (OpenSSH NumberOfPasswordPrompts), then the login fails with exit 3', async () => {
  const knownHosts = path.join(work, `known_hosts-${++caseNo}`);
  fs.writeFileSync(knownHosts, `${sshd.knownHostsLine()}\n`);
  const run = startCliInTerminal(getArgs(), { knownHosts, cols: 80 });
  for (let i = 1; i <= 3; i++) {
    // The screen ends with the i-th question (a line's trailing blank is not kept).
    const s = await run.waitForScreen(new RegExp(`^(?:(?:(?!password:)[^])*password:){${i}} ?$`), 30_000);
    assert.equal(s.text.match(/password:/g)?.length, i, s.text);
    run.write('not-the-password\r');
  }
  const r = await run.result;
  assert.equal(r.code, 3, r.raw);
  assert.equal(r.text.match(/'s password: /g)?.length, 3, r.text);
  assert.equal(r.text.match(/Permission denied, please try again\./g)?.length, 2, r.text);
  assert.match(
    unwrapped(r.lines),
    /sluice: authentication failed for \w+@127\.0\.0\.1:\d+: every method offered was refused \(tried: password \(3 times\)\); the server accepts: publickey, password; no key to offer/,
    r.text,
  );
});

test('a closed pipe: sluice --help | head -1 and get --json | head -1 exit quietly, without an EPIPE stack', () => {
  const env = cliEnv({ knownHosts: '/dev/null' });
  const help = spawnSync('sh', ['-c', `"${process.execPath}" "${CLI_BIN}" --help | head -1; echo "status $?"`], {
    env,
    encoding: 'utf8',
  });
  assert.equal(help.stderr, '', 'nothing on stderr');
  assert.match(help.stdout, /^Usage: sluice .*\nstatus 0\n$/);
  const knownHosts = path.join(work, `known_hosts-${++caseNo}`);
  fs.writeFileSync(knownHosts, `${sshd.knownHostsLine()}\n`);
  const get = [
    'get',
    '--json',
    '--batch',
    '--no-agent',
    '-i',
    sshd.clientKeyPath,
    `sftp://${sshd.user}@127.0.0.1:${sshd.port}${sshd.root}/hello.bin`,
    path.join(work, 'piped.bin'),
  ]
    .map((a) => `'${a}'`)
    .join(' ');
  const json = spawnSync('sh', ['-c', `"${process.execPath}" "${CLI_BIN}" ${get} | head -c 1 >/dev/null`], {
    env: cliEnv({ knownHosts }),
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.doesNotMatch(json.stderr, /EPIPE|at .*\.js:\d+/, json.stderr);
  assert.equal(json.status, 0, 'the pipeline (head) ends normally');
});

/** The screen's lines joined as one text (a message wraps at 80 columns). */
function unwrapped(lines: string[]): string {
  return lines
    .map((l) => l.padEnd(80, ' '))
    .join('')
    .replace(/ {2,}/g, ' ')
    .trim();
}

test('a host that does not resolve: "host not found", whether the name came from an ssh config alias, exit 7', async () => {
  const home = path.join(work, 'home-alias');
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
  fs.writeFileSync(path.join(home, '.ssh', 'config'), 'Host myalias\n  HostName nosuch-host.invalid\n');
  const env = { HOME: home };
  const alias = await startCliInTerminal(['get', '--batch', 'sftp://myalias/x', work], {
    knownHosts: '/dev/null',
    cols: 80,
    env,
  }).result;
  assert.equal(alias.code, 7, alias.raw);
  assert.match(
    unwrapped(alias.lines),
    /^sluice: host not found: nosuch-host\.invalid \(the name does not resolve: getaddrinfo ENOTFOUND\); it is the HostName of the ssh config alias myalias \(\S*\.ssh\/config/,
  );
  const typo = await startCliInTerminal(['get', '--batch', 'sftp://myalais/x', work], {
    knownHosts: '/dev/null',
    cols: 80,
    env,
  }).result;
  assert.equal(typo.code, 7, typo.raw);
  assert.match(
    unwrapped(typo.lines),
    /^sluice: host not found: myalais .*myalais is not a Host alias of the ssh config \(.*\) nor a saved site: check the name$/,
  );
  assert.deepEqual(typo.cursor, { x: 0, y: typo.text.split('\n').length });
  const help = await startCliInTerminal(['--help'], { knownHosts: '/dev/null', cols: 80 }).result;
  assert.match(unwrapped(help.lines), /7 host not found/);
});

test('authentication failed: names the agent keys and the key files tried, the methods the server accepts; -v each attempt', async () => {
  const agentKey = generateKeyFile(work, 'not-authorized-agent', 'ed25519');
  const fileKey = generateKeyFile(work, 'not-authorized-file', 'ed25519');
  const agent = await startAgent([agentKey.privatePath]);
  try {
    const knownHosts = path.join(work, `known_hosts-${++caseNo}`);
    fs.writeFileSync(knownHosts, `${sshd.knownHostsLine()}\n`);
    const url = `sftp://${sshd.user}@127.0.0.1:${sshd.port}${sshd.root}/hello.bin`;
    const env = { SSH_AUTH_SOCK: agent.socket };
    const r = await startCliInTerminal(['get', '--batch', '-v', '-i', fileKey.privatePath, url, work], {
      knownHosts,
      cols: 80,
      env,
    }).result;
    assert.equal(r.code, 3, r.raw);
    const screen = unwrapped(r.lines);
    const agentKeyText = `ssh-ed25519 ${fingerprintOf(agentKey.blob)} sluice-test-not-authorized-agent`;
    const fileKeyText = `key ${fileKey.privatePath} (ssh-ed25519)`;
    // -v: each attempt and the server's answer, as it happens.
    assert.ok(
      screen.includes(
        `sluice: auth: trying ssh-agent sluice: auth: ssh-agent offers 1 key: ${agentKeyText} ` +
          'sluice: auth: ssh-agent refused ' +
          `sluice: auth: trying ${fileKeyText} sluice: auth: ${fileKeyText} refused; the server accepts: publickey, password`,
      ),
      screen,
    );
    assert.ok(
      screen.endsWith(
        `sluice: authentication failed for ${sshd.user}@127.0.0.1:${sshd.port}: every method offered was refused ` +
          `(tried: ssh-agent with 1 key: ${agentKeyText}; ${fileKeyText}); the server accepts: publickey, password; ` +
          'no password to offer (SLUICE_PASSWORD, or a terminal without --batch)',
      ),
      screen,
    );
    assert.equal(r.cursor.x, 0);
  } finally {
    await agent.stop();
  }
});

/** The lines the CLI wrote (before the terminal wraps them), in characters. */
function writtenLines(raw: string): string[] {
  return raw.split(/\r?\n/).map((l) => l.replace(/\r/g, ''));
}

test("every help text fits 80 columns; get --help has its own examples and usage; errors point at the command's help", async () => {
  const commands = [
    [],
    ['get'],
    ['put'],
    ['queue'],
    ['queue', 'add', 'get'],
    ['queue', 'list'],
    ['queue', 'run'],
    ['queue', 'resume'],
    ['sites'],
    ['sites', 'add'],
    ['sites', 'import'],
    ['bench-ciphers'],
  ];
  for (const c of commands) {
    const r = await startCliInTerminal([...c, '--help'], { knownHosts: '/dev/null', cols: 80 }).result;
    assert.equal(r.code, 0, r.raw);
    const long = writtenLines(r.raw).filter((l) => [...l].length > 80);
    assert.deepEqual(long, [], `sluice ${c.join(' ')} --help`);
  }
  const get = await startCliInTerminal(['get', '--help'], { knownHosts: '/dev/null', cols: 80 }).result;
  assert.equal(get.lines[0], 'Usage: sluice get [options] <source...> <dest>');
  assert.match(get.text, /^ {2}sluice get -r --connections 4 sftp:\/\/host\/data \.\/backup\/ {3}# 4 connections$/m);
  assert.doesNotMatch(get.text, /sluice put |<operands/);
  assert.match(
    unwrapped(get.lines),
    /--segment-size <size> split files larger than this across channels, 64K to 1024G \(16M = 16 MiB\) \(default: 16 MiB\)/,
  );
  const root = await startCliInTerminal(['--help'], { knownHosts: '/dev/null', cols: 80 }).result;
  assert.match(root.text, /^ {2}get \[options\] <source\.\.\.> <dest> {2}download/m);
  const bad = await startCliInTerminal(['get', '--limt', '1M', 'sftp://h/x', '.'], {
    knownHosts: '/dev/null',
    cols: 80,
  }).result;
  assert.equal(bad.code, 2);
  assert.match(bad.text, /^\(run sluice get --help for usage\)$/m);
  const queueBad = await startCliInTerminal(['queue', 'add', 'get'], { knownHosts: '/dev/null', cols: 80 }).result;
  assert.match(queueBad.text, /^\(run sluice queue add get --help for usage\)$/m);
});

test('-v: the connected line has the sluice: prefix and real plurals; a rename names the new file without -v', async () => {
  const knownHosts = path.join(work, `known_hosts-${++caseNo}`);
  fs.writeFileSync(knownHosts, `${sshd.knownHostsLine()}\n`);
  const dest = path.join(work, 'rename');
  fs.mkdirSync(dest);
  fs.writeFileSync(path.join(dest, 'hello.bin'), 'already here');
  const url = `sftp://${sshd.user}@127.0.0.1:${sshd.port}${sshd.root}/hello.bin`;
  const base = ['get', '--batch', '--no-agent', '--no-progress', '-i', sshd.clientKeyPath];
  const v = await startCliInTerminal(
    [...base, '-v', '--connections', '1', '--channels', '1', url, path.join(work, 'v.bin')],
    { knownHosts, cols: 80 },
  ).result;
  assert.equal(v.code, 0, v.raw);
  const lines = writtenLines(v.raw);
  assert.ok(
    lines.some((l) =>
      /^sluice: connected to sftp:\/\/.*pool planned: 1 connection × 1 channel, .*connection 1 with 1 channel/.test(l),
    ),
    v.raw,
  );
  assert.ok(
    lines.every((l) => !/\w\(s\)/.test(l)),
    'no "(s)" plurals',
  );
  assert.ok(
    lines.every((l) => l === '' || l.startsWith('sluice: ') || /^\d+ files? copied/.test(l)),
    v.raw,
  );
  const r = await startCliInTerminal([...base, '--conflict', 'rename', url, `${dest}/`], { knownHosts, cols: 80 })
    .result;
  assert.equal(r.code, 0, r.raw);
  assert.match(
    unwrapped(r.lines),
    new RegExp(`^sluice: ${dest}/hello\\.bin exists: written as ${dest}/hello \\(1\\)\\.bin `),
  );
  assert.equal(fs.readFileSync(path.join(dest, 'hello.bin'), 'utf8'), 'already here');
  assert.equal(fs.statSync(path.join(dest, 'hello (1).bin')).size, 10_000);
});

test('sluice queue: empty run says so, list has a header and real sizes, a pause from elsewhere is told, resume --all is one line', async () => {
  const home = path.join(work, 'queue-home');
  const knownHosts = path.join(work, `known_hosts-${++caseNo}`);
  fs.writeFileSync(knownHosts, `${sshd.knownHostsLine()}\n`);
  const opts = { knownHosts, cols: 80, env: { SLUICE_HOME: home } };
  const q = (args: string[]) => runCli(['queue', ...args], { knownHosts, env: { SLUICE_HOME: home } });

  const empty = await startCliInTerminal(['queue', 'run'], opts).result;
  assert.equal(empty.code, 0, empty.raw);
  assert.equal(
    unwrapped(empty.lines),
    'sluice: queue: the queue is empty, nothing to run (sluice queue add get|put … adds jobs)',
  );

  const dest = path.join(work, 'queued');
  fs.mkdirSync(dest);
  const base = `sftp://${sshd.user}@127.0.0.1:${sshd.port}${sshd.root}`;
  const added = await q([
    'add',
    'get',
    '--no-agent',
    '-i',
    sshd.clientKeyPath,
    `${base}/big.bin`,
    `${base}/hello.bin`,
    `${dest}/`,
  ]);
  assert.equal(added.code, 0, added.stderr);
  assert.match(added.stderr, /^sluice: queued 2 jobs: \w{8} \w{8} \(sluice queue run works the queue\)\n$/);
  const queued = await startCliInTerminal(['queue', 'list'], opts).result;
  assert.equal(queued.lines[0], LIST_HEADER);
  assert.match(queued.lines[1], /^\w{8} {2}queued {4}get {2}- {24}sftp:/);

  const run = startCliInTerminal(['queue', 'run', '--no-progress', '--limit', '200K'], opts);
  const bigId = queued.lines[1].slice(0, 8);
  // A running job shows its real sizes (not 0 B/0 B).
  const running = await waitUntil(
    "the running job's sizes in queue list",
    async () => {
      const l = (await q(['list'])).stdout.split('\n').find((x) => x.startsWith(bigId));
      return l && /running {3}get {2}\d+(\.\d)? [KM]iB\/3\.0 MiB \d+%/.test(l) ? l : undefined;
    },
    30_000,
    200,
  );
  assert.ok(running);
  assert.equal((await q(['pause', bigId])).code, 0);
  const told = await run.waitForScreen(new RegExp(`sluice: queue: job ${bigId} was paused`));
  assert.match(
    unwrapped(told.lines),
    new RegExp(
      `sluice: queue: job ${bigId} was paused \\(sluice queue pause\\): stopping it, its partial copy kept; sluice queue resume ${bigId} puts it back in line`,
    ),
  );
  const ended = await run.result;
  assert.equal(ended.code, 0, ended.raw);

  const resumed = await startCliInTerminal(['queue', 'resume', '--all'], opts).result;
  assert.equal(resumed.code, 0, resumed.raw);
  assert.equal(unwrapped(resumed.lines), 'sluice: resume: 1 job (1 other job left as it is)');
});

test('a cancelled get/put record no longer says "run it again to resume"; sites list has a header', async () => {
  const home = path.join(work, 'cli-record-home');
  const knownHosts = path.join(work, `known_hosts-${++caseNo}`);
  fs.writeFileSync(knownHosts, `${sshd.knownHostsLine()}\n`);
  const env = { SLUICE_HOME: home };
  const get = startCli(
    [
      'get',
      '--json',
      '--batch',
      '--no-agent',
      '-i',
      sshd.clientKeyPath,
      '--limit',
      '100K',
      `sftp://${sshd.user}@127.0.0.1:${sshd.port}${sshd.root}/big.bin`,
      path.join(work, 'interrupted.bin'),
    ],
    { knownHosts, env },
  );
  await get.waitForEvent(isProgressWithBytes);
  get.child.kill('SIGINT');
  assert.equal((await get.result).code, 130);
  const before = await startCliInTerminal(['queue', 'list'], { knownHosts, cols: 80, env }).result;
  assert.match(unwrapped(before.lines), /\(an interrupted get\/put: run it again to resume\)$/);
  const id = before.lines[1].slice(0, 8);
  assert.equal((await runCli(['queue', 'cancel', id], { knownHosts, env })).code, 0);
  const after = await startCliInTerminal(['queue', 'list'], { knownHosts, cols: 80, env }).result;
  assert.match(
    unwrapped(after.lines),
    new RegExp(`^${LIST_HEADER.replace(/ +/g, ' ')} ${id} cancelled get .*\\(a get/put\\)$`),
  );
  assert.doesNotMatch(after.text, /run it again/);

  assert.equal(
    (await runCli(['sites', 'add', 'web', `sftp://deploy@web.example.com:2222/var/www`], { knownHosts, env })).code,
    0,
  );
  assert.equal((await runCli(['sites', 'add', 'backup-server', 'sftp://db.example.com'], { knownHosts, env })).code, 0);
  const sites = await startCliInTerminal(['sites', 'list'], { knownHosts, cols: 80, env }).result;
  assert.equal(sites.code, 0, sites.raw);
  assert.equal(sites.lines[0], 'ID        NAME           URL                                         AUTH');
  assert.match(sites.lines[1], /^\w{8} {2}backup-server {2}sftp:\/\/\w+@db\.example\.com +agent$/);
  assert.match(sites.lines[2], /^\w{8} {2}web {12}sftp:\/\/deploy@web\.example\.com:2222\/var\/www {2}agent$/);
});
