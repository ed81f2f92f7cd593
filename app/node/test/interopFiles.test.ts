/**
 * The file commands on the servers whose behaviour differs from OpenSSH's (#26 item 8): ProFTPD's mod_sftp and
 * SFTPGo. chmod (SSH_FXP_SETSTAT) and chmod -R, ls -l's mode strings from their listings, mv refusing an existing
 * target (SFTPGo's own RENAME would replace it) and replacing it with -f, rm -r, and df (statvfs@openssh.com where
 * offered, a clear message where not). A server that cannot start here is reported "NOT RUN" and skipped.
 */
import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeRun, makeTempDir, removeDir, runCli, urlOf } from './helpers';
import type { InteropServer, InteropServerName } from '../../../e2e/fixtures/interop';
import { startProftpd } from '../../../e2e/fixtures/proftpd';
import { startSftpgo } from '../../../e2e/fixtures/sftpgo';

const SERVERS: Array<[InteropServerName, () => Promise<InteropServer>]> = [
  ['proftpd', startProftpd],
  ['sftpgo', startSftpgo],
];

for (const [name, start] of SERVERS) {
  describe(`file commands on ${name}`, () => {
    let server: InteropServer | undefined;
    let notRun = '';
    let work = '';
    let knownHosts = '';

    before(async () => {
      try {
        server = await start();
      } catch (e) {
        notRun = (e as Error).message.split('\n').slice(0, 6).join(' | ');
        console.log(`file commands on ${name} NOT RUN: ${notRun}`);
        return;
      }
      work = await makeTempDir(`sluice-files-${name}-`);
      knownHosts = path.join(work, 'known_hosts');
      fs.writeFileSync(knownHosts, `${server.knownHostsLine()}\n`);
    });

    after(async () => {
      await server?.stop();
      if (work) await removeDir(work);
    });

    const ready = (t: TestContext): InteropServer | undefined => {
      if (!server) t.skip(notRun);
      return server;
    };
    const sluice = (s: InteropServer, command: string, args: string[]) =>
      runCli([command, '--batch', '--no-agent', '-i', s.clientKeyPath, ...args], { knownHosts, env: { TZ: 'UTC' } });
    const url = (s: InteropServer, rel: string) => urlOf(s, path.posix.join(s.remoteRoot, rel));
    const explain = (s: InteropServer, r: Parameters<typeof describeRun>[0]) =>
      `${describeRun(r)}\n--- ${name} log ---\n${s.logTail().slice(-1500)}`;
    /** Makes `rel` under the server's folder, owned by the account the server writes as. */
    const local = (s: InteropServer, rel: string) => path.join(s.localRoot, rel);

    test('chmod, chmod -R and ls -l: the modes set are the modes listed', async (t) => {
      const s = ready(t);
      if (!s) return;
      let r = await sluice(s, 'mkdir', ['-p', url(s, 'cm/sub')]);
      assert.equal(r.code, 0, explain(s, r));
      fs.writeFileSync(local(s, 'cm/sub/f.txt'), 'data');
      fs.chownSync(local(s, 'cm/sub/f.txt'), fs.statSync(local(s, 'cm/sub')).uid, fs.statSync(local(s, 'cm/sub')).gid);
      r = await sluice(s, 'chmod', ['640', url(s, 'cm/sub/f.txt')]);
      assert.equal(r.code, 0, explain(s, r));
      assert.equal(fs.statSync(local(s, 'cm/sub/f.txt')).mode & 0o7777, 0o640);
      r = await sluice(s, 'chmod', ['-R', 'go-rwx', url(s, 'cm')]);
      assert.equal(r.code, 0, explain(s, r));
      for (const rel of ['cm', 'cm/sub']) assert.equal(fs.statSync(local(s, rel)).mode & 0o077, 0, rel);
      assert.equal(fs.statSync(local(s, 'cm/sub/f.txt')).mode & 0o777, 0o600);
      r = await sluice(s, 'ls', ['-l', url(s, 'cm/sub')]);
      assert.equal(r.code, 0, explain(s, r));
      assert.match(r.stdout, /^-rw------- +\S+ +\S+ +\S+ +4 \w{3} [ \d]\d [ \d]\d:?\d\d +f\.txt\n$/);
    });

    test('mv refuses an existing target and replaces it with -f; rm -r removes a tree', async (t) => {
      const s = ready(t);
      if (!s) return;
      let r = await sluice(s, 'mkdir', ['-p', url(s, 'mv/deep/er')]);
      assert.equal(r.code, 0, explain(s, r));
      for (const [rel, text] of [
        ['mv/a', 'A'],
        ['mv/b', 'B'],
        ['mv/deep/er/x', 'x'],
      ]) {
        r = await sluice(s, 'ln', ['-s', text, url(s, `${rel}.link`)]);
        assert.equal(r.code, 0, explain(s, r));
      }
      r = await sluice(s, 'mv', [url(s, 'mv/a.link'), url(s, 'mv/b.link')]);
      assert.equal(r.code, 1, explain(s, r));
      assert.match(r.stderr, /the target exists \(use -f to replace it\)/);
      assert.equal(fs.readlinkSync(local(s, 'mv/b.link')), 'B');
      r = await sluice(s, 'mv', ['-f', url(s, 'mv/a.link'), url(s, 'mv/b.link')]);
      assert.equal(r.code, 0, explain(s, r));
      assert.equal(fs.readlinkSync(local(s, 'mv/b.link')), 'A');
      r = await sluice(s, 'rm', ['-r', url(s, 'mv')]);
      assert.equal(r.code, 0, explain(s, r));
      assert.ok(!fs.existsSync(local(s, 'mv')));
    });

    test("df: the file system's sizes where statvfs@openssh.com is offered, else a message naming it", async (t) => {
      const s = ready(t);
      if (!s) return;
      const r = await sluice(s, 'df', [url(s, '')]);
      if (r.code === 0) assert.match(r.stdout, /^ +Size +Used +Avail Use% Path\n.+\d+% /);
      else {
        assert.equal(r.code, 1, explain(s, r));
        assert.match(r.stderr, /does not offer statvfs@openssh\.com/);
      }
      t.diagnostic(`${name} df: exit ${r.code}`);
    });
  });
}
