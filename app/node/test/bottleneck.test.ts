/**
 * The bottleneck verdicts (issue #16) against real causes: each test makes one thing the limit and asserts that the
 * CLI's `--json` progress events name it (transfer verdict and each connection's) and, once, that `-v` prints it.
 * link: a Toxiproxy bandwidth cap, and Toxiproxy latency with 2 requests in flight (RTT-bound); server: a scripted ssh2
 * server serving one READ per 20 ms; client-cpu: the worker burning CPU per reply (SLUICE_TEST_BURN_MS); local-disk: a
 * local disk writing one chunk per 20 ms (SLUICE_TEST_SLOW_WRITES_MS); window: a scripted server with a 64 KiB receive
 * window behind 15 ms of latency.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startProxyInFront, type Toxic } from '../../../e2e/fixtures/toxiproxy';
import {
  baseFlags,
  runCli,
  startSshd,
  startSsh2SftpServer,
  toxiproxyAvailable,
  withTrustedServer,
  writeRandomFile,
  type CliResult,
  type ServerLike,
} from './helpers';

const MiB = 1024 * 1024;
const NO_TOXIPROXY = toxiproxyAvailable()
  ? false
  : 'toxiproxy-server is not installed (/usr/local/bin/toxiproxy-server)';

interface Verdicts {
  /** The transfer verdict of each progress event, in order. */
  transfer: string[];
  /** Each connection's verdicts, over all progress events. */
  connections: string[];
}

function verdictsOf(r: CliResult): Verdicts {
  const transfer: string[] = [];
  const connections: string[] = [];
  for (const e of r.events) {
    if (e.type !== 'progress') continue;
    if (e.bottleneck) transfer.push(e.bottleneck.verdict);
    for (const c of e.connections) if (c.bottleneck) connections.push(c.bottleneck.verdict);
  }
  return { transfer, connections };
}

/** The verdict shown most often, `unknown` not counted (the first second measures nothing). */
function dominant(vs: string[]): string | undefined {
  const n = new Map<string, number>();
  for (const v of vs) if (v !== 'unknown') n.set(v, (n.get(v) ?? 0) + 1);
  return [...n].sort((a, b) => b[1] - a[1])[0]?.[0];
}

function assertVerdict(r: CliResult, expected: string): void {
  assert.equal(r.code, 0, `${r.stderr}`);
  const v = verdictsOf(r);
  const details = r.events.flatMap((e) =>
    e.type === 'progress' && e.bottleneck ? [`${e.bottleneck.verdict}: ${e.bottleneck.detail}`] : [],
  );
  const why = `transfer verdicts: ${v.transfer.join(' ')}\n${[...new Set(details)].join('\n')}\n${r.stderr.slice(-3000)}`;
  assert.equal(dominant(v.transfer), expected, why);
  assert.equal(dominant(v.connections), expected, `connection verdicts: ${v.connections.join(' ')}`);
}

/** A known_hosts trusting `server` at `port` (a proxy in front), in `dir`. */
function knownHostsAt(dir: string, server: ServerLike, port: number): string {
  const p = path.join(dir, `known_hosts_${port}`);
  fs.writeFileSync(p, `${server.knownHostsLine(port)}\n`);
  return p;
}

/**
 * `sluice get --json` of `remote` into `dir`, one connection with one channel so the verdict is that connection's;
 * SLUICE_DEBUG_BOTTLENECK=1 puts each interval's signals on stderr, shown when an assertion fails.
 */
function get(
  port: number,
  user: string,
  key: string,
  knownHosts: string,
  remote: string,
  dir: string,
  env?: Record<string, string>,
  extra: string[] = [],
): Promise<CliResult> {
  return runCli(
    [
      'get',
      ...baseFlags({ clientKeyPath: key }),
      '--json',
      '--connections',
      '1',
      '--channels',
      '1',
      ...extra,
      `sftp://${user}@127.0.0.1:${port}${remote}`,
      path.join(dir, 'out.bin'),
    ],
    { knownHosts, env: { SLUICE_DEBUG_BOTTLENECK: '1', ...env }, timeoutMs: 90_000 },
  );
}

test('client-cpu: the worker burning CPU on every reply', async () => {
  await withTrustedServer(
    () => startSshd(),
    'sluice-bneck-cpu-',
    async (t) => {
      const src = path.join(t.server.root, 'cpu.bin');
      writeRandomFile(src, 40 * MiB);
      const r = await get(t.server.port, t.server.user, t.server.clientKeyPath, t.knownHosts, src, t.dir, {
        SLUICE_TEST_BURN_MS: '20',
      });
      assertVerdict(r, 'client-cpu');
    },
  );
});

