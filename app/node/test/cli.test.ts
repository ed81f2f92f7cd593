/**
 * The CLI surface against a private sshd: cp semantics for put and get (folder DEST, new name, several
 * sources, overwrite / --no-clobber, folders need -r), usage (bad URLs with hints, --help, --version, unknown
 * cipher, -v), the summary of a failed run, fatal errors as JSON lines under --json, and -L.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import {
  baseFlags,
  describeRun,
  generateKeyFile,
  knownHostsLineFor,
  runCli,
  startTestServer,
  tempFilesUnder,
  trustedServerHooks,
  urlOf,
  type CliResult,
  type SshServer,
} from './helpers';
import { startSsh2SftpServer } from '../../../e2e/fixtures/ssh2SftpServer';

let server: SshServer;
let work: string;
let knownHosts: string;
let caseNo = 0;
trustedServerHooks(startTestServer, 'sluice-cli-', (t) => {
  ({ server, dir: work, knownHosts } = t);
});

/** A fresh pair of folders for one case: `local` and `remote` (inside the server's root). */
function freshCase(): { local: string; remote: string } {
  const n = ++caseNo;
  const local = path.join(work, `case-${n}`);
  const remote = path.join(server.root, `case-${n}`);
  fs.mkdirSync(local);
  fs.mkdirSync(remote);
  return { local, remote };
}

const put = (args: string[]) => runCli(['put', ...baseFlags(server), ...args], { knownHosts });
const get = (args: string[]) => runCli(['get', ...baseFlags(server), ...args], { knownHosts });
const url = (p: string) => urlOf(server, p);

