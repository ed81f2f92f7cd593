/**
 * The OpenSSH configuration through the real CLI against a private sshd: `sftp://alias/path` resolved by ~/.ssh/config
 * (HostName, Port, User, IdentityFile; no -i), `-F FILE` instead of it, the URL's port winning over `Port`,
 * `StrictHostKeyChecking` (accept-new saves an unknown key in --batch; `no` still refuses a changed key), and `-v`
 * saying which Match block it skipped.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  describeRun,
  generateKeyFile,
  knownHostsLineFor,
  runCli,
  sha256File,
  startTestServer,
  trustedServerHooks,
  writeRandomFile,
  type SshServer,
} from './helpers';

let server: SshServer;
let work: string;
let knownHosts: string;
let caseNo = 0;
trustedServerHooks(startTestServer, 'sluice-sshcfg-', (t) => {
  ({ server, dir: work, knownHosts } = t);
});

/** A fresh HOME holding `config` as ~/.ssh/config, a local folder with a file, and a remote folder. */
function freshCase(config: string): { home: string; local: string; remote: string; file: string } {
  const n = ++caseNo;
  const home = path.join(work, `home-${n}`);
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
  fs.writeFileSync(path.join(home, '.ssh', 'config'), config);
  const local = path.join(work, `local-${n}`);
  const remote = path.join(server.root, `case-${n}`);
  fs.mkdirSync(local);
  fs.mkdirSync(remote);
  const file = path.join(local, 'data.bin');
  writeRandomFile(file, 200_000);
  return { home, local, remote, file };
}

/** A Host block for the test server under `alias`. */
const aliasBlock = (alias: string, extra: string[] = []) =>
  [
    `Host ${alias}`,
    '  HostName 127.0.0.1',
    `  Port ${server.port}`,
    `  User ${server.user}`,
    `  IdentityFile ${server.clientKeyPath}`,
    ...extra,
    '',
  ].join('\n');

const flags = ['--batch', '--no-agent', '--no-progress'];

describe('ssh_config through the CLI', () => {
  test('sftp://myalias/path goes where ~/.ssh/config says (no -i, no user, no port in the URL)', async () => {
    const c = freshCase(`${aliasBlock('myalias')}Host *\n  Port 1\n  User nobody\n`);
    let r = await runCli(['put', ...flags, c.file, `sftp://myalias${c.remote}/`], {
      knownHosts,
      env: { HOME: c.home },
    });
    assert.equal(r.code, 0, describeRun(r));
    r = await runCli(['get', ...flags, `sftp://myalias${c.remote}/data.bin`, path.join(c.local, 'back.bin')], {
      knownHosts,
      env: { HOME: c.home },
    });
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(await sha256File(path.join(c.local, 'back.bin')), await sha256File(c.file));
    assert.equal(await sha256File(path.join(c.remote, 'data.bin')), await sha256File(c.file));
  });

  test("-F FILE replaces ~/.ssh/config; the URL's port wins over Port", async () => {
    // Were ~/.ssh/config read too, its User would log in as nobody (the -F file names no User: the local user is the
    // server's).
    const c = freshCase('Host other\n  User nobody\n');
    const cfg = path.join(c.local, 'cfg');
    fs.writeFileSync(
      cfg,
      aliasBlock('other', []).replace(`Port ${server.port}`, 'Port 1').replace(`  User ${server.user}\n`, ''),
    );
    const withPort = await runCli(['put', ...flags, '-F', cfg, c.file, `sftp://other:${server.port}${c.remote}/`], {
      knownHosts,
      env: { HOME: c.home },
    });
    assert.equal(withPort.code, 0, describeRun(withPort));
    const withoutPort = await runCli(['put', ...flags, '-F', cfg, c.file, `sftp://other${c.remote}/`], {
      knownHosts,
      env: { HOME: c.home },
    });
    assert.notEqual(withoutPort.code, 0, 'Port 1 of the -F file applies when the URL has no port');
    assert.match(withoutPort.stderr, /127\.0\.0\.1:1\b/);
  });

  test('StrictHostKeyChecking accept-new saves an unknown key under --batch; "no" still refuses a changed key', async () => {
    const c = freshCase(
      `${aliasBlock('acc', ['  StrictHostKeyChecking accept-new'])}${aliasBlock('lax', ['  StrictHostKeyChecking no'])}`,
    );
    const empty = path.join(c.local, 'known_hosts_empty');
    fs.writeFileSync(empty, '');
    const r = await runCli(['put', ...flags, c.file, `sftp://acc${c.remote}/`], {
      knownHosts: empty,
      env: { HOME: c.home },
    });
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(
      fs.readFileSync(empty, 'utf8').trim().split(' ').slice(1).join(' '),
      server.knownHostsLine().trim().split(' ').slice(1).join(' '),
    );
    const other = generateKeyFile(c.local, 'not_the_host_key', 'ed25519');
    const wrong = path.join(c.local, 'known_hosts_wrong');
    fs.writeFileSync(wrong, `${knownHostsLineFor(server.port, other.algo, other.blob)}\n`);
    const changed = await runCli(['put', ...flags, '-v', c.file, `sftp://lax${c.remote}/again/`], {
      knownHosts: wrong,
      env: { HOME: c.home },
    });
    assert.equal(changed.code, 4, describeRun(changed));
    assert.match(changed.stderr, /REMOTE HOST IDENTIFICATION HAS CHANGED/);
    assert.match(changed.stderr, /StrictHostKeyChecking no is read as accept-new/);
  });

  test('-v names a Match block it skipped (exec is never run); a bad keyword value is a usage error', async () => {
    const marker = path.join(work, 'exec-ran');
    const c = freshCase(`Match exec "touch ${marker}"\n  Port 1\n${aliasBlock('m')}Host bad\n  ConnectTimeout soon\n`);
    const r = await runCli(['put', ...flags, '-v', c.file, `sftp://m${c.remote}/`], {
      knownHosts,
      env: { HOME: c.home },
    });
    assert.equal(r.code, 0, describeRun(r));
    assert.match(r.stderr, /Match exec .* skipped/);
    assert.ok(!fs.existsSync(marker), 'the Match exec command did not run');
    const bad = await runCli(['put', ...flags, c.file, `sftp://bad${c.remote}/`], {
      knownHosts,
      env: { HOME: c.home },
    });
    assert.equal(bad.code, 2, describeRun(bad));
    assert.match(bad.stderr, /ConnectTimeout soon/);
  });
});
