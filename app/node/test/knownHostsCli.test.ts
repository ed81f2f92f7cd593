/**
 * known_hosts through the real CLI: unknown keys refused in --batch, --accept-new writes the key once even
 * with 4 connections racing, a changed key refused with OpenSSH's text BEFORE any authentication request
 * (proved by a server that counts them), @revoked refused, and a file hashed by `ssh-keygen -H` read right.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Connection, Server as Ssh2Server } from 'ssh2';
import {
  baseFlags,
  describeRun,
  fingerprintOf,
  generateKeyFile,
  knownHostsLineFor,
  makeTempDir,
  removeDir,
  runCli,
  serveSftp,
  startSshd,
  trustedServerHooks,
  urlOf,
  writeRandomFile,
  type SshdServer,
} from './helpers';

const ssh2 = require('ssh2') as typeof import('ssh2');

let sshd: SshdServer;
let work: string;
let src: string;
let caseNo = 0;

trustedServerHooks(
  () => startSshd(),
  'sluice-kh-',
  (t) => {
    ({ server: sshd, dir: work } = t);
    src = path.join(work, 'payload.bin');
    writeRandomFile(src, 100_000);
  },
);

/** A fresh known_hosts file holding `lines`. */
function knownHostsWith(lines: string[]): string {
  const p = path.join(work, `known_hosts-${++caseNo}`);
  fs.writeFileSync(p, lines.length ? `${lines.join('\n')}\n` : '');
  return p;
}

function putArgs(extra: string[] = []): string[] {
  return ['put', ...baseFlags(sshd), ...extra, src, urlOf(sshd, `${sshd.root}/`)];
}

/** Lines of a known_hosts file that carry `blob`. */
function linesWithKey(file: string, blob: Buffer): string[] {
  const b64 = blob.toString('base64');
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.split(/\s+/).includes(b64));
}

/**
 * An SFTP server over ssh2's Server that accepts one password and counts every SSH_MSG_USERAUTH_REQUEST
 * it receives (ssh2 emits 'authentication' for each, including the initial "none" probe).
 */
