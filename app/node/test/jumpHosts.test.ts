/**
 * Jump hosts end to end: `sluice put` and `get` through `-J` (one and two hops, several connections) and through
 * ProxyJump of an `-F` config under a Host alias, against two private sshd where the target is reachable only through
 * the jump host's forwarding (a private network namespace: e2e/fixtures/jumpNet.ts). A direct attempt (`-J none`)
 * fails; an unknown jump host key is refused in --batch naming the jump host; a refused login names the hop. The app's
 * service connects a site with a jump host, asking about the jump host's key in the host-key dialog, and its "Test
 * connection" (`sites.test`) reaches the target through the form's jump host.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { jumpNetAvailable, startJumpNet, type JumpNet } from '../../../e2e/fixtures/jumpNet';
import type { EventName, EventPayloads } from '../../common/ipc/contract';
import { SluiceService } from '../service';
import { MemorySecretStore } from '../stores/sites';
import { describeRun, makeTempDir, removeDir, runCli, sha256File, writeRandomFile } from './helpers';

const available = jumpNetAvailable();
const skip = available === true ? false : available;

let jn: JumpNet;
let work: string;
/** known_hosts with the jump host (at the bridge and at its own port inside the namespace) and the target. */
let knownHosts: string;
/** A HOME whose ~/.ssh/id_ed25519 is the jump host's client key: hops take the default identity, as with ssh -J. */
let jumpHome: string;
let caseNo = 0;

before(
  async () => {
    if (skip) return;
    jn = await startJumpNet();
    work = await makeTempDir('sluice-jump-');
    knownHosts = path.join(work, 'known_hosts');
    fs.writeFileSync(
      knownHosts,
      [
        jn.bastion.knownHostsLine(jn.bastion.port),
        jn.bastion.knownHostsLine(jn.bastion.innerPort),
        jn.target.knownHostsLine(jn.target.port),
        '',
      ].join('\n'),
    );
    jumpHome = path.join(work, 'home');
    fs.mkdirSync(path.join(jumpHome, '.ssh'), { recursive: true });
    fs.copyFileSync(jn.bastion.clientKeyPath, path.join(jumpHome, '.ssh', 'id_ed25519'));
    fs.chmodSync(path.join(jumpHome, '.ssh', 'id_ed25519'), 0o600);
  },
  { timeout: 90_000 },
);

after(async () => {
  if (skip) return;
  await jn?.stop();
  if (work) await removeDir(work);
});

/** A fresh local folder and a fresh folder in the target's root, with a 3 MiB random file in the local one. */
function freshCase(): { local: string; remote: string; file: string } {
  const n = ++caseNo;
  const local = path.join(work, `case-${n}`);
  const remote = path.join(jn.target.root, `case-${n}`);
  fs.mkdirSync(local);
  fs.mkdirSync(remote);
  const file = path.join(local, 'data.bin');
  writeRandomFile(file, 3 * 1024 * 1024 + 17);
  return { local, remote, file };
}

const base = ['--batch', '--no-agent', '--no-progress'];
const targetUrl = (p: string) => `sftp://${jn.target.user}@127.0.0.1:${jn.target.port}${p}`;
const run = (args: string[], env: Record<string, string> = {}, kh = knownHosts) =>
  runCli(args, { knownHosts: kh, env: { HOME: jumpHome, ...env } });