test('local-disk: a local disk writing one chunk per 20 ms; -v prints "limited by: the local disk"', async () => {
  await withTrustedServer(
    () => startSshd(),
    'sluice-bneck-disk-',
    async (t) => {
      const src = path.join(t.server.root, 'disk.bin');
      writeRandomFile(src, 40 * MiB);
      const env = { SLUICE_TEST_SLOW_WRITES_MS: '20' };
      assertVerdict(
        await get(t.server.port, t.server.user, t.server.clientKeyPath, t.knownHosts, src, t.dir, env),
        'local-disk',
      );
      const v = await runCli(
        [
          'get',
          ...baseFlags(t.server),
          '-v',
          '--connections',
          '1',
          '--channels',
          '1',
          `sftp://${t.server.user}@127.0.0.1:${t.server.port}${src}`,
          path.join(t.dir, 'out2.bin'),
        ],
        { knownHosts: t.knownHosts, env, timeoutMs: 90_000 },
      );
      assert.equal(v.code, 0, v.stderr);
      assert.match(
        v.stderr,
        /^sluice: limited by: the local disk \(requests spend \d+% of their time on local reads and writes\)$/m,
        v.stderr,
      );
    },
  );
});

test('server: a server answering one READ per 20 ms while the link idles', async () => {
  await withTrustedServer(
    () => startSsh2SftpServer({ overrides: { serialIoMs: 20 } }),
    'sluice-bneck-srv-',
    async (t) => {
      const src = path.join(t.server.root, 'slow.bin');
      writeRandomFile(src, 40 * MiB);
      assertVerdict(
        await get(t.server.port, t.server.user, t.server.clientKeyPath, t.knownHosts, src, t.dir),
        'server',
      );
    },
  );
});

test('link: a 4 MB/s bandwidth cap (Toxiproxy) on the download', { skip: NO_TOXIPROXY }, async () => {
  await withTrustedServer(
    () => startSshd(),
    'sluice-bneck-link-',
    async (t) => {
      const cap: Toxic = { type: 'bandwidth', stream: 'downstream', attributes: { rate: 4096 } };
      const { toxi, port } = await startProxyInFront(t.server.port, [cap]);
      try {
        const src = path.join(t.server.root, 'capped.bin');
        writeRandomFile(src, 14 * MiB);
        assertVerdict(
          await get(port, t.server.user, t.server.clientKeyPath, knownHostsAt(t.dir, t.server, port), src, t.dir),
          'link',
        );
      } finally {
        await toxi.stop();
      }
    },
  );
});

test(
  'link, RTT-bound: 2 requests in flight over 25 ms each way (Toxiproxy latency)',
  { skip: NO_TOXIPROXY },
  async () => {
    await withTrustedServer(
      () => startSshd(),
      'sluice-bneck-rtt-',
      async (t) => {
        const delay = (stream: 'upstream' | 'downstream'): Toxic => ({
          type: 'latency',
          stream,
          attributes: { latency: 25 },
        });
        const { toxi, port } = await startProxyInFront(t.server.port, [delay('upstream'), delay('downstream')]);
        try {
          const src = path.join(t.server.root, 'far.bin');
          writeRandomFile(src, 24 * MiB);
          const r = await get(
            port,
            t.server.user,
            t.server.clientKeyPath,
            knownHostsAt(t.dir, t.server, port),
            src,
            t.dir,
            undefined,
            ['--requests', '2'],
          );
          assertVerdict(r, 'link');
          const details = r.events.flatMap((e) =>
            e.type === 'progress' && e.bottleneck?.verdict === 'link' ? [e.bottleneck.detail] : [],
          );
          assert.ok(
            details.some((d) => /^RTT-bound: all 2 requests in flight/.test(d)),
            details.join('\n'),
          );
        } finally {
          await toxi.stop();
        }
      },
    );
  },
);

test('window: uploads to a server with a 64 KiB receive window, 15 ms each way', { skip: NO_TOXIPROXY }, async () => {
  await withTrustedServer(
    () => startSsh2SftpServer({ overrides: { receiveWindow: 64 * 1024 } }),
    'sluice-bneck-win-',
    async (t) => {
      const delay = (stream: 'upstream' | 'downstream'): Toxic => ({
        type: 'latency',
        stream,
        attributes: { latency: 15 },
      });
      const { toxi, port } = await startProxyInFront(t.server.port, [delay('upstream'), delay('downstream')]);
      try {
        const src = path.join(t.dir, 'up.bin');
        writeRandomFile(src, 8 * MiB);
        const r = await runCli(
          [
            'put',
            ...baseFlags(t.server),
            '--json',
            '--connections',
            '1',
            '--channels',
            '1',
            src,
            `sftp://${t.server.user}@127.0.0.1:${port}${path.join(t.server.root, 'up.bin')}`,
          ],
          { knownHosts: knownHostsAt(t.dir, t.server, port), timeoutMs: 90_000 },
        );
        assertVerdict(r, 'window');
      } finally {
        await toxi.stop();
      }
    },
  );
});
