/**
 * `sluice sites` (issue #15): add, list, rm (the app's stored password removed with the site), import with its
 * preview, --dry-run and --yes, export (no passwords from the CLI), and a saved site's name as the host of a URL for
 * get, put and queue add against a private sshd. Every case has its own SLUICE_HOME.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import {
  describeRun,
  runCli,
  startTestServer,
  trustedServerHooks,
  urlOf,
  type CliResult,
  type SshServer,
} from './helpers';
import { TESTDATA } from './siteFixtures';

let server: SshServer;
let work: string;
let knownHosts: string;
let caseNo = 0;
trustedServerHooks(startTestServer, 'sluice-cli-sites-', (t) => {
  ({ server, dir: work, knownHosts } = t);
});

interface Case {
  home: string;
  local: string;
  remote: string;
  sluice(args: string[]): Promise<CliResult>;
}

function freshCase(): Case {
  const n = ++caseNo;
  const home = path.join(work, `home-${n}`);
  const local = path.join(work, `local-${n}`);
  const remote = path.join(server.root, `sites-${n}`);
  for (const d of [home, local, remote]) fs.mkdirSync(d);
  return { home, local, remote, sluice: (args) => runCli(args, { knownHosts, env: { SLUICE_HOME: home } }) };
}

interface SiteLine {
  type: string;
  id: string;
  name: string;
  folder: string;
  host: string;
  port: number;
  user: string;
  authMethod: string;
  keyPath?: string;
  remoteDir?: string;
}

async function listed(c: Case): Promise<SiteLine[]> {
  const r = await c.sluice(['sites', 'list', '--json']);
  assert.equal(r.code, 0, describeRun(r));
  return r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as SiteLine);
}

describe('sluice sites', () => {
  test("add, list, rm: names are unique, ids and names both work, the app's stored password goes with the site", async () => {
    const c = freshCase();
    let r = await c.sluice([
      'sites',
      'add',
      'web',
      'sftp://deploy@web.example.com:2222/var/www',
      '-i',
      '/keys/web',
      '--folder',
      'Work',
      '--json',
    ]);
    assert.equal(r.code, 0, describeRun(r));
    const added = JSON.parse(r.stdout) as SiteLine;
    assert.deepEqual(
      [added.name, added.folder, added.host, added.port, added.user, added.authMethod, added.keyPath, added.remoteDir],
      ['web', 'Work', 'web.example.com', 2222, 'deploy', 'key', '/keys/web', '/var/www'],
    );
    r = await c.sluice(['sites', 'add', 'WEB', 'sftp://other.example.com']);
    assert.equal(r.code, 1, describeRun(r));
    assert.match(r.stderr, /already named web/);
    r = await c.sluice(['sites', 'add', 'db', 'sftp://db.example.com']);
    assert.equal(r.code, 0, describeRun(r));
    assert.deepEqual((await listed(c)).map((s) => s.name).sort(), ['db', 'web']);
    const human = await c.sluice(['sites', 'list']);
    assert.match(
      human.stdout,
      new RegExp(
        `^${added.id.slice(0, 8)}  Work/web  sftp://deploy@web\\.example\\.com:2222/var/www  key /keys/web$`,
        'm',
      ),
    );

    fs.writeFileSync(path.join(c.home, 'secrets.json'), JSON.stringify({ [added.id]: 'Y2lwaGVy', other: 'b3RoZXI=' }));
    r = await c.sluice(['sites', 'rm', added.id.slice(0, 6), 'DB']);
    assert.equal(r.code, 0, describeRun(r));
    assert.deepEqual(await listed(c), []);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(c.home, 'secrets.json'), 'utf8')), { other: 'b3RoZXI=' });
    r = await c.sluice(['sites', 'rm', 'web']);
    assert.equal(r.code, 5, describeRun(r));
  });

  test('import: the preview, --dry-run saves nothing, no --yes without a terminal is refused, --yes imports all but duplicates', async () => {
    const c = freshCase();
    const file = path.join(TESTDATA, 'sitemanager.xml');
    let r = await c.sluice(['sites', 'import', 'filezilla', file, '--dry-run']);
    assert.equal(r.code, 0, describeRun(r));
    assert.match(
      r.stdout,
      /^ {2}\[x\] Work\/Production files {2}sftp:\/\/alice@files\.example\.com:2222\/srv\/www%20dir {2}password \(the source has its password\)$/m,
    );
    assert.match(
      r.stdout,
      /^ {2}\[ \] Production again .*\n {8}duplicate: alice@FILES\.example\.com:2222 is also "Work\/Production files" earlier/m,
    );
    assert.match(r.stdout, /skipped "Work\/Legacy\/Old FTP": FTP entry/);
    assert.match(r.stderr, /3 sites would be imported \(dry run\)/);
    r = await c.sluice(['sites', 'import', 'filezilla', file]);
    assert.equal(r.code, 2, describeRun(r));
    assert.match(r.stderr, /add --yes/);
    assert.deepEqual(await listed(c), []);

    r = await c.sluice(['sites', 'import', 'filezilla', file, '--yes', '--into', 'FileZilla', '--json']);
    assert.equal(r.code, 0, describeRun(r));
    const result = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; imported?: unknown[]; notes?: string[] })
      .find((l) => l.type === 'imported');
    assert.equal(result?.imported?.length, 3);
    assert.match(
      result?.notes?.join('\n') ?? '',
      /"Work\/Production files": password not imported: the command line keeps no passwords/,
    );
    assert.deepEqual((await listed(c)).map((s) => `${s.folder}|${s.name}`).sort(), [
      'FileZilla/Work/Legacy|Deploy key',
      'FileZilla/Work|Production files',
      'FileZilla|Backup',
    ]);
    r = await c.sluice(['sites', 'import', 'filezilla', file, '--yes']);
    assert.equal(r.code, 0, describeRun(r));
    assert.match(r.stderr, /nothing to import/, 'a second import finds only duplicates');
    r = await c.sluice(['sites', 'import', 'ftp', file]);
    assert.equal(r.code, 2, describeRun(r));
  });

  test('export: JSON on stdout or into a file (kept unless --force); --with-passwords is refused', async () => {
    const c = freshCase();
    assert.equal(
      (await c.sluice(['sites', 'add', 'nas', 'sftp://admin@nas.local:2222', '--password-auth', '--folder', 'Home']))
        .code,
      0,
    );
    let r = await c.sluice(['sites', 'export']);
    assert.equal(r.code, 0, describeRun(r));
    const doc = JSON.parse(r.stdout) as { format: string; folders: string[]; sites: Array<Record<string, unknown>> };
    assert.equal(doc.format, 'sluice-sites');
    assert.deepEqual(doc.folders, ['Home']);
    assert.deepEqual(doc.sites, [
      { name: 'nas', folder: 'Home', host: 'nas.local', port: 2222, user: 'admin', authMethod: 'password' },
    ]);
    const file = path.join(c.local, 'sites.json');
    fs.writeFileSync(file, 'keep');
    r = await c.sluice(['sites', 'export', file]);
    assert.equal(r.code, 1, describeRun(r));
    assert.equal(fs.readFileSync(file, 'utf8'), 'keep');
    r = await c.sluice(['sites', 'export', file, '--force']);
    assert.equal(r.code, 0, describeRun(r));
    assert.deepEqual((JSON.parse(fs.readFileSync(file, 'utf8')) as { sites: unknown[] }).sites, doc.sites);
    r = await c.sluice(['sites', 'export', '--with-passwords']);
    assert.equal(r.code, 2, describeRun(r));
    assert.match(r.stderr, /cannot read the app's passwords/);
  });
});

describe("a saved site's name as the host of a URL", () => {
  const flags = ['--batch', '--no-agent', '--no-progress'];

  test("get and put use the site's host, port, user, key and folder; -v names the site; queue add keeps them", async () => {
    const c = freshCase();
    const site = urlOf(server, c.remote);
    let r = await c.sluice(['sites', 'add', 'lab', site, '-i', server.clientKeyPath]);
    assert.equal(r.code, 0, describeRun(r));
    fs.writeFileSync(path.join(c.remote, 'hello.txt'), 'hello from the site');
    r = await c.sluice(['get', ...flags, '-v', 'sftp://LAB/hello.txt', path.join(c.local, 'got.txt')]);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(fs.readFileSync(path.join(c.local, 'got.txt'), 'utf8'), 'hello from the site');
    assert.match(
      r.stderr,
      new RegExp(`connected to sftp://${server.user}@127\\.0\\.0\\.1:${server.port}/\\S* \\(saved site lab\\)`),
      describeRun(r),
    );

    fs.writeFileSync(path.join(c.local, 'up.txt'), 'uploaded');
    r = await c.sluice(['put', ...flags, path.join(c.local, 'up.txt'), 'sftp://lab/']);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(fs.readFileSync(path.join(c.remote, 'up.txt'), 'utf8'), 'uploaded');

    r = await c.sluice(['queue', 'add', 'get', ...flags, 'sftp://lab/hello.txt', path.join(c.local, 'queued.txt')]);
    assert.equal(r.code, 0, describeRun(r));
    r = await c.sluice(['queue', 'run', '--batch', '--no-progress']);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(fs.readFileSync(path.join(c.local, 'queued.txt'), 'utf8'), 'hello from the site');
  });

  test("the site's folder is the root of the URL's path: sftp://site is the folder, //abs is absolute", async () => {
    const c = freshCase();
    assert.equal(
      (await c.sluice(['sites', 'add', 'local', urlOf(server, c.remote), '-i', server.clientKeyPath])).code,
      0,
    );
    fs.mkdirSync(path.join(c.remote, 'sub'));
    fs.writeFileSync(path.join(c.remote, 'sub', 'a.txt'), "a in the site's folder");
    const elsewhere = path.join(server.root, `outside-${path.basename(c.remote)}.txt`);
    fs.writeFileSync(elsewhere, "outside the site's folder");
    let r = await c.sluice(['get', ...flags, 'sftp://local/sub/a.txt', path.join(c.local, 'a.txt')]);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(fs.readFileSync(path.join(c.local, 'a.txt'), 'utf8'), "a in the site's folder");
    r = await c.sluice(['get', '-r', ...flags, 'sftp://local', path.join(c.local, 'copy')]);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(fs.readFileSync(path.join(c.local, 'copy', 'sub', 'a.txt'), 'utf8'), "a in the site's folder");
    r = await c.sluice(['get', ...flags, `sftp://local/${elsewhere}`, path.join(c.local, 'outside.txt')]);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(fs.readFileSync(path.join(c.local, 'outside.txt'), 'utf8'), "outside the site's folder");
  });

  test("the URL's own user wins over the site's; two sites of one name are refused", async () => {
    const c = freshCase();
    assert.equal((await c.sluice(['sites', 'add', 'lab', urlOf(server, '/'), '-i', server.clientKeyPath])).code, 0);
    fs.writeFileSync(path.join(c.remote, 'x.txt'), 'x');
    let r = await c.sluice(['get', ...flags, `sftp://nobody-here@lab${c.remote}/x.txt`, path.join(c.local, 'x.txt')]);
    assert.equal(r.code, 3, `the URL's user was not used: ${describeRun(r)}`);
    assert.equal((await c.sluice(['sites', 'add', 'twin', urlOf(server, '/'), '--folder', 'A'])).code, 0);
    const raw = await c.sluice(['sites', 'list', '--json']);
    const twin = raw.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as SiteLine)
      .find((s) => s.name === 'twin')!;
    // A second site of the same name can come from the app or an import (add refuses it): rename `twin` in the
    // database.
    const db = new Database(path.join(c.home, 'sluice.db'));
    db.prepare('UPDATE sites SET name = ? WHERE id = ?').run('lab', twin.id);
    db.close();
    r = await c.sluice(['get', ...flags, `sftp://lab${c.remote}/x.txt`, path.join(c.local, 'x2.txt')]);
    assert.equal(r.code, 2, describeRun(r));
    assert.match(r.stderr, /2 saved sites are named lab \("lab", "A\/lab"\)/);
  });
});
