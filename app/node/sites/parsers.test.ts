/**
 * The import parsers against files written in each format (app/node/sites/testdata, see its README): what becomes a
 * site, what is skipped, and the notes of what is dropped.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { parseSource } from './parse';
import { fromSafePath } from './filezilla';
import { unmunge } from './candidates';
import { decodeText } from './source';
import type { Candidate } from './candidates';
import { TESTDATA } from '../test/siteFixtures';

const opts = { defaultUser: 'me' };
const text = (name: string): string => decodeText(fs.readFileSync(path.join(TESTDATA, name)));
const byName = (cs: Candidate[], name: string): Candidate => {
  const c = cs.find((x) => x.site.name === name);
  assert.ok(c, `no candidate named ${name} among ${cs.map((x) => x.site.name).join(', ')}`);
  return c;
};

test('OpenSSH: concrete Host names with HostName/Port/User/IdentityFile as ssh computes them; patterns skipped', () => {
  const r = parseSource('openssh', { text: text('ssh_config') }, opts);
  assert.deepEqual(
    r.candidates.map((c) => c.site.name),
    ['web1', 'web2', 'db', 'bastion'],
  );
  assert.deepEqual(byName(r.candidates, 'web1').site, {
    name: 'web1',
    folder: '',
    host: 'web1.example.com',
    port: 22,
    user: 'deploy',
    authMethod: 'key',
    keyPath: '~/.ssh/id_ed25519',
  });
  assert.equal(byName(r.candidates, 'web2').site.host, 'web2.example.com');
  const db = byName(r.candidates, 'db');
  assert.deepEqual(db.site, {
    name: 'db',
    folder: '',
    host: '10.0.0.5',
    port: 2222,
    user: 'postgres',
    authMethod: 'key',
    keyPath: '~/.ssh/id_db',
  });
  assert.ok(db.notes.includes('not imported: ProxyJump bastion'), db.notes.join('\n'));
  assert.ok(
    db.notes.some((n) => n.includes('IdentityFile ~/.ssh/id_rsa')),
    db.notes.join('\n'),
  );
  // `Host *` comes last and still gives its User (first obtained value wins); no IdentityFile: the agent.
  assert.deepEqual(byName(r.candidates, 'bastion').site, {
    name: 'bastion',
    folder: '',
    host: 'bastion.example.com',
    port: 22,
    user: 'fallback',
    authMethod: 'agent',
  });
  for (const pattern of ['*.internal', '!secret.internal', '*'])
    assert.ok(
      r.notes.some((n) => n.startsWith(`skipped Host ${pattern}:`)),
      `${pattern}: ${r.notes.join('\n')}`,
    );
  assert.ok(r.notes.some((n) => n.startsWith('Include ~/.ssh/config.d/* was not followed')));
  assert.ok(r.notes.some((n) => n.startsWith('Match exec blocks were not evaluated')));
});

test('OpenSSH: no User anywhere gives the local user name with a note; a bad Port skips the host', () => {
  const r = parseSource('openssh', { text: 'Host a\n  HostName a.example\nHost b\n  Port ssh\n' }, opts);
  assert.equal(r.candidates.length, 1);
  assert.equal(r.candidates[0].site.user, 'me');
  assert.match(r.candidates[0].notes.join('\n'), /no user name: the local user name \(me\)/);
  assert.ok(
    r.notes.some((n) => n === 'skipped Host b: Port ssh is not a port number'),
    r.notes.join('\n'),
  );
});

test('FileZilla: SFTP entries only, folders nested, base64 password, key file, safe-path remote folder', () => {
  const r = parseSource('filezilla', { text: text('sitemanager.xml') }, opts);
  assert.deepEqual(
    r.candidates.map((c) => `${c.site.folder}|${c.site.name}`).sort(),
    ['Work/Legacy|Deploy key', 'Work|Production files', '|Backup', '|Production again'].sort(),
  );
  const prod = byName(r.candidates, 'Production files');
  assert.deepEqual(prod.site, {
    name: 'Production files',
    folder: 'Work',
    host: 'files.example.com',
    port: 2222,
    user: 'alice',
    authMethod: 'password',
    localDir: '/home/alice/site',
    remoteDir: '/srv/www dir',
  });
  assert.equal(prod.password, 's3cr3t w0rd');
  const key = byName(r.candidates, 'Deploy key');
  assert.equal(key.site.authMethod, 'key');
  assert.equal(key.site.keyPath, '/home/alice/.ssh/deploy.ppk');
  assert.equal(key.site.remoteDir, '/');
  assert.match(key.notes.join('\n'), /PuTTY's format: Sluice reads version 2 RSA and DSA \.ppk files only/);
  const backup = byName(r.candidates, 'Backup');
  assert.equal(backup.site.authMethod, 'password');
  assert.equal(backup.password, undefined, 'Logontype 2 asks for the password: none stored');
  const again = byName(r.candidates, 'Production again');
  assert.equal(again.password, undefined);
  assert.ok(again.notes.includes('password not imported: FileZilla protects it with its master password'));
  assert.ok(r.notes.includes('skipped "Work/Legacy/Old FTP": FTP entry (Sluice speaks SFTP only)'), r.notes.join('\n'));
  assert.ok(r.notes.includes('skipped "FTPES": FTPES entry (Sluice speaks SFTP only)'), r.notes.join('\n'));
});

test('FileZilla: safe paths decode by their segment lengths; malformed XML is refused', () => {
  assert.equal(fromSafePath('1 0 4 home 5 alice'), '/home/alice');
  assert.equal(fromSafePath('1 0 5 a b c'), '/a b c');
  assert.equal(fromSafePath('1 0'), '/');
  assert.equal(fromSafePath('3 3 C:\\ 4 data'), undefined, 'a DOS path is not a Unix one');
  assert.equal(fromSafePath('1 0 9 short'), undefined);
  assert.throws(
    () => parseSource('filezilla', { text: '<FileZilla3><Servers>' }, opts),
    /Not a FileZilla sitemanager\.xml/,
  );
  assert.throws(() => parseSource('filezilla', { text: '<Other/>' }, opts), /no <FileZilla3> element/);
});

test('WinSCP.ini: SFTP sessions with folders from their names, escaped values; passwords, tunnels and other protocols noted', () => {
  const r = parseSource('winscp', { text: text('WinSCP.ini') }, opts);
  assert.deepEqual(
    r.candidates.map((c) => `${c.site.folder}|${c.site.name}`),
    ['Work|web server', 'Work|Staging', '|Café'],
  );
  const web = byName(r.candidates, 'web server');
  assert.deepEqual(web.site, {
    name: 'web server',
    folder: 'Work',
    host: 'web.example.com',
    port: 2200,
    user: 'deploy',
    authMethod: 'key',
    keyPath: 'C:\\Users\\me\\.ssh\\web.ppk',
    localDir: 'C:\\Users\\me\\Sites',
    remoteDir: '/var/www',
  });
  assert.equal(web.password, undefined);
  assert.ok(
    web.notes.some((n) => n.startsWith('password not imported: WinSCP keeps it in its own encoding')),
    web.notes.join('\n'),
  );
  const staging = byName(r.candidates, 'Staging');
  assert.equal(staging.site.port, 22, 'the factory default port');
  assert.equal(staging.site.authMethod, 'agent');
  assert.ok(byName(r.candidates, 'Café').notes.includes('not imported: SSH tunnel through gateway.example.com'));
  assert.ok(r.notes.includes('skipped "ftp site": FTP session (Sluice speaks SFTP only)'), r.notes.join('\n'));
  assert.ok(r.notes.includes('skipped "scp only": SCP-only session (Sluice speaks SFTP only)'), r.notes.join('\n'));
  assert.ok(r.notes.includes('skipped "My Workspace/0000": a workspace'), r.notes.join('\n'));
});

test('WinSCP from a registry export: DWORDs and escaped strings', () => {
  const reg =
    'Windows Registry Editor Version 5.00\r\n\r\n[HKEY_CURRENT_USER\\Software\\Martin Prikryl\\WinSCP 2\\Sessions\\Home/nas]\r\n' +
    '"HostName"="nas.local"\r\n"PortNumber"=dword:00000016\r\n"UserName"="admin"\r\n"FSProtocol"=dword:00000002\r\n"RemoteDirectory"="%2Fvolume1"\r\n';
  const r = parseSource('winscp', { text: reg }, opts);
  assert.deepEqual(
    r.candidates.map((c) => c.site),
    [
      {
        name: 'nas',
        folder: 'Home',
        host: 'nas.local',
        port: 22,
        user: 'admin',
        authMethod: 'agent',
        remoteDir: '/volume1',
      },
    ],
  );
});

test('PuTTY on Unix: one file per session, escaped names, user@host split, SSH only, proxies noted', () => {
  const dir = path.join(TESTDATA, 'putty-sessions');
  const files = fs
    .readdirSync(dir)
    .sort()
    .map((name) => ({ name, text: fs.readFileSync(path.join(dir, name), 'utf8') }));
  const r = parseSource('putty', { files }, opts);
  assert.deepEqual(r.candidates.map((c) => c.site.name).sort(), ['db (bob)', 'prod server']);
  assert.deepEqual(byName(r.candidates, 'prod server').site, {
    name: 'prod server',
    folder: '',
    host: 'prod.example.com',
    port: 22,
    user: 'alice',
    authMethod: 'key',
    keyPath: '/home/alice/.ssh/prod.ppk',
  });
  const db = byName(r.candidates, 'db (bob)');
  assert.deepEqual(
    [db.site.host, db.site.port, db.site.user, db.site.authMethod],
    ['db.example.com', 2022, 'bob', 'agent'],
  );
  assert.ok(db.notes.includes('not imported: SOCKS 5 proxy socks.example.com'), db.notes.join('\n'));
  assert.ok(
    r.notes.includes('skipped "router": telnet session (Sluice speaks SFTP over SSH only)'),
    r.notes.join('\n'),
  );
});

test('PuTTY from a UTF-16 registry export: hex DWORD port, escaped backslashes, continued hex lines', () => {
  const r = parseSource('putty', { text: text('putty-sessions.reg') }, opts);
  assert.deepEqual(
    r.candidates.map((c) => c.site),
    [
      {
        name: 'web prod',
        folder: '',
        host: 'web.example.com',
        port: 2222,
        user: 'deploy',
        authMethod: 'key',
        keyPath: 'C:\\Users\\deploy\\keys\\web.ppk',
      },
    ],
  );
  assert.ok(
    r.notes.includes('skipped "serial console": serial session (Sluice speaks SFTP over SSH only)'),
    r.notes.join('\n'),
  );
  assert.throws(
    () => parseSource('putty', { text: 'HostName=x' }, opts),
    /sessions folder .* or from a registry export/,
  );
});

test('Sluice JSON: sites with every field, passwords, folders; newer fields noted, invalid sites skipped', () => {
  const r = parseSource('sluice', { text: text('sluice-export.json') }, opts);
  assert.deepEqual(
    r.candidates.map((c) => c.site.name),
    ['web', 'nas', 'via bastion'],
  );
  assert.deepEqual(byName(r.candidates, 'web').site, {
    name: 'web',
    folder: 'Work/Prod',
    host: 'web.example.com',
    port: 22,
    user: 'deploy',
    authMethod: 'key',
    keyPath: '~/.ssh/id_ed25519',
    remoteDir: '/var/www',
    connections: 4,
    ciphers: ['aes128-gcm@openssh.com'],
    kex: ['curve25519-sha256'],
    hostKeyAlgorithms: ['ssh-ed25519', 'rsa-sha2-512'],
  });
  assert.equal(byName(r.candidates, 'nas').password, 'hunter2');
  assert.equal(byName(r.candidates, 'nas').site.speedLimit, 10485760);
  assert.ok(
    byName(r.candidates, 'via bastion').notes.includes('not imported: jumpHost (not known to this version of Sluice)'),
  );
  assert.ok(
    r.notes.some((n) => n.startsWith('skipped "broken": port:')),
    r.notes.join('\n'),
  );
  assert.deepEqual(r.folders, ['Home', 'Work', 'Work/Empty', 'Work/Prod']);
  assert.throws(
    () => parseSource('sluice', { text: '{"format":"sluice-sites","version":2,"sites":[]}' }, opts),
    /version 2, made by a newer Sluice/,
  );
  assert.throws(() => parseSource('sluice', { text: '{"sites":[]}' }, opts), /Not a Sluice export/);
  assert.throws(() => parseSource('sluice', { text: 'nope' }, opts), /Not a Sluice export/);
});

test('unmunge: %XX bytes, UTF-8 after an escaped BOM, Latin-1 for other bytes, lone % kept', () => {
  assert.equal(unmunge('My%20site'), 'My site');
  assert.equal(unmunge('%EF%BB%BFCaf%C3%A9'), 'Café');
  assert.equal(unmunge('Caf%E9'), 'Café');
  assert.equal(unmunge('100%'), '100%');
  assert.equal(unmunge('a%2Fb'), 'a/b');
});

test('a folder is a source only for PuTTY', () => {
  assert.throws(() => parseSource('openssh', { files: [] }, opts), /is one file, not a folder/);
});
