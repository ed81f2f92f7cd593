/**
 * The panes' file operations (#26 item 6) through the service on the servers whose behaviour differs from OpenSSH's:
 * ProFTPD's mod_sftp and SFTPGo, neither offering `copy-data`. A duplicate of a file goes through the queue (a
 * download into the cache, then an upload under the copy's name) and the cache is removed; a move refuses an existing
 * target, then replaces it when asked (posix-rename@openssh.com where offered, else RENAME and the move-aside
 * sequence); a new empty file never replaces an existing one; a symlink names its target; the Properties dialog's
 * chmod (#26 item 2: SSH_FXP_SETSTAT, recursively to files only or folders only) sets the modes the server then
 * stores and reports. A server that cannot start here is reported "NOT RUN" and skipped.
 */
import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeTempDir, removeDir } from './helpers';
import type { InteropServer, InteropServerName } from '../../../e2e/fixtures/interop';
import { startProftpd } from '../../../e2e/fixtures/proftpd';
import { startSftpgo } from '../../../e2e/fixtures/sftpgo';
import { SluiceService } from '../service';
import { MemorySecretStore } from '../stores/sites';

const SERVERS: Array<[InteropServerName, () => Promise<InteropServer>]> = [
  ['proftpd', startProftpd],
  ['sftpgo', startSftpgo],
];

/** Resolves once `cond` holds after a queue change (at most 30 s). */
function untilQueue(service: SluiceService, cond: () => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out waiting for the queue')), 30_000);
    const check = () => {
      if (!cond()) return;
      clearTimeout(timer);
      off();
      resolve();
    };
    const off = service.subscribe((event) => event === 'queue.delta' && check());
    check();
  });
}

/** Writes `rel` (a folder when `content` is undefined) under the server's folder, owned as the server writes. */
function owned(s: InteropServer, rel: string, content?: string): string {
  const { uid, gid } = fs.statSync(s.localRoot);
  const full = path.join(s.localRoot, rel);
  const parts = rel.split('/');
  for (let i = 1; i < parts.length; i++) {
    const dir = path.join(s.localRoot, ...parts.slice(0, i));
    fs.mkdirSync(dir, { recursive: true });
    fs.chownSync(dir, uid, gid);
  }
  if (content === undefined) fs.mkdirSync(full, { recursive: true });
  else fs.writeFileSync(full, content);
  fs.chownSync(full, uid, gid);
  return full;
}

