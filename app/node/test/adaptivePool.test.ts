/**
 * The adaptive pool against a scripted ssh2 server whose channels each serve one READ per 20 ms (throughput grows
 * with channels) and that refuses a connection's 4th session (OpenSSH's MaxSessions): with no --connections or
 * --channels, a big get grows past its plan (1 × 1 on loopback), learns the session limit without an error, and
 * says each step under -v; with --channels given, nothing adapts. The figures are in docs/benchmarks.md; this
 * asserts the channel counts, never timings.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { baseFlags, runCli, sha256File, startSsh2SftpServer, withTrustedServer, writeRandomFile } from './helpers';

const MiB = 1024 * 1024;

/** Lanes of the last step kept, from `-v` ("adaptive pool: N lanes … kept"); 1 when none was kept. */
function lanesKept(stderr: string): number {
  const kept = [...stderr.matchAll(/^sluice: adaptive pool: (\d+) lanes? [\d.]+ MB\/s against .*: kept$/gm)];
  return kept.length ? Number(kept[kept.length - 1][1]) : 1;
}

test('slow channels: the pool grows beyond its plan and learns the session limit; --channels stays fixed', async () => {
  await withTrustedServer(
    () => startSsh2SftpServer({ overrides: { serialIoMs: 20 }, maxSessions: 3 }),
    'sluice-adapt-',
    async (t) => {
      const src = path.join(t.server.root, 'slow.bin');
      writeRandomFile(src, 128 * MiB);
      const data = path.join(t.dir, 'data');
      const get = (out: string, extra: string[]) =>
        runCli(
          [
            'get',
            ...baseFlags(t.server),
            '-v',
            ...extra,
            `sftp://${t.server.user}@127.0.0.1:${t.server.port}${src}`,
            out,
          ],
          { knownHosts: t.knownHosts, env: { SLUICE_HOME: data }, timeoutMs: 120_000 },
        );
      const out = path.join(t.dir, 'out.bin');
      const r = await get(out, []);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /pool planned: 1 connection × 1 channel/);
      assert.equal(await sha256File(out), await sha256File(src));
      const steps = r.stderr.split('\n').filter((l) => l.startsWith('sluice: adaptive pool:'));
      assert.match(steps[0] ?? '', /limited by the server \(replies take .*\) at [\d.]+ MB\/s: 1 lane → 2$/, r.stderr);
      assert.ok(lanesKept(r.stderr) > 1, `no step was kept:\n${steps.join('\n')}`);
      // The 4th channel was refused: the limit, said once under -v, remembered, and never an error.
      assert.match(r.stderr, /refused SFTP channel 4 on connection 1: its session limit is 3 per connection/);
      assert.doesNotMatch(r.stderr, /error|failed/i);
      const limits = JSON.parse(fs.readFileSync(path.join(data, 'session-limits.json'), 'utf8'));
      assert.deepEqual(limits, { [`127.0.0.1:${t.server.port}`]: 3 });

      const fixed = await get(path.join(t.dir, 'fixed.bin'), ['--channels', '2']);
      assert.equal(fixed.code, 0, fixed.stderr);
      assert.doesNotMatch(fixed.stderr, /adaptive pool/);
    },
  );
});