describe('cp semantics: put', () => {
  test('an existing folder as DEST receives the source inside it (with or without a trailing slash)', async () => {
    const { local, remote } = freshCase();
    fs.writeFileSync(path.join(local, 'a.txt'), 'alpha');
    fs.writeFileSync(path.join(local, 'b.txt'), 'beta');
    fs.mkdirSync(path.join(remote, 'dir'));
    let r = await put([path.join(local, 'a.txt'), url(`${remote}/dir`)]);
    assert.equal(r.code, 0, describeRun(r));
    r = await put([path.join(local, 'b.txt'), url(`${remote}/dir/`)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.deepEqual(fs.readdirSync(path.join(remote, 'dir')).sort(), ['a.txt', 'b.txt']);
    assert.equal(fs.readFileSync(path.join(remote, 'dir', 'a.txt'), 'utf8'), 'alpha');
  });

  test('a single source to a DEST that does not exist takes that name', async () => {
    const { local, remote } = freshCase();
    fs.writeFileSync(path.join(local, 'a.txt'), 'alpha');
    const r = await put([path.join(local, 'a.txt'), url(`${remote}/renamed.bin`)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.deepEqual(fs.readdirSync(remote), ['renamed.bin']);
    assert.equal(fs.readFileSync(path.join(remote, 'renamed.bin'), 'utf8'), 'alpha');
  });

  test('several sources with a DEST that is not a folder: exit 2, nothing written', async () => {
    const { local, remote } = freshCase();
    fs.writeFileSync(path.join(local, 'a.txt'), 'alpha');
    fs.writeFileSync(path.join(local, 'b.txt'), 'beta');
    fs.writeFileSync(path.join(remote, 'existing.txt'), 'keep');
    for (const dest of [`${remote}/missing`, `${remote}/existing.txt`]) {
      const r = await put([path.join(local, 'a.txt'), path.join(local, 'b.txt'), url(dest)]);
      assert.equal(r.code, 2, describeRun(r));
      assert.match(r.stderr, /not a folder/i);
    }
    assert.deepEqual(fs.readdirSync(remote), ['existing.txt']);
    assert.equal(fs.readFileSync(path.join(remote, 'existing.txt'), 'utf8'), 'keep');
  });

  test('an existing file is overwritten; with --no-clobber it is kept and reported skipped', async () => {
    const { local, remote } = freshCase();
    const target = path.join(remote, 't.txt');
    fs.writeFileSync(target, 'old');
    fs.writeFileSync(path.join(local, 't.txt'), 'new content');
    let r = await put([path.join(local, 't.txt'), url(`${remote}/`)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(fs.readFileSync(target, 'utf8'), 'new content');

    fs.writeFileSync(path.join(local, 't.txt'), 'newer content');
    r = await put(['--no-clobber', '--json', path.join(local, 't.txt'), url(`${remote}/`)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(fs.readFileSync(target, 'utf8'), 'new content', '--no-clobber overwrote the file');
    assert.equal(r.report?.skipped, 1, describeRun(r));
    assert.equal(r.report?.files, 0);
    assert.ok(
      r.events.some((e) => e.type === 'file' && e.state === 'skipped'),
      'no skipped file event',
    );
    r = await put(['--no-clobber', path.join(local, 't.txt'), url(`${remote}/`)]);
    assert.match(r.stderr, /1 skipped/, describeRun(r));
    assert.deepEqual(fs.readdirSync(remote), ['t.txt'], 'temporary files left');
  });

  test('--conflict newer skips an older source and says why (-v, --json); --conflict append sends only the missing end', async () => {
    const { local, remote } = freshCase();
    const src = path.join(local, 'n.txt');
    const target = path.join(remote, 'n.txt');
    fs.writeFileSync(src, 'older source');
    fs.writeFileSync(target, 'newer target');
    fs.utimesSync(src, 1_588_888_888, 1_588_888_888);
    let r = await put(['--conflict', 'newer', '-v', src, url(`${remote}/`)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.match(r.stderr, /sluice: skipped .*n\.txt → .*n\.txt: the target is newer/, describeRun(r));
    assert.equal(fs.readFileSync(target, 'utf8'), 'newer target');
    r = await put(['--conflict', 'newer', '--json', src, url(`${remote}/`)]);
    assert.ok(
      r.events.some((e) => e.type === 'file' && e.state === 'skipped' && e.reason === 'the target is newer'),
      describeRun(r),
    );

    const big = path.join(local, 'part.bin');
    fs.writeFileSync(big, Buffer.alloc(300_000, 'abc'));
    fs.writeFileSync(path.join(remote, 'part.bin'), Buffer.alloc(120_000, 'abc'));
    r = await put(['--conflict', 'append', '--json', big, url(`${remote}/`)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(r.report?.bytes, 180_000, describeRun(r));
    assert.ok(fs.readFileSync(path.join(remote, 'part.bin')).equals(fs.readFileSync(big)));
    r = await put(['--conflict', 'newer', '--no-clobber', big, url(`${remote}/`)]);
    assert.equal(r.code, 2, describeRun(r));
    assert.match(r.stderr, /--conflict <rule>' cannot be used with option '--no-clobber'/, describeRun(r));
  });

  test('a folder without -r fails with a clear message', async () => {
    const { local, remote } = freshCase();
    fs.mkdirSync(path.join(local, 'folder'));
    fs.writeFileSync(path.join(local, 'folder', 'f.txt'), 'x');
    const r = await put([path.join(local, 'folder'), url(`${remote}/`)]);
    assert.notEqual(r.code, 0, describeRun(r));
    assert.equal(r.code, 2, describeRun(r));
    assert.match(r.stderr, /is a folder \(use -r\)/);
    assert.deepEqual(fs.readdirSync(remote), []);
  });
});

describe('cp semantics: get', () => {
  test('an existing folder as DEST receives the sources inside it', async () => {
    const { local, remote } = freshCase();
    fs.writeFileSync(path.join(remote, 'a.txt'), 'alpha');
    fs.writeFileSync(path.join(remote, 'b.txt'), 'beta');
    const r = await get([url(`${remote}/a.txt`), url(`${remote}/b.txt`), local]);
    assert.equal(r.code, 0, describeRun(r));
    assert.deepEqual(fs.readdirSync(local).sort(), ['a.txt', 'b.txt']);
    assert.equal(fs.readFileSync(path.join(local, 'b.txt'), 'utf8'), 'beta');
  });

  test('a single source to a DEST that does not exist takes that name (file and folder)', async () => {
    const { local, remote } = freshCase();
    fs.writeFileSync(path.join(remote, 'a.txt'), 'alpha');
    fs.mkdirSync(path.join(remote, 'tree', 'deep'), { recursive: true });
    fs.writeFileSync(path.join(remote, 'tree', 'deep', 'x.txt'), 'x');
    let r = await get([url(`${remote}/a.txt`), path.join(local, 'renamed.txt')]);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(fs.readFileSync(path.join(local, 'renamed.txt'), 'utf8'), 'alpha');
    r = await get(['-r', url(`${remote}/tree`), path.join(local, 'copy')]);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(fs.readFileSync(path.join(local, 'copy', 'deep', 'x.txt'), 'utf8'), 'x');
    assert.deepEqual(fs.readdirSync(local).sort(), ['copy', 'renamed.txt']);
  });

  test('several sources with a DEST that is not a folder: exit 2, nothing written', async () => {
    const { local, remote } = freshCase();
    fs.writeFileSync(path.join(remote, 'a.txt'), 'alpha');
    fs.writeFileSync(path.join(remote, 'b.txt'), 'beta');
    fs.writeFileSync(path.join(local, 'existing.txt'), 'keep');
    for (const dest of [path.join(local, 'missing'), path.join(local, 'existing.txt')]) {
      const r = await get([url(`${remote}/a.txt`), url(`${remote}/b.txt`), dest]);
      assert.equal(r.code, 2, describeRun(r));
      assert.match(r.stderr, /not a folder/i);
    }
    assert.deepEqual(fs.readdirSync(local), ['existing.txt']);
    assert.equal(fs.readFileSync(path.join(local, 'existing.txt'), 'utf8'), 'keep');
  });

  test('an existing file is overwritten; with --no-clobber it is kept and reported skipped', async () => {
    const { local, remote } = freshCase();
    const target = path.join(local, 't.txt');
    fs.writeFileSync(target, 'old');
    fs.writeFileSync(path.join(remote, 't.txt'), 'new content');
    let r = await get([url(`${remote}/t.txt`), local]);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(fs.readFileSync(target, 'utf8'), 'new content');
    fs.writeFileSync(path.join(remote, 't.txt'), 'newer content');
    r = await get(['--no-clobber', '--json', url(`${remote}/t.txt`), local]);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(fs.readFileSync(target, 'utf8'), 'new content', '--no-clobber overwrote the file');
    assert.equal(r.report?.skipped, 1, describeRun(r));
    assert.deepEqual(fs.readdirSync(local), ['t.txt']);
    assert.deepEqual(tempFilesUnder(local), []);
  });

  test('a folder without -r fails with a clear message', async () => {
    const { local, remote } = freshCase();
    fs.mkdirSync(path.join(remote, 'folder'));
    const r = await get([url(`${remote}/folder`), local]);
    assert.equal(r.code, 2, describeRun(r));
    assert.match(r.stderr, /is a folder \(use -r\)/);
    assert.deepEqual(fs.readdirSync(local), []);
  });
});

describe('usage', () => {
  test('bad URLs and misplaced operands: exit 2 with the reason', async () => {
    const file = path.join(work, 'u.txt');
    fs.writeFileSync(file, 'u');
    const cases: Array<[string[], RegExp]> = [
      [['put', file, 'sftp://'], /host is empty/i],
      [['put', file, 'sftp://host:99999/x'], /not a port number/i],
      [['put', file, 'sftp://user:secret@host/x'], /password in the URL is refused/i],
      [['put', file, 'not-a-url'], /needs an sftp:\/\/ URL/i],
      [['get', 'not-a-url', work], /needs sftp:\/\/ URLs/i],
      [['get', url('/x'), url('/y')], /destination is a URL/i],
      [['put', file], /at least one SOURCE and a DEST/i],
      [['put', '--verify', 'md5', file, url('/x')], /size or sha256/i],
      [['put', '--connections', '0', file, url('/x')], /whole number/i],
      [['put', '--bogus-option', file, url('/x')], /unknown option/i],
      [['frobnicate'], /unknown command/i],
      [
        ['put', file, 'sftp://host:2222:/x'],
        /"sftp:\/\/host:2222:\/x": port followed by ':' — did you mean sftp:\/\/host:2222\/x\?/,
      ],
      [
        ['put', file, 'alice@host:/srv/x'],
        /got "alice@host:\/srv\/x": scp-style "host:path" is not a URL: use sftp:\/\/alice@host\/srv\/x/,
      ],
      [['get', 'alice@host:rel/x', work], /use sftp:\/\/alice@host\/~\/rel\/x/],
    ];
    for (const [args, why] of cases) {
      const r = await runCli([...args, '--batch', '--no-agent'], { knownHosts, timeoutMs: 20_000 });
      assert.equal(r.code, 2, `${args.join(' ')}\n${describeRun(r)}`);
      assert.match(r.stderr, why, `${args.join(' ')}\n${describeRun(r)}`);
      assert.ok(!r.stderr.includes('secret'), 'a password from the URL was echoed');
    }
  });

  test('--help shows examples and the exit codes (exit 0); no arguments shows help (exit 2)', async () => {
    for (const args of [['--help'], ['put', '--help'], ['get', '--help']]) {
      const r = await runCli(args, { knownHosts, timeoutMs: 20_000 });
      assert.equal(r.code, 0, describeRun(r));
      const text = r.stdout + r.stderr;
      assert.match(text, /Examples:/);
      // Each command's own examples (#23: get --help no longer repeats the put examples).
      assert.match(text, new RegExp(`sluice ${args[0] === '--help' ? 'put' : args[0]} .*sftp://`));
      if (args[0] === 'get') assert.doesNotMatch(text, /sluice put /);
      assert.match(
        text,
        /Exit codes: 0 done and verified, 1 some transfer failed, 2 usage,\s+3 authentication, 4 host key refused, 5 remote not found or permission denied,\s+6 local error.*7 host not found, 130 interrupted/s,
      );
    }
    const none = await runCli([], { knownHosts, timeoutMs: 20_000 });
    assert.equal(none.code, 2, describeRun(none));
    assert.match(none.stdout + none.stderr, /Usage: sluice/);
  });

  test('--cipher bogus: exit 2, names it and lists the supported ciphers', async () => {
    const r = await put(['--cipher', 'bogus', path.join(work, 'known_hosts'), url(`${server.root}/`)]);
    assert.equal(r.code, 2, describeRun(r));
    assert.match(r.stderr, /bogus/);
    assert.match(r.stderr, /Supported: .*aes128-gcm@openssh\.com/);
    assert.match(r.stderr, /chacha20-poly1305@openssh\.com/);
  });

  test('-v prints the negotiated kex, host key, cipher and MAC; --cipher/--mac choose them', async () => {
    const src = path.join(work, 'v.txt');
    fs.writeFileSync(src, 'v');
    let r = await put(['-v', src, url(`${server.root}/v-default.txt`)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.match(
      r.stderr,
      /kex [\w.@-]+, host key ssh-ed25519, cipher (aes128-gcm@openssh\.com|chacha20-poly1305@openssh\.com), mac/,
      r.stderr,
    );
    r = await put([
      '-v',
      '--cipher',
      'aes256-ctr',
      '--mac',
      'hmac-sha2-256',
      '--kex',
      'ecdh-sha2-nistp256',
      src,
      url(`${server.root}/v-chosen.txt`),
    ]);
    assert.equal(r.code, 0, describeRun(r));
    assert.match(
      r.stderr,
      /kex ecdh-sha2-nistp256, host key ssh-ed25519, cipher aes256-ctr, mac hmac-sha2-256/,
      r.stderr,
    );
    const quiet = await put([src, url(`${server.root}/v-quiet.txt`)]);
    assert.doesNotMatch(quiet.stderr, /cipher/, 'without -v the algorithms are not printed');
  });

  test("-v names the server's software; ciphers the server refuses: exit 1, NEGOTIATION_FAILED naming the offer", async () => {
    const src = path.join(work, 'neg.txt');
    fs.writeFileSync(src, 'n');
    let r = await put(['-v', src, url(`${server.root}/neg-v.txt`)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.match(r.stderr, /, mac [^;]+; server SSH-2\.0-\S+/, r.stderr);
    if (server.kind === 'openssh') assert.match(r.stderr, /server SSH-2\.0-OpenSSH_\d/);
    // OpenSSH offers no CBC cipher since 7.4, nor does ssh2's server by default.
    r = await put(['--cipher', 'aes128-cbc', src, url(`${server.root}/neg.txt`)]);
    assert.equal(r.code, 1, describeRun(r));
    assert.match(
      r.stderr,
      /cannot agree on algorithms with 127\.0\.0\.1:\d+: the server accepts no cipher Sluice offered \(offered: aes128-cbc\)/,
    );
  });

  test('-v sizes are in IEC units: the channel window, and each file done with its size and level', async () => {
    const src = path.join(work, 'v-units.txt');
    fs.writeFileSync(src, 'x'.repeat(1536));
    const r = await put(['-v', src, url(`${server.root}/v-units.txt`)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.match(r.stderr, /, window \d+\.\d MiB per channel/, r.stderr);
    assert.match(r.stderr, /sluice: done .*v-units\.txt → .*v-units\.txt \(1\.5 KiB, verified: size\)/, r.stderr);
    assert.match(
      r.stderr,
      /^1 file copied, 1\.5 KiB in [\d.]+ s \([\d.]+ (B|KiB|MiB)\/s\), verified: size$/m,
      r.stderr,
    );
    assert.doesNotMatch(r.stderr, /MB\/s|\bMB\b/, 'one unit system: no decimal MB');
  });

  test('-v shows the planned pool and each connection with its channels as it comes up', async () => {
    const src = path.join(work, 'v-pool.txt');
    fs.writeFileSync(src, 'p');
    const r = await put(['-v', '--connections', '2', '--channels', '3', src, url(`${server.root}/v-pool.txt`)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.match(
      r.stderr,
      /pool planned: 2 connections × 3 channels, window [\d.]+ \w+ per channel; up now: connection 1 with 3 channels/,
      r.stderr,
    );
    assert.match(r.stderr, /connection 2 of 2: 3 of 3 planned SFTP channels up/, r.stderr);
  });

  test('--version prints the version from package.json (exit 0)', async () => {
    const { version } = JSON.parse(
      fs.readFileSync(path.join(__dirname, '..', '..', '..', '..', 'package.json'), 'utf8'),
    ) as { version: string };
    const r = await runCli(['--version'], { knownHosts, timeoutMs: 20_000 });
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(r.stdout, `${version}\n`);
  });

  test('an scp-style operand that exists as a local path gets no scp hint', async () => {
    const dir = path.join(work, 'scp-local');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'host:x'), 'a local file with a colon');
    const r = await runCli(['put', '--batch', '--no-agent', path.join(work, 'known_hosts'), 'host:x'], {
      knownHosts,
      cwd: dir,
      timeoutMs: 20_000,
    });
    assert.equal(r.code, 2, describeRun(r));
    assert.match(r.stderr, /put needs an sftp:\/\/ URL as the destination, got "host:x"/);
    assert.doesNotMatch(r.stderr, /scp-style/);
  });
});

describe('the summary', () => {
  test('a failed run names the failed file by its own paths, once, and claims no verification; no NaN, Infinity or NFs', async () => {
    const { local, remote } = freshCase();
    const src = path.join(local, 'lost.bin');
    fs.writeFileSync(src, 'payload');
    const target = `${remote}/no/such/dir/lost.bin`;
    const r = await put([src, url(target)]);
    assert.equal(r.code, 5, describeRun(r));
    assert.ok(
      r.stderr.startsWith(`sluice: FAILED ${src} → ${target}: `),
      `the failure must name ${src} → ${target}\n${describeRun(r)}`,
    );
    assert.equal(
      r.stderr.trim().split('\n').length,
      1,
      `said once: no FAILED block or totals repeating it\n${describeRun(r)}`,
    );
    assert.doesNotMatch(r.stderr, /verified/, 'no verification claim without a committed file');
    assert.doesNotMatch(r.stderr, /NaN|Infinity|NFs/);
  });

  test('a verified run names the level reached', async () => {
    const { local, remote } = freshCase();
    fs.writeFileSync(path.join(local, 'h.txt'), 'hash me');
    const r = await put(['--verify', 'sha256', path.join(local, 'h.txt'), url(`${remote}/`)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.match(r.stderr, /^1 file copied, 7 B in .*, verified: sha256-(remote|reread)$/m, describeRun(r));
  });
});

/** A TCP port on 127.0.0.1 with nothing listening (bound, then closed). */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', () => resolve()));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** The `{"type":"error"}` line a --json run ended with, checked against the process's exit and stderr. */
function fatalLine(r: CliResult): { code: string; message: string; exitCode: number } {
  const last = r.stdout.trim().split('\n').pop() ?? '';
  const e = JSON.parse(last) as { type: string; code: string; message: string; exitCode: number };
  assert.equal(e.type, 'error', describeRun(r));
  assert.equal(e.exitCode, r.code, 'the JSON exit code is the process exit code');
  assert.ok(e.message.length > 0);
  assert.ok(r.stderr.includes(e.message.split('\n')[0]), `the human text stays on stderr\n${describeRun(r)}`);
  return e;
}

describe('--json: every fatal error is also a JSON line on stdout', () => {
  const src = () => path.join(work, 'known_hosts');
  const flags = (key: string) => ['--json', '--batch', '--no-agent', '--no-progress', '-i', key];

  test('a refused connection (closed port)', async () => {
    const port = await closedPort();
    const r = await runCli(
      ['put', ...flags(server.clientKeyPath), src(), `sftp://${server.user}@127.0.0.1:${port}/x`],
      { knownHosts, timeoutMs: 30_000 },
    );
    assert.notEqual(r.code, 0, describeRun(r));
    assert.match(fatalLine(r).message, /refused/i);
  });

  test('an unknown host key under --batch (exit 4), and a changed one', async () => {
    const empty = path.join(work, 'known_hosts-empty');
    fs.writeFileSync(empty, '');
    let r = await runCli(['put', ...flags(server.clientKeyPath), src(), url('/x')], {
      knownHosts: empty,
      timeoutMs: 30_000,
    });
    assert.equal(r.code, 4, describeRun(r));
    assert.equal(fatalLine(r).code, 'HOSTKEY_UNKNOWN');
    const other = generateKeyFile(work, 'other-host-key', 'ed25519');
    const changed = path.join(work, 'known_hosts-changed');
    fs.writeFileSync(changed, `${knownHostsLineFor(server.port, other.algo, other.blob)}\n`);
    r = await runCli(['put', ...flags(server.clientKeyPath), src(), url('/x')], {
      knownHosts: changed,
      timeoutMs: 30_000,
    });
    assert.equal(r.code, 4, describeRun(r));
    assert.equal(fatalLine(r).code, 'HOSTKEY_CHANGED');
  });

  test('failed authentication (exit 3)', async () => {
    const stranger = generateKeyFile(work, 'unauthorized-key', 'ed25519');
    const r = await runCli(['put', ...flags(stranger.privatePath), src(), url('/x')], {
      knownHosts,
      timeoutMs: 30_000,
    });
    assert.equal(r.code, 3, describeRun(r));
    assert.equal(fatalLine(r).code, 'AUTH_FAILED');
  });

  test('--batch: a keyboard-interactive prompt the password cannot answer fails AUTH_FAILED naming it (exit 3)', async () => {
    const kbd = await startSsh2SftpServer({
      keyboardInteractive: [
        { prompts: [{ prompt: 'Password: ', echo: false }], answers: ['s3cret'] },
        { prompts: [{ prompt: 'Verification code: ', echo: false }], answers: ['123456'] },
      ],
    });
    try {
      const kh = path.join(work, 'known_hosts-kbd');
      fs.writeFileSync(kh, `${kbd.knownHostsLine()}\n`);
      const r = await runCli(['put', ...flags(server.clientKeyPath), src(), `sftp://alice@127.0.0.1:${kbd.port}/x`], {
        knownHosts: kh,
        timeoutMs: 30_000,
        env: { SLUICE_PASSWORD: 's3cret' },
      });
      assert.equal(r.code, 3, describeRun(r));
      assert.equal(fatalLine(r).code, 'AUTH_FAILED');
      assert.match(
        fatalLine(r).message,
        /the server asks "Verification code:" \(keyboard-interactive\), which cannot be answered without a terminal \(--batch\)/,
      );
      assert.deepEqual(
        kbd.keyboardAnswers,
        [['s3cret']],
        'SLUICE_PASSWORD answered the password prompt, and nothing else',
      );
      assert.ok(!r.stderr.includes('s3cret') && !r.stdout.includes('s3cret'), 'the password is never printed');
    } finally {
      await kbd.stop();
    }
  });

  test('usage errors, found after parsing or by the parser (exit 2)', async () => {
    for (const args of [
      ['put', '--json', src(), 'not-a-url'],
      ['put', '--json', '--bogus-option', src(), url('/x')],
    ]) {
      const r = await runCli(args, { knownHosts, timeoutMs: 20_000 });
      assert.equal(r.code, 2, describeRun(r));
      assert.equal(fatalLine(r).code, 'USAGE');
    }
  });
});

describe('-L / --dereference', () => {
  test('put -r -L copies the file a symlink points to outside the tree, as a regular file', async () => {
    const { local, remote } = freshCase();
    const outside = path.join(local, 'outside.txt');
    fs.writeFileSync(outside, 'linked content');
    fs.mkdirSync(path.join(local, 'tree'));
    fs.writeFileSync(path.join(local, 'tree', 'plain.txt'), 'plain');
    fs.symlinkSync(outside, path.join(local, 'tree', 'link.txt'));
    const r = await put(['-r', '-L', path.join(local, 'tree'), url(`${remote}/`)]);
    assert.equal(r.code, 0, describeRun(r));
    const copied = path.join(remote, 'tree', 'link.txt');
    assert.equal(fs.lstatSync(copied).isFile(), true, 'the link is copied as the file it points to');
    assert.equal(fs.readFileSync(copied, 'utf8'), 'linked content');
    assert.equal(fs.readFileSync(path.join(remote, 'tree', 'plain.txt'), 'utf8'), 'plain');
  });
});