for (const [name, start] of SERVERS) {
  describe(`the panes' file operations on ${name}`, () => {
    let server: InteropServer | undefined;
    let notRun = '';
    let home = '';
    let service: SluiceService | undefined;
    let siteId = '';

    before(async () => {
      try {
        server = await start();
      } catch (e) {
        notRun = (e as Error).message.split('\n').slice(0, 6).join(' | ');
        console.log(`file operations on ${name} NOT RUN: ${notRun}`);
        return;
      }
      home = await makeTempDir(`sluice-fileops-${name}-`);
      const knownHostsPath = path.join(home, 'known_hosts');
      fs.writeFileSync(knownHostsPath, `${server.knownHostsLine()}\n`);
      service = new SluiceService({ home, secrets: new MemorySecretStore(), knownHostsPath, env: { HOME: home } });
      const saved = await service.invoke('sites.save', {
        site: {
          name,
          folder: '',
          host: server.host,
          port: server.port,
          user: server.user,
          authMethod: 'key',
          keyPath: server.clientKeyPath,
          connections: 1,
          channels: 2,
        },
      });
      assert.ok(saved.ok, JSON.stringify(saved));
      siteId = saved.value.id;
      const connected = await service.invoke('session.connect', { siteId });
      assert.ok(connected.ok, `${JSON.stringify(connected)}\n${server.logTail().slice(-1500)}`);
    });

    after(async () => {
      await service?.close();
      await server?.stop();
      if (home) await removeDir(home);
    });

    const ready = (t: TestContext): [InteropServer, SluiceService] | undefined => {
      if (!server || !service) t.skip(notRun);
      return server && service ? [server, service] : undefined;
    };

    test('duplicate without copy-data goes through the queue; the cache is removed', async (t) => {
      const r = ready(t);
      if (!r) return;
      const [s, svc] = r;
      owned(s, 'dup/notes.txt', 'notes on the server');
      const remote = path.posix.join(s.remoteRoot, 'dup', 'notes.txt');
      const d = await svc.invoke('remote.duplicate', { siteId, path: remote });
      assert.ok(d.ok, JSON.stringify(d));
      assert.equal(d.value.via, 'queue', 'no copy-data on this server');
      assert.equal(d.value.path, path.posix.join(s.remoteRoot, 'dup', 'notes (copy).txt'));
      const copy = path.join(s.localRoot, 'dup', 'notes (copy).txt');
      await untilQueue(svc, () => svc.jobs().some((j) => j.direction === 'upload' && j.state === 'done'));
      assert.equal(fs.readFileSync(copy, 'utf8'), 'notes on the server');
      const copies = path.join(home, 'copies');
      for (let i = 0; i < 100 && fs.readdirSync(copies).length > 0; i++)
        await new Promise((res) => setTimeout(res, 50));
      assert.deepEqual(fs.readdirSync(copies), []);
    });

    test('a move refuses an existing target, replaces it when asked; new file and symlink', async (t) => {
      const r = ready(t);
      if (!r) return;
      const [s, svc] = r;
      const local = (p: string) => path.join(s.localRoot, 'mv', p);
      const remote = (p: string) => path.posix.join(s.remoteRoot, 'mv', p);
      owned(s, 'mv/a.txt', 'new');
      owned(s, 'mv/into/a.txt', 'old');
      const taken = await svc.invoke('remote.rename', { siteId, from: remote('a.txt'), to: remote('into/a.txt') });
      assert.ok(!taken.ok && taken.error.code === 'EXISTS', JSON.stringify(taken));
      assert.equal(fs.readFileSync(local('into/a.txt'), 'utf8'), 'old');
      const forced = await svc.invoke('remote.rename', {
        siteId,
        from: remote('a.txt'),
        to: remote('into/a.txt'),
        overwrite: true,
      });
      assert.ok(forced.ok, JSON.stringify(forced));
      assert.equal(fs.readFileSync(local('into/a.txt'), 'utf8'), 'new');
      assert.ok(!fs.existsSync(local('a.txt')));
      const made = await svc.invoke('remote.newFile', { siteId, path: remote('empty.txt') });
      assert.ok(made.ok, JSON.stringify(made));
      assert.equal(fs.statSync(local('empty.txt')).size, 0);
      const again = await svc.invoke('remote.newFile', { siteId, path: remote('into/a.txt') });
      assert.ok(!again.ok && again.error.code === 'EXISTS', JSON.stringify(again));
      assert.equal(fs.readFileSync(local('into/a.txt'), 'utf8'), 'new', 'never truncated');
      const link = await svc.invoke('remote.symlink', { siteId, target: 'empty.txt', path: remote('link') });
      assert.ok(link.ok, JSON.stringify(link));
      assert.equal(fs.readlinkSync(local('link')), 'empty.txt');
    });
    test("Properties' chmod: one file, then files only and folders only below a folder", async (t) => {
      const r = ready(t);
      if (!r) return;
      const [s, svc] = r;
      const local = (p: string) => path.join(s.localRoot, 'pm', p);
      const remote = (p: string) => path.posix.join(s.remoteRoot, 'pm', p);
      const top = path.posix.join(s.remoteRoot, 'pm');
      const modeOf = (p: string) => fs.statSync(local(p)).mode & 0o7777;
      owned(s, 'pm/f.txt', 'f');
      owned(s, 'pm/sub/g.txt', 'g');
      const dirModes = { '': modeOf(''), sub: modeOf('sub') };

      const one = await svc.invoke('remote.chmod', { siteId, path: remote('f.txt'), mode: 0o640 });
      assert.ok(one.ok, JSON.stringify(one));
      assert.equal(modeOf('f.txt').toString(8), '640');
      const stat = await svc.invoke('remote.stat', { siteId, path: remote('f.txt') });
      assert.ok(stat.ok && stat.value.mode === 0o640, JSON.stringify(stat));

      const files = await svc.invoke('remote.chmod', { siteId, path: top, mode: 0o600, recurse: 'files' });
      assert.ok(files.ok, JSON.stringify(files));
      assert.deepEqual(
        [modeOf('f.txt'), modeOf('sub/g.txt')].map((m) => m.toString(8)),
        ['600', '600'],
      );
      assert.deepEqual({ '': modeOf(''), sub: modeOf('sub') }, dirModes, 'folders untouched by a files-only chmod');

      const dirs = await svc.invoke('remote.chmod', { siteId, path: top, mode: 0o750, recurse: 'folders' });
      assert.ok(dirs.ok, JSON.stringify(dirs));
      assert.deepEqual(
        [modeOf(''), modeOf('sub')].map((m) => m.toString(8)),
        ['750', '750'],
      );
      assert.equal(modeOf('sub/g.txt').toString(8), '600', 'files untouched by a folders-only chmod');
    });
  });
}
