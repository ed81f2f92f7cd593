/**
 * PuTTY keys through the real CLI against a private OpenSSH sshd (#24 item 12): a PPK version 2 RSA key (ssh2's own
 * fixture) given with -i logs in and downloads; a PPK version 3 key is refused before connecting, exit 3, with the
 * puttygen command that converts it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { utils } from 'ssh2';
import {
  describeRun,
  runCli,
  sha256File,
  startTestServer,
  trustedServerHooks,
  urlOf,
  writeRandomFile,
  type SshServer,
} from './helpers';

let server: SshServer;
let local: string;
let knownHosts: string;
trustedServerHooks(startTestServer, 'sluice-ppk-', (t) => {
  ({ server, dir: local, knownHosts } = t);
});

const PPK_V2_RSA = require.resolve('ssh2/test/fixtures/id_rsa.ppk');

describe('PuTTY keys with -i', () => {
  test('a PPK v2 RSA key logs in and downloads', async (t) => {
    if (server.kind !== 'openssh') return t.skip('needs OpenSSH (the ssh2 fallback authorizes only its own key)');
    const ppk = path.join(local, 'putty.ppk');
    fs.copyFileSync(PPK_V2_RSA, ppk);
    const parsed = utils.parseKey(fs.readFileSync(ppk));
    assert.ok(!(parsed instanceof Error), String(parsed));
    // The fixture's sshd reads authorized_keys beside its root folder (e2e/fixtures/sshd.ts).
    fs.appendFileSync(
      path.join(path.dirname(server.root), 'authorized_keys'),
      `\nssh-rsa ${parsed.getPublicSSH().toString('base64')} putty\n`,
    );
    const remote = path.join(server.root, 'via-ppk.bin');
    writeRandomFile(remote, 5000);
    const back = path.join(local, 'via-ppk.bin');
    const r = await runCli(['get', '--batch', '--no-agent', '-i', ppk, urlOf(server, remote), back], { knownHosts });
    assert.equal(r.code, 0, describeRun(r));
    assert.equal(await sha256File(back), await sha256File(remote));
  });

  test('a PPK v3 key is refused with the puttygen command, exit 3, before any connection', async () => {
    const ppk = path.join(local, 'v3.ppk');
    fs.writeFileSync(
      ppk,
      'PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: k\nPublic-Lines: 1\nAAAA\n' +
        'Private-Lines: 1\nAAAA\nPrivate-MAC: 00\n',
    );
    const r = await runCli(['get', '--batch', '--no-agent', '-i', ppk, urlOf(server, server.root + '/x'), local], {
      knownHosts,
    });
    assert.equal(r.code, 3, describeRun(r));
    assert.ok(r.stderr.includes(`puttygen ${ppk} -O private-openssh -o ${path.join(local, 'v3')}`), r.stderr);
  });
});