describe('jump hosts', { skip }, () => {
  test('-J: put and get through one jump host, both connections of the pool, bytes intact', async () => {
    const { local, remote, file } = freshCase();
    const jump = ['-J', `${jn.bastion.user}@127.0.0.1:${jn.bastion.port}`];
    const before = jn.bridged();
    const pool = ['--connections', '2', '--channels', '2', '-v'];
    let r = await run(['put', ...base, ...pool, '-i', jn.target.clientKeyPath, ...jump, file, targetUrl(`${remote}/`)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.match(r.stderr, /through jump host 127\.0\.0\.1:\d+ to 127\.0\.0\.1:\d+/);
    assert.match(
      r.stderr,
      /connection 2 with \d+ channel/,
      'the second connection is up, and it can only have come through the jump host',
    );
    assert.equal(await sha256File(path.join(remote, 'data.bin')), await sha256File(file));
    r = await run([
      'get',
      ...base,
      ...pool,
      '-i',
      jn.target.clientKeyPath,
      ...jump,
      targetUrl(`${remote}/data.bin`),
      path.join(local, 'back.bin'),
    ]);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(await sha256File(path.join(local, 'back.bin')), await sha256File(file));
    assert.ok(
      jn.bridged() - before >= 4,
      `each connection of both runs opened its own jump connection (${jn.bridged() - before})`,
    );
    // The jump host announced its second key (hostkeys-00@openssh.com); it is learned under the jump host's name.
    assert.match(
      fs.readFileSync(knownHosts, 'utf8'),
      new RegExp(`^\\[127\\.0\\.0\\.1\\]:${jn.bastion.port} ecdsa-sha2-nistp256 `, 'm'),
    );
  });

  test('-J with two hops: the jump host, then the jump host again at its own address inside', async () => {
    const { local, remote, file } = freshCase();
    fs.copyFileSync(file, path.join(remote, 'in.bin'));
    const hops = `${jn.bastion.user}@127.0.0.1:${jn.bastion.port},${jn.bastion.user}@127.0.0.1:${jn.bastion.innerPort}`;
    const r = await run([
      'get',
      ...base,
      '-i',
      jn.target.clientKeyPath,
      '-J',
      hops,
      targetUrl(`${remote}/in.bin`),
      path.join(local, 'out.bin'),
    ]);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(await sha256File(path.join(local, 'out.bin')), await sha256File(file));
  });

  test('ProxyJump in an -F config under Host aliases: put and get to sftp://alias/…; -J none cannot reach it', async () => {
    const { local, remote, file } = freshCase();
    const config = path.join(work, `config-${caseNo}`);
    fs.writeFileSync(
      config,
      [
        'Host target',
        '  HostName 127.0.0.1',
        `  Port ${jn.target.port}`,
        `  User ${jn.target.user}`,
        `  IdentityFile ${jn.target.clientKeyPath}`,
        '  ProxyJump bastion',
        'Host bastion',
        '  HostName 127.0.0.1',
        `  Port ${jn.bastion.port}`,
        `  User ${jn.bastion.user}`,
        `  IdentityFile ${jn.bastion.clientKeyPath}`,
        '',
      ].join('\n'),
    );
    // An empty HOME: every identity comes from the config file.
    const env = { HOME: path.join(work, 'nohome') };
    let r = await run(['put', ...base, '-F', config, file, `sftp://target${remote}/`], env);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(await sha256File(path.join(remote, 'data.bin')), await sha256File(file));
    r = await run(['get', ...base, '-F', config, `sftp://target${remote}/data.bin`, path.join(local, 'back.bin')], env);
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(await sha256File(path.join(local, 'back.bin')), await sha256File(file));
    r = await run(
      ['get', ...base, '-F', config, '-J', 'none', `sftp://target${remote}/data.bin`, path.join(local, 'direct.bin')],
      env,
    );
    assert.notEqual(r.code, 0, describeRun(r));
    assert.match(
      r.stderr,
      new RegExp(`127\\.0\\.0\\.1:${jn.target.port}`),
      "the direct attempt went to the target's address and failed",
    );
    assert.ok(!fs.existsSync(path.join(local, 'direct.bin')));
  });

  test("the file commands through -J and through an alias's ProxyJump: mkdir -p, ls -l, mv, rm -r (#26 item 8)", async () => {
    const { remote } = freshCase();
    const jump = ['-J', `${jn.bastion.user}@127.0.0.1:${jn.bastion.port}`, '-i', jn.target.clientKeyPath];
    let r = await run(['mkdir', ...base, ...jump, '-p', targetUrl(`${remote}/a/b`)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.ok(fs.statSync(path.join(remote, 'a/b')).isDirectory());
    const config = path.join(work, `config-${caseNo}`);
    fs.writeFileSync(
      config,
      [
        'Host target',
        '  HostName 127.0.0.1',
        `  Port ${jn.target.port}`,
        `  User ${jn.target.user}`,
        `  IdentityFile ${jn.target.clientKeyPath}`,
        '  ProxyJump bastion',
        'Host bastion',
        '  HostName 127.0.0.1',
        `  Port ${jn.bastion.port}`,
        `  User ${jn.bastion.user}`,
        `  IdentityFile ${jn.bastion.clientKeyPath}`,
        '',
      ].join('\n'),
    );
    const env = { HOME: path.join(work, 'nohome') };
    r = await run(['mv', ...base, '-F', config, `sftp://target${remote}/a/b`, `sftp://target${remote}/a/c`], env);
    assert.equal(r.code, 0, describeRun(r));
    r = await run(['ls', ...base, '-F', config, '-l', `sftp://target${remote}/a`], env);
    assert.equal(r.code, 0, describeRun(r));
    assert.match(r.stdout, /^drwx[-rwxsStT]{6} +\d+ \S+ +\S+ +\d+ \w{3} [ \d]\d \d\d:\d\d c\n$/);
    r = await run(['rm', ...base, ...jump, '-r', targetUrl(`${remote}/a`)]);
    assert.equal(r.code, 0, describeRun(r));
    assert.deepEqual(fs.readdirSync(remote), []);
  });

  test("a jump host's own UserKnownHostsFile and StrictHostKeyChecking apply to it, the target's to the target (as ssh -J)", async () => {
    const { remote, file } = freshCase();
    const targetKh = path.join(work, `kh-target-${caseNo}`);
    const bastionKh = path.join(work, `kh-bastion-${caseNo}`);
    fs.writeFileSync(targetKh, `${jn.target.knownHostsLine(jn.target.port)}\n`);
    fs.writeFileSync(bastionKh, `${jn.bastion.knownHostsLine(jn.bastion.port)}\n`);
    const config = path.join(work, `config-${caseNo}`);
    const write = (bastionLines: string[]) =>
      fs.writeFileSync(
        config,
        [
          'Host target',
          '  HostName 127.0.0.1',
          `  Port ${jn.target.port}`,
          `  User ${jn.target.user}`,
          `  IdentityFile ${jn.target.clientKeyPath}`,
          '  ProxyJump bastion',
          `  UserKnownHostsFile ${targetKh}`,
          'Host bastion',
          '  HostName 127.0.0.1',
          `  Port ${jn.bastion.port}`,
          `  User ${jn.bastion.user}`,
          `  IdentityFile ${jn.bastion.clientKeyPath}`,
          ...bastionLines,
          '',
        ].join('\n'),
      );
    // SLUICE_KNOWN_HOSTS empty: the configuration's files decide (the variable would win for every server).
    const env = { HOME: path.join(work, 'nohome'), SLUICE_KNOWN_HOSTS: '' };
    write([`  UserKnownHostsFile ${bastionKh}`]);
    let r = await run(['put', ...base, '-F', config, file, `sftp://target${remote}/`], env);
    assert.equal(r.code, 0, `the bastion's key is in its own file only: ${describeRun(r)}`);
    assert.equal(await sha256File(path.join(remote, 'data.bin')), await sha256File(file));
    // A new file for the bastion with StrictHostKeyChecking accept-new: its key is saved there under --batch, the
    // target's file is untouched.
    const newKh = path.join(work, `kh-bastion-new-${caseNo}`);
    write([`  UserKnownHostsFile ${newKh}`, '  StrictHostKeyChecking accept-new']);
    r = await run(
      ['get', ...base, '-F', config, `sftp://target${remote}/data.bin`, path.join(work, `back-${caseNo}.bin`)],
      env,
    );
    assert.equal(r.code, 0, describeRun(r));
    assert.match(
      fs.readFileSync(newKh, 'utf8'),
      new RegExp(`^\\[127\\.0\\.0\\.1\\]:${jn.bastion.port} `, 'm'),
      "the bastion's key saved to its own file",
    );
    assert.equal(
      fs.readFileSync(targetKh, 'utf8'),
      `${jn.target.knownHostsLine(jn.target.port)}\n`,
      "the target's file is unchanged",
    );
    // Without its own settings the bastion is checked against the default files (an empty HOME: none), refused in
    // --batch.
    write([]);
    r = await run(
      ['get', ...base, '-F', config, `sftp://target${remote}/data.bin`, path.join(work, `again-${caseNo}.bin`)],
      env,
    );
    assert.equal(r.code, 4, describeRun(r));
    assert.match(r.stderr, new RegExp(`jump host bastion \\(127\\.0\\.0\\.1:${jn.bastion.port}\\)`), describeRun(r));
  });

  test('an unknown jump host key is refused in --batch, naming the jump host; the target is not reached', async () => {
    const { local, remote, file } = freshCase();
    fs.copyFileSync(file, path.join(remote, 'in.bin'));
    const onlyTarget = path.join(work, 'known_hosts_target_only');
    fs.writeFileSync(onlyTarget, `${jn.target.knownHostsLine(jn.target.port)}\n`);
    const r = await run(
      [
        'get',
        ...base,
        '--json',
        '-i',
        jn.target.clientKeyPath,
        '-J',
        `${jn.bastion.user}@127.0.0.1:${jn.bastion.port}`,
        targetUrl(`${remote}/in.bin`),
        path.join(local, 'out.bin'),
      ],
      {},
      onlyTarget,
    );
    assert.equal(r.code, 4, describeRun(r));
    const fatal = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as {
      type?: string;
      code?: string;
      message?: string;
    };
    assert.equal(fatal.type, 'error', describeRun(r));
    assert.equal(fatal.code, 'HOSTKEY_UNKNOWN');
    assert.match(
      fatal.message ?? '',
      new RegExp(
        `^jump host 127\\.0\\.0\\.1:${jn.bastion.port}: The authenticity of host '\\[127\\.0\\.0\\.1\\]:${jn.bastion.port}'`,
      ),
    );
    assert.equal(
      fs.readFileSync(onlyTarget, 'utf8'),
      `${jn.target.knownHostsLine(jn.target.port)}\n`,
      'nothing was saved',
    );
    assert.ok(!fs.existsSync(path.join(local, 'out.bin')));
  });

  test('a login the jump host refuses names the hop (exit 3)', async () => {
    const { local, remote } = freshCase();
    const r = await run([
      'get',
      ...base,
      '-i',
      jn.target.clientKeyPath,
      '-J',
      `nobody@127.0.0.1:${jn.bastion.port}`,
      targetUrl(`${remote}/x`),
      path.join(local, 'x'),
    ]);
    assert.equal(r.code, 3, describeRun(r));
    assert.match(
      r.stderr,
      new RegExp(`jump host 127\\.0\\.0\\.1:${jn.bastion.port}: authentication failed for nobody`),
    );
    // What the hop's login tried and what the jump host accepts (#23).
    assert.match(
      r.stderr,
      /authentication failed for nobody: (every method offered was refused \(tried: .+\)|nothing was offered); the server accepts: publickey/,
    );
  });
});

describe('a site with a jump host (the service)', { skip }, () => {
  test("the jump host's unknown key is asked in the dialog as the jump host's; the pool's connections upload through it", async (t) => {
    const { remote, file } = freshCase();
    const home = path.join(work, `svc-${caseNo}`);
    fs.mkdirSync(home);
    const kh = path.join(home, 'known_hosts');
    fs.writeFileSync(kh, `${jn.target.knownHostsLine(jn.target.port)}\n`);
    // The jump host logs in with HOME's default key, as ssh -J does; no ssh config is read.
    const service = new SluiceService({
      home,
      secrets: new MemorySecretStore(),
      knownHostsPath: kh,
      env: { HOME: jumpHome },
      sshConfig: 'none',
      readyTimeoutMs: 30_000,
    });
    t.after(() => service.close());
    const next = <E extends EventName>(name: E, pred: (p: EventPayloads[E]) => boolean = () => true) =>
      new Promise<EventPayloads[E]>((resolve) => {
        const off = service.subscribe((n, p) => {
          if ((n as string) === name && pred(p as unknown as EventPayloads[E])) {
            off();
            resolve(p as unknown as EventPayloads[E]);
          }
        });
      });
    const saved = await service.invoke('sites.save', {
      site: {
        name: 'behind',
        folder: '',
        host: '127.0.0.1',
        port: jn.target.port,
        user: jn.target.user,
        authMethod: 'key',
        keyPath: jn.target.clientKeyPath,
        connections: 2,
        channels: 2,
        jumpHost: `${jn.bastion.user}@127.0.0.1:${jn.bastion.port}`,
      },
    });
    assert.ok(saved.ok, JSON.stringify(saved));
    const before = jn.bridged();
    const prompt = next('hostKey.prompt');
    const connecting = service.invoke('session.connect', { siteId: saved.value.id });
    const p = await prompt;
    assert.deepEqual([p.kind, p.host, p.port, p.jumpHost], ['unknown', '127.0.0.1', jn.bastion.port, true]);
    assert.ok((await service.invoke('hostKey.answer', { promptId: p.promptId, answer: 'accept-save' })).ok);
    const status = await connecting;
    assert.ok(status.ok && status.value.state === 'connected', JSON.stringify(status));
    assert.match(
      fs.readFileSync(kh, 'utf8'),
      new RegExp(`^\\[127\\.0\\.0\\.1\\]:${jn.bastion.port} `, 'm'),
      "the jump host's key was saved",
    );
    const done = next('queue.delta', () => service.jobs().some((j) => j.state === 'done'));
    const up = await service.invoke('queue.enqueue', {
      siteId: saved.value.id,
      direction: 'upload',
      sources: [file],
      dest: remote,
    });
    assert.ok(up.ok, JSON.stringify(up));
    await done;
    assert.equal(await sha256File(path.join(remote, 'data.bin')), await sha256File(file));
    assert.equal(jn.bridged() - before, 2, "both connections of the site's pool went through the jump host");

    // Connected again, the jump host's saved key is trusted, and dated under the jump host, not the target.
    const bastionName = `[127.0.0.1]:${jn.bastion.port}`;
    const seenOf = async () => {
      const list = await service.invoke('knownHosts.list', undefined);
      assert.ok(list.ok, JSON.stringify(list));
      return list.value.entries.find((e) => e.hosts === bastionName);
    };
    const first = await seenOf();
    assert.equal(typeof first?.lastSeen, 'number', 'the saved jump host key has dates');
    assert.ok((await service.invoke('session.disconnect', { siteId: saved.value.id })).ok);
    const again = await service.invoke('session.connect', { siteId: saved.value.id });
    assert.ok(again.ok && again.value.state === 'connected', JSON.stringify(again));
    const second = await seenOf();
    assert.ok(
      (second?.lastSeen ?? 0) > (first?.lastSeen ?? Infinity),
      `jump host last seen moved on: ${first?.lastSeen} -> ${second?.lastSeen}`,
    );
  });

  test('"Test connection" of unsaved settings with a jump host: the hop\'s key asked as the jump host\'s, the target reached through it', async (t) => {
    const home = path.join(work, `svc-test-${++caseNo}`);
    fs.mkdirSync(home);
    const kh = path.join(home, 'known_hosts');
    fs.writeFileSync(kh, `${jn.target.knownHostsLine(jn.target.port)}\n`);
    const service = new SluiceService({
      home,
      secrets: new MemorySecretStore(),
      knownHostsPath: kh,
      env: { HOME: jumpHome },
      sshConfig: 'none',
      readyTimeoutMs: 30_000,
    });
    t.after(() => service.close());
    const prompt = new Promise<EventPayloads['hostKey.prompt']>((resolve) => {
      const off = service.subscribe((n, p) => {
        if (n === 'hostKey.prompt') {
          off();
          resolve(p as EventPayloads['hostKey.prompt']);
        }
      });
    });
    const site = {
      name: 'behind',
      folder: '',
      host: '127.0.0.1',
      port: jn.target.port,
      user: jn.target.user,
      authMethod: 'key' as const,
      keyPath: jn.target.clientKeyPath,
      ciphers: ['aes256-ctr'],
    };
    const before = jn.bridged();
    const testing = service.invoke('sites.test', {
      site: { ...site, jumpHost: `${jn.bastion.user}@127.0.0.1:${jn.bastion.port}` },
    });
    const p = await prompt;
    assert.deepEqual([p.kind, p.port, p.jumpHost], ['unknown', jn.bastion.port, true]);
    assert.ok((await service.invoke('hostKey.answer', { promptId: p.promptId, answer: 'accept-once' })).ok);
    const res = await testing;
    assert.ok(res.ok && res.value.ok, JSON.stringify(res));
    assert.equal(res.value.cipher, 'aes256-ctr', "the target negotiated the form's cipher");
    assert.match(res.value.serverVersion, /^SSH-2\.0-OpenSSH_/);
    assert.equal(res.value.home, fs.realpathSync(jn.target.root));
    assert.equal(jn.bridged() - before, 1, 'one connection, through the jump host');
    // Without the jump host the target cannot be reached: the test says so at the connect step.
    const direct = await service.invoke('sites.test', { site: { ...site, jumpHost: 'none' } });
    assert.ok(direct.ok && !direct.value.ok, JSON.stringify(direct));
    assert.equal(direct.value.step, 'connect');
  });
});
