/**
 * Names of 234–255 bytes through the real CLI against a private OpenSSH sshd (#24 item 7): the temporary name
 * `.NAME.sluice-XXXXXXXX.part` adds 22 bytes, so such names failed (get: ENAMETOOLONG on our own .part; put: OpenSSH's
 * SSH_FX_BAD_MESSAGE, shown as "malformed request"). Both ways must work, leave no temporary file, and a name the
 * server's file system cannot hold must be reported as too long, naming the user's path.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  baseFlags,
  describeRun,
  runCli,
  sha256File,
  startTestServer,
  tempFilesUnder,
  trustedServerHooks,
  urlOf,
  writeRandomFile,
  type SshServer,
} from './helpers';

let server: SshServer;
let local: string;
let knownHosts: string;
trustedServerHooks(startTestServer, 'sluice-long-', (t) => {
  ({ server, dir: local, knownHosts } = t);
});

/** A name of exactly `bytes` bytes of UTF-8, starting with `lead` and filled with `fill` (1 or 3 bytes each). */
function nameOf(bytes: number, lead: string, fill: string): string {
  let name = lead;
  while (Buffer.byteLength(name + fill) <= bytes - 4) name += fill;
  name += 'x'.repeat(bytes - 4 - Buffer.byteLength(name));
  return `${name}.bin`;
}

describe('names of 234–255 bytes (#24 item 7)', () => {
  const names = [nameOf(234, 'a', 'n'), nameOf(255, 'b', 'n'), nameOf(255, 'c', 'ä'), nameOf(254, 'd', '名')];

  test('put then get of names up to 255 bytes, small and segmented, nothing left', { timeout: 120_000 }, async () => {
    for (const [i, name] of names.entries()) {
      assert.ok(Buffer.byteLength(name) >= 234 && Buffer.byteLength(name) <= 255, name);
      const dir = path.join(local, `case${i}`);
      fs.mkdirSync(path.join(dir, 'back'), { recursive: true });
      const src = path.join(dir, name);
      // One small file and one big enough to be sent in several segments.
      writeRandomFile(src, i % 2 === 0 ? 1000 : 9 * 1024 * 1024);
      const remote = path.join(server.root, name);
      const up = await runCli(['put', '--json', ...baseFlags(server), src, urlOf(server, remote)], { knownHosts });
      assert.equal(up.code, 0, `put of a ${Buffer.byteLength(name)}-byte name\n${describeRun(up)}`);
      assert.equal(await sha256File(remote), await sha256File(src));
      const back = path.join(dir, 'back', name);
      const down = await runCli(['get', '--json', ...baseFlags(server), urlOf(server, remote), back], { knownHosts });
      assert.equal(down.code, 0, `get of a ${Buffer.byteLength(name)}-byte name\n${describeRun(down)}`);
      assert.equal(await sha256File(back), await sha256File(src));
      assert.deepEqual(tempFilesUnder(dir), [], 'temporary files left locally');
      assert.deepEqual(tempFilesUnder(server.root), [], 'temporary files left on the server');
      fs.rmSync(remote);
    }
  });

  test('a name too long for the server says so and names the user\'s path, not only "malformed request"', async (t) => {
    if (server.kind !== 'openssh') return t.skip('the ssh2 fallback server does not answer ENAMETOOLONG as OpenSSH');
    const src = path.join(local, 'short.bin');
    writeRandomFile(src, 100);
    const tooLong = path.join(server.root, nameOf(260, 'e', 'n'));
    const up = await runCli(['put', '--json', ...baseFlags(server), src, urlOf(server, tooLong)], { knownHosts });
    assert.equal(up.code, 1, describeRun(up));
    // The target is STATed first (is it a folder?): that request's error ends the run.
    const error = (up.events as Array<Record<string, unknown>>).find((e) => e.type === 'error');
    const message = String(error?.message ?? (up.report?.failed ?? [])[0]?.message ?? '');
    assert.ok(message.includes(tooLong), `the user's path is named: ${message}\n${describeRun(up)}`);
    assert.match(message, /too long: a name of 260 bytes/, message);
    assert.doesNotMatch(message, /malformed/, message);
    assert.deepEqual(tempFilesUnder(server.root), [], 'temporary files left on the server');
  });
});