async function startCountingServer(
  password: string,
): Promise<{ port: number; hostBlob: Buffer; authRequests: () => number; stop(): Promise<void> }> {
  const dir = await makeTempDir('sluice-kh-count-');
  const key = generateKeyFile(dir, 'host_key', 'ed25519');
  const root = path.join(dir, 'root');
  fs.mkdirSync(root);
  let authRequests = 0;
  const live = new Set<Connection>();
  const srv: Ssh2Server = new ssh2.Server({ hostKeys: [fs.readFileSync(key.privatePath)] }, (conn) => {
    live.add(conn);
    conn.on('error', () => undefined);
    conn.on('close', () => live.delete(conn));
    conn.on('authentication', (ctx) => {
      authRequests++;
      if (ctx.method === 'password' && ctx.password === password) ctx.accept();
      else ctx.reject(['password']);
    });
    conn.on('ready', () =>
      conn.on('session', (accept) => {
        const session = accept();
        session.on('sftp', (acc) => serveSftp(acc(), { root }, { bytes: 0, drop: () => conn.end() }));
      }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (srv.address() as { port: number }).port,
    hostBlob: key.blob,
    authRequests: () => authRequests,
    async stop() {
      for (const c of live) c.end();
      await new Promise<void>((resolve) => srv.close(() => resolve()));
      await removeDir(dir);
    },
  };
}

describe('known_hosts via the CLI', () => {
  test('unknown key: refused in --batch (exit 4, SHA256 fingerprint shown), nothing written, nothing uploaded', async () => {
    const kh = knownHostsWith([]);
    const r = await runCli(putArgs(), { knownHosts: kh });
    assert.equal(r.code, 4, describeRun(r));
    assert.ok(r.stderr.includes(fingerprintOf(sshd.hostKeyBlobs()[0])), `fingerprint missing\n${describeRun(r)}`);
    assert.equal(fs.readFileSync(kh, 'utf8'), '', 'known_hosts must stay empty');
    assert.equal(fs.existsSync(path.join(sshd.root, 'payload.bin')), false);
  });

  test('--accept-new with --connections 4: accepted, written exactly once, then trusted without the flag', async () => {
    const kh = knownHostsWith(['# a comment that must survive']);
    const r = await runCli(putArgs(['--accept-new', '--connections', '4']), { knownHosts: kh });
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(linesWithKey(kh, sshd.hostKeyBlobs()[0]).length, 1, `key lines:\n${fs.readFileSync(kh, 'utf8')}`);
    assert.ok(fs.readFileSync(kh, 'utf8').startsWith('# a comment that must survive\n'));
    const again = await runCli(putArgs(['--connections', '4']), { knownHosts: kh });
    assert.equal(again.code, 0, describeRun(again));
    assert.equal(linesWithKey(kh, sshd.hostKeyBlobs()[0]).length, 1);
  });

  test('changed key (sshd rotated its key): exit 4, OpenSSH warning, file:line and both fingerprints', async () => {
    const server = await startSshd();
    try {
      const oldBlob = server.hostKeyBlobs()[0];
      const kh = knownHostsWith([
        '# line 1',
        `[127.0.0.1]:1 ssh-ed25519 ${oldBlob.toString('base64')}`,
        server.knownHostsLine(),
      ]);
      await server.rotateHostKeys();
      const newBlob = server.hostKeyBlobs()[0];
      assert.notDeepEqual(newBlob, oldBlob);
      const before = fs.readFileSync(kh, 'utf8');
      const r = await runCli(
        ['put', ...baseFlags(server), '--accept-new', '--connections', '4', src, urlOf(server, `${server.root}/`)],
        { knownHosts: kh },
      );
      assert.equal(r.code, 4, describeRun(r));
      assert.match(r.stderr, /REMOTE HOST IDENTIFICATION HAS CHANGED/);
      assert.ok(r.stderr.includes(`${kh}:3`), `file:line of the stored key missing\n${r.stderr}`);
      assert.ok(r.stderr.includes(fingerprintOf(oldBlob)), 'old fingerprint missing');
      assert.ok(r.stderr.includes(fingerprintOf(newBlob)), 'new fingerprint missing');
      assert.equal(fs.readFileSync(kh, 'utf8'), before, '--accept-new must not touch a changed key');
      assert.equal(fs.existsSync(path.join(server.root, 'payload.bin')), false);
    } finally {
      await server.stop();
    }
  });

  test('changed key is refused before authentication: the server sees no userauth request', async () => {
    const password = 'correct horse battery staple';
    const srv = await startCountingServer(password);
    try {
      const url = `sftp://tester@127.0.0.1:${srv.port}/`;
      const flags = ['--batch', '--no-agent', '--no-progress'];
      const env = { SLUICE_PASSWORD: password };
      // Control: with the right key stored, the same command authenticates (so the counter does count).
      const good = knownHostsWith([knownHostsLineFor(srv.port, 'ssh-ed25519', srv.hostBlob)]);
      const ok = await runCli(['put', ...flags, src, url], { knownHosts: good, env });
      assert.equal(ok.code, 0, describeRun(ok));
      const afterControl = srv.authRequests();
      assert.ok(afterControl > 0, 'the control run must have authenticated');

      const other = generateKeyFile(work, `other-${Date.now()}`, 'ed25519');
      const bad = knownHostsWith([knownHostsLineFor(srv.port, other.algo, other.blob)]);
      const r = await runCli(['put', ...flags, '--connections', '3', src, url], { knownHosts: bad, env });
      assert.equal(r.code, 4, describeRun(r));
      assert.match(r.stderr, /REMOTE HOST IDENTIFICATION HAS CHANGED/);
      assert.ok(r.stderr.includes(`${bad}:1`), r.stderr);
      assert.ok(
        r.stderr.includes(fingerprintOf(other.blob)) && r.stderr.includes(fingerprintOf(srv.hostBlob)),
        r.stderr,
      );
      assert.equal(srv.authRequests(), afterControl, 'a userauth request reached the server after a changed host key');
      assert.doesNotMatch(r.stderr + r.stdout, new RegExp(password), 'the password must never be printed');
    } finally {
      await srv.stop();
    }
  });

  test('@revoked key: refused (exit 4) even with --accept-new', async () => {
    const blob = sshd.hostKeyBlobs()[0];
    const kh = knownHostsWith([`@revoked [127.0.0.1]:${sshd.port} ssh-ed25519 ${blob.toString('base64')}`]);
    const r = await runCli(putArgs(['--accept-new']), { knownHosts: kh });
    assert.equal(r.code, 4, describeRun(r));
    assert.match(r.stderr, /REVOKED/);
    assert.ok(r.stderr.includes(fingerprintOf(blob)), r.stderr);
    assert.equal(linesWithKey(kh, blob).length, 1, 'nothing may be added next to a revoked key');
  });

  test('a known_hosts hashed by ssh-keygen -H is read, and new entries in it are hashed', async (t) => {
    if (!fs.existsSync('/usr/bin/ssh-keygen')) {
      t.skip('ssh-keygen not installed');
      return;
    }
    const kh = knownHostsWith([sshd.knownHostsLine()]);
    execFileSync('/usr/bin/ssh-keygen', ['-H', '-f', kh], { stdio: 'ignore' });
    fs.rmSync(`${kh}.old`, { force: true });
    const hashed = fs.readFileSync(kh, 'utf8');
    assert.match(hashed, /^\|1\|/, 'ssh-keygen -H must have hashed the host');
    assert.ok(!hashed.includes('127.0.0.1'));

    const r = await runCli(putArgs(), { knownHosts: kh });
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(fs.readFileSync(kh, 'utf8'), hashed, 'a trusted key must not be written again');

    // A second server, accepted with --accept-new into the hashed file: its line is hashed too.
    const second = await startSshd();
    try {
      const r2 = await runCli(['put', ...baseFlags(second), '--accept-new', src, urlOf(second, `${second.root}/`)], {
        knownHosts: kh,
      });
      assert.equal(r2.code, 0, describeRun(r2));
      const added = linesWithKey(kh, second.hostKeyBlobs()[0]);
      assert.equal(added.length, 1);
      assert.match(added[0], /^\|1\|/, `new entry not hashed: ${added[0]}`);
      // OpenSSH agrees it matches: ssh-keygen -F finds the hashed entry for [127.0.0.1]:port.
      const found = execFileSync('/usr/bin/ssh-keygen', ['-F', `[127.0.0.1]:${second.port}`, '-f', kh], {
        encoding: 'utf8',
      });
      assert.ok(found.includes(second.hostKeyBlobs()[0].toString('base64')), found);
    } finally {
      await second.stop();
    }
  });
});
