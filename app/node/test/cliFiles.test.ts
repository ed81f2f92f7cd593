/**
 * `sluice ls|stat|mkdir|rm|mv|chmod|ln|df` (#26 item 8) run as a user runs them, against a private sshd: each
 * command's success and its bad input (a URL with NUL, an existing target, a folder that is not empty, a missing
 * path, permission denied as `nobody`), `--json`, a hostile name escaped, a symlink loop under `ls -R -L`, and `ls -l`
 * in a pseudo-terminal at 80 columns.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { unprivilegedUser, type TestUser } from './asUser';
import {
  SSHD_PATH,
  describeRun,
  runCli,
  sshdWithKnownHosts,
  startCli,
  startTestServer,
  toxiproxyAvailable,
  trustedServerHooks,
  urlOf,
  withProxiedSshd,
  type SshServer,
  type SshdServer,
} from './helpers';
import { startCliInTerminal } from './terminal';
import { startSsh2SftpServer } from '../../../e2e/fixtures/ssh2SftpServer';

let server: SshServer;
let knownHosts: string;
let caseNo = 0;
trustedServerHooks(startTestServer, 'sluice-files-', (t) => {
  ({ server, knownHosts } = t);
});

/** A fresh folder inside the server's root for one case. */
function freshRemote(): string {
  const remote = path.join(server.root, `files-${++caseNo}`);
  fs.mkdirSync(remote);
  return remote;
}

const flags = () => ['--batch', '--no-agent', '-i', server.clientKeyPath];
const sluice = (command: string, args: string[]) =>
  runCli([command, ...flags(), ...args], { knownHosts, env: { TZ: 'UTC' } });
