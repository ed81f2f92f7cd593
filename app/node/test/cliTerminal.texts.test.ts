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
  CLI_BIN, cliEnv, fingerprintOf, generateKeyFile, makeTempDir, removeDir, startAgent, startSshd, writeRandomFile, type SshdServer,
} from './helpers';
import { startCliInTerminal } from './terminal';

let sshd: SshdServer;
let work: string;
let caseNo = 0;

before(async () => {
  // Password logins on (root has no usable password here: every one is refused).
  sshd = await startSshd({ extraConfig: ['PasswordAuthentication yes'] });
  work = await makeTempDir('sluice-cli-texts-');
  writeRandomFile(path.join(sshd.root, 'hello.bin'), 10_000);
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
  return ['get', '--no-agent', '--no-progress', ...extra, `sftp://${sshd.user}@127.0.0.1:${sshd.port}${sshd.root}/hello.bin`,
    path.join(work, `out-${++caseNo}.bin`)];
}

test('host-key question: lists yes among its answers, takes y, saves the key and the get goes on', async () => {
  const knownHosts = emptyKnownHosts();
  const run = startCliInTerminal(getArgs(['-i', sshd.clientKeyPath]), { knownHosts, cols: 80 });
  const shown = await run.waitForScreen(/^> $/m);
  assert.match(shown.text, /can't be established\.\n.*key fingerprint is SHA256:/, shown.text);
  assert.match(shown.text, /\[yes\].*\[once\].*\[no\]\?\n {2}1\) yes {2}2\) once {2}3\) no \(default\)\n> $/, shown.text);
  assert.ok(shown.lines.every((l) => l.length <= 80), shown.text);
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
  assert.match(r.text, /sluice: authentication failed/, r.text);
});

test('a closed pipe: sluice --help | head -1 and get --json | head -1 exit quietly, without an EPIPE stack', () => {
  const env = cliEnv({ knownHosts: '/dev/null' });
  const help = spawnSync('sh', ['-c', `"${process.execPath}" "${CLI_BIN}" --help | head -1; echo "status $?"`], { env, encoding: 'utf8' });
  assert.equal(help.stderr, '', 'nothing on stderr');
  assert.match(help.stdout, /^Usage: sluice .*\nstatus 0\n$/);
  const knownHosts = path.join(work, `known_hosts-${++caseNo}`);
  fs.writeFileSync(knownHosts, `${sshd.knownHostsLine()}\n`);
  const get = ['get', '--json', '--batch', '--no-agent', '-i', sshd.clientKeyPath, `sftp://${sshd.user}@127.0.0.1:${sshd.port}${sshd.root}/hello.bin`,
    path.join(work, 'piped.bin')].map((a) => `'${a}'`).join(' ');
  const json = spawnSync('sh', ['-c', `"${process.execPath}" "${CLI_BIN}" ${get} | head -c 1 >/dev/null`],
    { env: cliEnv({ knownHosts }), encoding: 'utf8', timeout: 60_000 });
  assert.doesNotMatch(json.stderr, /EPIPE|at .*\.js:\d+/, json.stderr);
  assert.equal(json.status, 0, 'the pipeline (head) ends normally');
});

/** The screen's lines joined as one text (a message wraps at 80 columns). */
function unwrapped(lines: string[]): string {
  return lines.map((l) => l.padEnd(80, ' ')).join('').replace(/ {2,}/g, ' ').trim();
}

test('a host that does not resolve: "host not found", whether the name came from an ssh config alias, exit 7', async () => {
  const home = path.join(work, 'home-alias');
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
  fs.writeFileSync(path.join(home, '.ssh', 'config'), 'Host myalias\n  HostName nosuch-host.invalid\n');
  const env = { HOME: home };
  const alias = await startCliInTerminal(['get', '--batch', 'sftp://myalias/x', work], { knownHosts: '/dev/null', cols: 80, env }).result;
  assert.equal(alias.code, 7, alias.raw);
  assert.match(unwrapped(alias.lines), /^sluice: host not found: nosuch-host\.invalid \(the name does not resolve: getaddrinfo ENOTFOUND\); it is the HostName of the ssh config alias myalias \(\S*\.ssh\/config/);
  const typo = await startCliInTerminal(['get', '--batch', 'sftp://myalais/x', work], { knownHosts: '/dev/null', cols: 80, env }).result;
  assert.equal(typo.code, 7, typo.raw);
  assert.match(unwrapped(typo.lines), /^sluice: host not found: myalais .*myalais is not a Host alias of the ssh config \(.*\) nor a saved site: check the name$/);
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
    const r = await startCliInTerminal(['get', '--batch', '-v', '-i', fileKey.privatePath, url, work], { knownHosts, cols: 80, env }).result;
    assert.equal(r.code, 3, r.raw);
    const screen = unwrapped(r.lines);
    const agentKeyText = `ssh-ed25519 ${fingerprintOf(agentKey.blob)} sluice-test-not-authorized-agent`;
    const fileKeyText = `key ${fileKey.privatePath} (ssh-ed25519)`;
    // -v: each attempt and the server's answer, as it happens.
    assert.ok(screen.includes(`sluice: auth: trying ssh-agent sluice: auth: ssh-agent offers 1 key: ${agentKeyText} `
      + 'sluice: auth: ssh-agent refused '
      + `sluice: auth: trying ${fileKeyText} sluice: auth: ${fileKeyText} refused; the server accepts: publickey, password`), screen);
    assert.ok(screen.endsWith(`sluice: authentication failed for ${sshd.user}@127.0.0.1:${sshd.port}: every method offered was refused `
      + `(tried: ssh-agent with 1 key: ${agentKeyText}; ${fileKeyText}); the server accepts: publickey, password; `
      + 'no password to offer (SLUICE_PASSWORD, or a terminal without --batch)'), screen);
    assert.equal(r.cursor.x, 0);
  } finally {
    await agent.stop();
  }
});
