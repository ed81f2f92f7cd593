/**
 * `--verify sha256` on a stock OpenSSH behind a slow link: the auto-sized pool opens 10 SFTP channels there, sshd's
 * MaxSessions is 10, so the exec channel for `sha256sum` needs a session left free. The CLI asks the pool for one
 * fewer channel when hashing was asked for, and the server's own hash is reached.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  baseFlags,
  describeRun,
  runCli,
  sha256File,
  toxiproxyAvailable,
  urlOf,
  withProxiedSshd,
  writeRandomFile,
} from './helpers';

const MiB = 1024 * 1024;

test(
  'behind 10 ms of RTT, --verify sha256 reaches sha256-remote on a stock sshd (MaxSessions 10)',
  { timeout: 120_000 },
  async (t) => {
    if (!toxiproxyAvailable()) {
      t.skip('toxiproxy-server not installed: needs latency for the auto-sized pool');
      return;
    }
    const toxics = (['upstream', 'downstream'] as const).map((stream) => ({
      type: 'latency' as const,
      stream,
      attributes: { latency: 5 },
    }));
    await withProxiedSshd({ tempPrefix: 'sluice-verify-rtt-', toxics }, async ({ srv, proxyPort, dir }) => {
      const kh = path.join(dir, 'known_hosts');
      fs.writeFileSync(kh, `${srv.knownHostsLine(proxyPort)}\n`);
      const src = path.join(dir, 'v.bin');
      writeRandomFile(src, 3 * MiB + 1);
      const r = await runCli(
        [
          'put',
          ...baseFlags(srv),
          '-v',
          '--json',
          '--verify',
          'sha256',
          src,
          urlOf({ ...srv, port: proxyPort }, `${srv.root}/`),
        ],
        { knownHosts: kh },
      );
      assert.equal(r.code, 0, describeRun(r));
      assert.equal(r.report?.verify, 'sha256-remote', describeRun(r));
      assert.match(r.stderr + r.stdout, /× 9 channels/, 'one session of ten left for the exec channel');
      assert.equal(await sha256File(path.join(srv.root, 'v.bin')), await sha256File(src));
    });
  },
);