const url = (p: string) => urlOf(server, p);
const jsonLines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('ls', () => {
  test('names in order, hidden ones only with -a, a file operand as named; --json one object per entry', async () => {
    const remote = freshRemote();
    fs.writeFileSync(path.join(remote, 'b.txt'), 'bb');
    fs.writeFileSync(path.join(remote, 'a.txt'), 'a');
    fs.writeFileSync(path.join(remote, '.hidden'), '');
    fs.mkdirSync(path.join(remote, 'sub'));
    let r = await sluice('ls', [url(remote)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(r.stdout, 'a.txt\nb.txt\nsub\n');
    r = await sluice('ls', ['-a', url(remote)]);
    assert.equal(r.stdout, '.hidden\na.txt\nb.txt\nsub\n');
    r = await sluice('ls', [url(`${remote}/a.txt`)]);
    assert.equal(r.stdout, `${remote}/a.txt\n`);
    r = await sluice('ls', ['--json', url(remote)]);
    assert.equal(r.code, 0, describeRun(r));
    const entries = jsonLines(r.stdout);
    assert.deepEqual(
      entries.map((e) => [e.name, e.type, e.size]),
      [
        ['a.txt', 'file', 1],
        ['b.txt', 'file', 2],
        ['sub', 'dir', 4096],
      ],
    );
    assert.equal(entries[0].path, `${remote}/a.txt`);
    assert.match(String(entries[0].permissions), /^-rw-/);
    assert.equal(entries[0].owner, 'root');
  });

  test('-R lists every folder in ls -R order; a missing path exits 5 naming it', async () => {
    const remote = freshRemote();
    for (const d of ['x/y', 'w']) fs.mkdirSync(path.join(remote, d), { recursive: true });
    fs.writeFileSync(path.join(remote, 'x/y/deep.txt'), 'd');
    fs.writeFileSync(path.join(remote, 'w/one'), '1');
    let r = await sluice('ls', ['-R', url(remote)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(r.stdout, `${remote}:\nw\nx\n\n${remote}/w:\none\n\n${remote}/x:\ny\n\n${remote}/x/y:\ndeep.txt\n`);
    r = await sluice('ls', [url(`${remote}/missing`)]);
    assert.equal(r.code, 5, describeRun(r));
    assert.match(r.stderr, new RegExp(`${remote}/missing: no such file`));
  });

  test('-R -L: a symlink loop is listed once and reported; without -L the link is not entered', async () => {
    const remote = freshRemote();
    fs.mkdirSync(path.join(remote, 'top/inner'), { recursive: true });
    fs.symlinkSync('..', path.join(remote, 'top/inner/up'));
    let r = await sluice('ls', ['-R', '-L', url(`${remote}/top`)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(r.stdout, `${remote}/top:\ninner\n\n${remote}/top/inner:\nup\n\n${remote}/top/inner/up:\n`);
    assert.match(r.stderr, /top\/inner\/up: a symlink loop \(it leads to .*\/top, a folder above it\): listed once/);
    r = await sluice('ls', ['-R', url(`${remote}/top`)]);
    assert.equal(r.stdout, `${remote}/top:\ninner\n\n${remote}/top/inner:\nup\n`);
  });

  test('a hostile name is escaped: no escape sequence or bidi control reaches the terminal', async () => {
    const remote = freshRemote();
    fs.writeFileSync(path.join(remote, 'evil\x1b[2Jname\u202etxt.exe'), 'x');
    const r = await sluice('ls', ['-l', url(remote)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.ok(!r.stdout.includes('\x1b') && !r.stdout.includes('\u202e'), r.stdout);
    assert.match(r.stdout, /evil\\x1b\[2Jname\\u202etxt\.exe$/m);
    const json = await sluice('ls', ['--json', url(remote)]);
    assert.ok(!json.stdout.includes('\x1b') && !json.stdout.includes('\u202e'), json.stdout);
    assert.equal(jsonLines(json.stdout)[0].name, 'evil\x1b[2Jname\u202etxt.exe', 'the same name, escaped in JSON');
  });
});

describe('help', () => {
  test("each file command's --help fits 80 columns and names its usage", async () => {
    for (const c of ['ls', 'stat', 'mkdir', 'rm', 'mv', 'chmod', 'ln', 'df', 'find']) {
      const r = await startCliInTerminal([c, '--help'], { knownHosts: '/dev/null', cols: 80 }).result;
      assert.equal(r.code, 0, r.raw);
      const long = r.raw
        .split(/\r?\n/)
        .map((l) => l.replace(/\r/g, ''))
        .filter((l) => [...l].length > 80);
      assert.deepEqual(long, [], `sluice ${c} --help`);
      assert.match(r.lines[0], new RegExp(`^Usage: sluice ${c} \\[options\\] <`));
    }
  });
});

describe('saved sites', () => {
  test("a site's name as the host: its server, key and folder (sftp://NAME/x is x in the site's folder)", async () => {
    const remote = freshRemote();
    fs.mkdirSync(path.join(remote, 'sub'));
    fs.writeFileSync(path.join(remote, 'sub/in-site.txt'), 's');
    const home = fs.mkdtempSync(path.join(path.dirname(knownHosts), 'home-'));
    const env = { SLUICE_HOME: home, TZ: 'UTC' };
    let r = await runCli(['sites', 'add', 'box', url(remote), '-i', server.clientKeyPath], { knownHosts, env });
    assert.equal(r.code, 0, describeRun(r));
    r = await runCli(['ls', '--batch', '--no-agent', 'sftp://box/sub'], { knownHosts, env });
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(r.stdout, 'in-site.txt\n');
    r = await runCli(['rm', '--batch', '--no-agent', '-r', 'sftp://box/sub'], { knownHosts, env });
    assert.equal(r.code, 0, describeRun(r));
    assert.deepEqual(fs.readdirSync(remote), []);
  });
});

describe('ls -l in a terminal', () => {
  test('ls on a terminal: names in columns down then across, within 80 columns', async () => {
    const remote = freshRemote();
    for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(remote, `name-${String(i).padStart(2, '0')}.txt`), '');
    const screen = await startCliInTerminal(['ls', ...flags(), url(remote)], { knownHosts, cols: 80 }).result;
    assert.equal(screen.code, 0, screen.raw);
    // 13-character cells (11 + 2): 6 columns of 5 rows, each column read down, as ls -C.
    assert.equal(screen.lines[0], 'name-00.txt  name-05.txt  name-10.txt  name-15.txt  name-20.txt  name-25.txt');
    assert.equal(screen.lines[4], 'name-04.txt  name-09.txt  name-14.txt  name-19.txt  name-24.txt  name-29.txt');
    assert.deepEqual(screen.cursor, { x: 0, y: 5 });
  });

  test("sftp's long layout at 80 columns, a symlink with its target", async () => {
    const remote = freshRemote();
    fs.writeFileSync(path.join(remote, 'data.bin'), Buffer.alloc(1234));
    fs.chmodSync(path.join(remote, 'data.bin'), 0o640);
    fs.symlinkSync('data.bin', path.join(remote, 'link'));
    const when = new Date('2025-03-04T05:06:07Z');
    fs.utimesSync(path.join(remote, 'data.bin'), when, when);
    const run = startCliInTerminal(['ls', ...flags(), '-l', url(remote)], { knownHosts, cols: 80, env: { TZ: 'UTC' } });
    const screen = await run.result;
    assert.equal(screen.code, 0, screen.raw);
    // OpenSSH's sftp prints the server's line, `%s %3u %-8s %-8s %8llu %s %s` after an 11-character mode field.
    assert.equal(screen.lines[0], '-rw-r-----    1 root     root         1234 Mar  4  2025 data.bin');
    assert.match(screen.lines[1], /^lrwxrwxrwx {4}1 root {5}root {12}8 \w{3} [ \d]\d \d\d:\d\d link -> data\.bin$/);
    assert.ok(screen.lines.every((l) => l.length <= 80));
    assert.deepEqual(screen.cursor, { x: 0, y: 2 });
  });
});

describe('stat, mkdir, ln -s, df', () => {
  test('stat: type, size, mode, ids; a symlink with its target; --json; a missing path exits 5', async () => {
    const remote = freshRemote();
    fs.writeFileSync(path.join(remote, 'f'), 'hello');
    fs.chmodSync(path.join(remote, 'f'), 0o604);
    fs.symlinkSync('f', path.join(remote, 'l'));
    let r = await sluice('stat', [url(`${remote}/f`), url(`${remote}/l`)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.match(
      r.stdout,
      new RegExp(
        `^ {2}File: ${remote}/f\n {2}Type: regular file\n {2}Size: 5 bytes\n {2}Mode: 0604 \\(-rw----r--\\) {2}Uid: 0 {2}Gid: 0\nModify: \\d{4}-`,
      ),
    );
    assert.match(r.stdout, new RegExp(`File: ${remote}/l -> f\n {2}Type: symbolic link`));
    r = await sluice('stat', ['-L', '--json', url(`${remote}/l`)]);
    const [e] = jsonLines(r.stdout);
    assert.deepEqual([e.type, e.size, e.mode, e.permissions], ['file', 5, '0604', '-rw----r--']);
    r = await sluice('stat', [url(`${remote}/nothing`)]);
    assert.equal(r.code, 5, describeRun(r));
    assert.match(r.stderr, /nothing: no such file or folder/);
  });

  test('mkdir: a folder; an existing one is refused without -p; -p makes the parents', async () => {
    const remote = freshRemote();
    let r = await sluice('mkdir', [url(`${remote}/new`)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.ok(fs.statSync(path.join(remote, 'new')).isDirectory());
    r = await sluice('mkdir', [url(`${remote}/new`)]);
    assert.equal(r.code, 1, describeRun(r));
    assert.match(r.stderr, /cannot create folder .*\/new: it exists/);
    r = await sluice('mkdir', [url(`${remote}/a/b/c`)]);
    assert.equal(r.code, 5, describeRun(r));
    r = await sluice('mkdir', ['-p', '--json', url(`${remote}/a/b/c`), url(`${remote}/new`)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.ok(fs.statSync(path.join(remote, 'a/b/c')).isDirectory());
    assert.deepEqual(jsonLines(r.stdout), [{ type: 'report', created: 1 }]);
  });

  test('ln -s: a link naming the target as typed; an existing name is refused; without -s a usage error', async () => {
    const remote = freshRemote();
    fs.writeFileSync(path.join(remote, 't'), 't');
    let r = await sluice('ln', ['-s', '../t', url(`${remote}/link`)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(fs.readlinkSync(path.join(remote, 'link')), '../t');
    r = await sluice('ln', ['-s', 't', url(`${remote}/link`)]);
    assert.equal(r.code, 1, describeRun(r));
    assert.match(r.stderr, /cannot create symlink .*\/link: a symlink of that name exists/);
    r = await sluice('ln', ['t', url(`${remote}/hard`)]);
    assert.equal(r.code, 2, describeRun(r));
    assert.match(r.stderr, /use ln -s TARGET LINK/);
  });

  test('df: size, used, free and use% of the file system (statvfs@openssh.com); --json in bytes', async () => {
    let r = await sluice('df', [url(server.root)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.match(
      r.stdout,
      new RegExp(`^ +Size +Used +Avail Use% Path\n +[\\d.]+ \\w+ +[\\d.]+ \\w+ +[\\d.]+ \\w+ +\\d+% ${server.root}\n$`),
    );
    r = await sluice('df', ['--json', url(server.root)]);
    const [d] = jsonLines(r.stdout);
    const local = fs.statfsSync(server.root);
    assert.equal(d.size, local.blocks * local.bsize);
    r = await sluice('df', [url(`${server.root}/missing`)]);
    assert.equal(r.code, 5, describeRun(r));
    assert.match(r.stderr, /missing: no such file/);
  });

  test('df on a server without statvfs@openssh.com: a message naming the extension, exit 1', async () => {
    const bare = await startSsh2SftpServer({ extensions: {} });
    try {
      const kh = path.join(path.dirname(knownHosts), 'known_hosts-bare');
      fs.writeFileSync(kh, `${bare.knownHostsLine()}\n`);
      const r = await runCli(
        ['df', '--batch', '--no-agent', '-i', bare.clientKeyPath, `sftp://u@127.0.0.1:${bare.port}${bare.root}`],
        { knownHosts: kh },
      );
      assert.equal(r.code, 1, describeRun(r));
      assert.match(
        r.stderr,
        /^sluice: df: .*: the server does not offer statvfs@openssh\.com \(an OpenSSH extension\), so it cannot tell the size/m,
      );
    } finally {
      await bare.stop();
    }
  });

  test('a URL whose path holds NUL (%00) is a usage error before connecting', async () => {
    const r = await sluice('rm', [url(`${server.root}/a%00b`)]);
    assert.equal(r.code, 2, describeRun(r));
    assert.match(r.stderr, /contains a NUL character/);
  });
});

describe('rm, mv, chmod', () => {
  test('rm: a file; a folder that is not empty is refused without -r; -r removes the tree; -f a missing path', async () => {
    const remote = freshRemote();
    fs.writeFileSync(path.join(remote, 'f'), 'f');
    fs.mkdirSync(path.join(remote, 'd/e'), { recursive: true });
    for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(remote, `d/e/${i}`), `${i}`);
    // More folders listed at once than Node's 10 listeners of one AbortSignal (no MaxListenersExceededWarning).
    for (let i = 0; i < 12; i++) fs.mkdirSync(path.join(remote, `d/k${i}`));
    fs.mkdirSync(path.join(remote, 'empty'));
    let r = await sluice('rm', [url(`${remote}/f`), url(`${remote}/empty`)]);
    assert.equal(r.code, 0, describeRun(r));
    r = await sluice('rm', [url(`${remote}/d`)]);
    assert.equal(r.code, 1, describeRun(r));
    assert.match(r.stderr, /rm: cannot remove .*\/d: the folder is not empty \(13 entries; use -r/);
    assert.equal(fs.readdirSync(path.join(remote, 'd/e')).length, 30);
    r = await sluice('rm', ['-r', '--json', url(`${remote}/d`)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.deepEqual(jsonLines(r.stdout), [{ type: 'report', files: 30, folders: 14 }]);
    assert.equal(r.stderr, '');
    assert.deepEqual(fs.readdirSync(remote), []);
    r = await sluice('rm', [url(`${remote}/gone`)]);
    assert.equal(r.code, 5, describeRun(r));
    r = await sluice('rm', ['-f', url(`${remote}/gone`)]);
    assert.equal(r.code, 0, describeRun(r));
    r = await sluice('rm', ['-r', url(`${remote}/..`)]);
    assert.equal(r.code, 2, describeRun(r));
  });

  test('mv: a rename; into a folder; an existing target refused without -f and replaced with it', async () => {
    const remote = freshRemote();
    fs.writeFileSync(path.join(remote, 'a'), 'A');
    fs.writeFileSync(path.join(remote, 'b'), 'B');
    fs.mkdirSync(path.join(remote, 'dir'));
    let r = await sluice('mv', [url(`${remote}/a`), url(`${remote}/a2`)]);
    assert.equal(r.code, 0, describeRun(r));
    r = await sluice('mv', [url(`${remote}/a2`), url(`${remote}/b`)]);
    assert.equal(r.code, 1, describeRun(r));
    assert.match(r.stderr, /cannot move .*\/a2 to .*\/b: the target exists \(use -f to replace it\)/);
    assert.equal(fs.readFileSync(path.join(remote, 'b'), 'utf8'), 'B');
    r = await sluice('mv', ['-f', url(`${remote}/a2`), url(`${remote}/b`)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(fs.readFileSync(path.join(remote, 'b'), 'utf8'), 'A');
    r = await sluice('mv', [url(`${remote}/b`), url(`${remote}/dir`)]);
    assert.equal(r.code, 0, describeRun(r));
    r = await sluice('mv', [url(`${remote}/nothing`), url(`${remote}/elsewhere`)]);
    assert.equal(r.code, 5, describeRun(r));
    assert.match(r.stderr, /mv: cannot move .*\/nothing: no such file or folder/);
    assert.deepEqual(fs.readdirSync(path.join(remote, 'dir')), ['b']);
  });

  test('chmod: octal and symbolic; -R changes a tree and leaves its symlinks alone; a bad MODE is a usage error', async () => {
    const remote = freshRemote();
    fs.mkdirSync(path.join(remote, 't/sub'), { recursive: true });
    fs.writeFileSync(path.join(remote, 't/sub/f'), 'f');
    fs.writeFileSync(path.join(remote, 'outside'), 'o');
    fs.chmodSync(path.join(remote, 'outside'), 0o600);
    fs.symlinkSync(path.join(remote, 'outside'), path.join(remote, 't/link'));
    let r = await sluice('chmod', ['640', url(`${remote}/t/sub/f`)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(fs.statSync(path.join(remote, 't/sub/f')).mode & 0o7777, 0o640);
    r = await sluice('chmod', ['-R', '--json', 'go-rwx,u+X', url(`${remote}/t`)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.deepEqual(jsonLines(r.stdout), [{ type: 'report', changed: 3, unchanged: 0, links: 1 }]);
    assert.equal(fs.statSync(path.join(remote, 't')).mode & 0o777, 0o700);
    assert.equal(fs.statSync(path.join(remote, 't/sub')).mode & 0o777, 0o700);
    assert.equal(fs.statSync(path.join(remote, 't/sub/f')).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.join(remote, 'outside')).mode & 0o777, 0o600, 'the link was not followed');
    r = await sluice('chmod', ['u+q', url(`${remote}/t`)]);
    assert.equal(r.code, 2, describeRun(r));
    assert.match(r.stderr, /expected an octal MODE/);
  });
});

const user = unprivilegedUser();
const asUserSkip =
  typeof user === 'string' ? user : !fs.existsSync(SSHD_PATH) ? `no OpenSSH sshd at ${SSHD_PATH}` : false;

describe(`permission denied, as ${typeof user === 'string' ? 'nobody' : user.name}`, { skip: asUserSkip }, () => {
  let sshd: SshdServer;
  let hosts: string;
  let stop: () => Promise<void>;
  before(async () => {
    ({ server: sshd, knownHosts: hosts, stop } = await sshdWithKnownHosts('sluice-files-nobody-'));
    // sshd reads authorized_keys as the account.
    fs.chmodSync(path.dirname(sshd.root), 0o711);
    fs.chmodSync(path.join(path.dirname(sshd.root), 'authorized_keys'), 0o644);
  });
  after(async () => {
    await stop?.();
  });

  const as = (command: string, args: string[]) =>
    runCli([command, '--batch', '--no-agent', '-i', sshd.clientKeyPath, ...args], {
      knownHosts: hosts,
      env: { TZ: 'UTC' },
    });
  const urlAs = (p: string) => `sftp://${(user as TestUser).name}@127.0.0.1:${sshd.port}${p}`;

  // OpenSSH's text ("Permission denied") says no more than the status, so errors.ts leaves it out; another server's is
  // kept.
  test('rm, chmod and mkdir name the path and the status; rm -r removes what it may and keeps the rest', async () => {
    const u = user as TestUser;
    const mine = path.join(sshd.root, 'mine');
    fs.mkdirSync(path.join(mine, 'locked'), { recursive: true });
    fs.writeFileSync(path.join(mine, 'locked/kept.txt'), 'k');
    fs.writeFileSync(path.join(mine, 'free.txt'), 'f');
    fs.writeFileSync(path.join(sshd.root, 'roots.txt'), 'r');
    if (u.switchTo) {
      fs.chownSync(mine, u.uid, u.gid);
      fs.chownSync(path.join(mine, 'free.txt'), u.uid, u.gid);
    }
    fs.chmodSync(path.join(mine, 'locked'), 0o755); // root's: nothing inside can be removed by the account
    fs.mkdirSync(path.join(sshd.root, 'tree/secret'), { recursive: true });
    fs.writeFileSync(path.join(sshd.root, 'tree/open.txt'), 'o');
    fs.chmodSync(path.join(sshd.root, 'tree/secret'), 0o700); // root's, not listable by the account
    const l = await as('ls', ['-R', urlAs(`${sshd.root}/tree`)]);
    assert.equal(l.code, 5, describeRun(l));
    assert.equal(l.stdout, `${sshd.root}/tree:\nopen.txt\nsecret\n\n${sshd.root}/tree/secret:\n`);
    assert.match(l.stderr, /tree\/secret: permission denied/);
    let r = await as('rm', [urlAs(`${sshd.root}/roots.txt`)]);
    assert.equal(r.code, 5, describeRun(r));
    assert.match(
      r.stderr,
      new RegExp(
        `^sluice: rm: REMOVE ${sshd.root}/roots\\.txt: permission denied \\(SSH_FX_PERMISSION_DENIED[),]`,
        'm',
      ),
    );
    r = await as('chmod', ['600', urlAs(`${sshd.root}/roots.txt`)]);
    assert.equal(r.code, 5, describeRun(r));
    assert.match(r.stderr, /SETSTAT .*\/roots\.txt: permission denied \(SSH_FX_PERMISSION_DENIED[),]/);
    r = await as('mkdir', [urlAs(`${sshd.root}/new`)]);
    assert.equal(r.code, 5, describeRun(r));
    assert.match(r.stderr, /\/new: permission denied/);
    r = await as('rm', ['-r', urlAs(mine)]);
    assert.equal(r.code, 5, describeRun(r));
    assert.match(r.stderr, /REMOVE .*\/mine\/locked\/kept\.txt: permission denied/);
    assert.ok(!fs.existsSync(path.join(mine, 'free.txt')), 'what could be removed was');
    assert.ok(fs.existsSync(path.join(mine, 'locked/kept.txt')));
    assert.equal(fs.readFileSync(path.join(sshd.root, 'roots.txt'), 'utf8'), 'r');
  });

  test('chmod -R reaches inside a folder the account could not list until its mode changed (u+rX)', async () => {
    const u = user as TestUser;
    const shut = path.join(sshd.root, 'shut');
    fs.mkdirSync(path.join(shut, 'in'), { recursive: true });
    fs.writeFileSync(path.join(shut, 'in/f.txt'), 'f');
    for (const p of [shut, path.join(shut, 'in'), path.join(shut, 'in/f.txt')])
      if (u.switchTo) fs.chownSync(p, u.uid, u.gid);
    fs.chmodSync(path.join(shut, 'in/f.txt'), 0o200);
    fs.chmodSync(path.join(shut, 'in'), 0o300);
    fs.chmodSync(shut, 0o000);
    const r = await as('chmod', ['-R', '--json', 'u+rX', urlAs(shut)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(fs.statSync(shut).mode & 0o777, 0o500);
    assert.equal(fs.statSync(path.join(shut, 'in')).mode & 0o777, 0o700);
    assert.equal(fs.statSync(path.join(shut, 'in/f.txt')).mode & 0o777, 0o600);
  });
});

describe('Ctrl-C', { skip: toxiproxyAvailable() ? false : 'toxiproxy-server not installed' }, () => {
  test('rm -r at 50 ms RTT: the first SIGINT ends it at once with 130, the rest of the tree kept', async () => {
    const toxics = (['upstream', 'downstream'] as const).map((stream) => ({
      type: 'latency' as const,
      stream,
      attributes: { latency: 25 },
    }));
    await withProxiedSshd({ tempPrefix: 'sluice-files-int-', toxics }, async ({ srv, proxyPort, dir }) => {
      const kh = path.join(dir, 'known_hosts');
      fs.writeFileSync(kh, `${srv.knownHostsLine(proxyPort)}\n`);
      const tree = path.join(srv.root, 'big');
      for (let d = 0; d < 20; d++) {
        fs.mkdirSync(path.join(tree, `d${d}`), { recursive: true });
        for (let i = 0; i < 100; i++) fs.writeFileSync(path.join(tree, `d${d}`, `f${i}`), '');
      }
      const run = startCli(
        ['rm', '--batch', '--no-agent', '-i', srv.clientKeyPath, '-v', '-r', urlOf({ ...srv, port: proxyPort }, tree)],
        { knownHosts: kh },
      );
      await run.waitForStderr(/removed /);
      run.child.kill('SIGINT');
      const r = await run.result;
      assert.equal(r.code, 130, describeRun(r));
      assert.match(r.stderr, /interrupted/);
      const left = fs.readdirSync(tree).reduce((n, d) => n + fs.readdirSync(path.join(tree, d)).length, 0);
      assert.ok(left > 0 && left < 2000, `some files removed, the rest kept (${left} left)`);
    });
  });
});
