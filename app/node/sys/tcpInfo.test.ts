import test from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import { parseSsInfo, readTcpInfo } from './tcpInfo';
import { sysPaths } from './testPaths';

/** A loopback TCP pair whose server end reads and discards everything. */
async function loopbackPair(): Promise<{ client: net.Socket; close(): void }> {
  const server = net.createServer((s) => s.resume());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  await once(client, 'connect');
  return {
    client,
    close: () => {
      client.destroy();
      server.close();
    },
  };
}

/** Writes `bytes` and waits until the kernel has handed them on (the write callback). */
async function send(socket: net.Socket, bytes: number): Promise<void> {
  await new Promise<void>((resolve, reject) =>
    socket.write(Buffer.alloc(bytes, 7), (e) => (e ? reject(e) : resolve())),
  );
}

const ssHere =
  process.platform === 'linux' && ['/usr/bin/ss', '/bin/ss', '/usr/sbin/ss', '/sbin/ss'].some((p) => fs.existsSync(p));

for (const p of sysPaths()) {
  const skip =
    p.skip ?? (p.name === 'fallback' && !ssHere ? 'no `ss` (iproute2) here: the fallback reads nothing' : undefined);
  if (skip) process.stdout.write(`# tcpInfo ${p.name} skipped: ${skip}\n`);
  test(`tcpInfo (${p.name}): a real loopback socket shows rtt > 0 and bytes_acked growing`, { skip }, () =>
    p.run(async () => {
      const pair = await loopbackPair();
      try {
        await send(pair.client, 64 * 1024);
        // acknowledgements follow the data by at most an RTT: polled, not slept
        let first = await readTcpInfo(pair.client);
        for (let i = 0; i < 100 && (first?.bytesAcked ?? 0) < 64 * 1024; i++) {
          await new Promise((r) => setImmediate(r));
          first = await readTcpInfo(pair.client);
        }
        assert.ok(first, 'a sample');
        assert.equal(first.source, p.name === 'addon' ? 'native' : 'ss');
        assert.ok(first.rttUs > 0, `rtt ${first.rttUs} µs`);
        assert.ok(first.sndMss > 0 && first.sndCwnd > 0, `mss ${first.sndMss}, cwnd ${first.sndCwnd}`);
        assert.ok((first.bytesAcked ?? 0) >= 64 * 1024, `bytes_acked ${first.bytesAcked}`);
        await send(pair.client, 4 * 1024 * 1024);
        let second = await readTcpInfo(pair.client);
        for (let i = 0; i < 100 && (second?.bytesAcked ?? 0) < (first.bytesAcked ?? 0) + 4 * 1024 * 1024; i++) {
          await new Promise((r) => setImmediate(r));
          second = await readTcpInfo(pair.client);
        }
        assert.ok(
          second && (second.bytesAcked ?? 0) >= (first.bytesAcked ?? 0) + 4 * 1024 * 1024,
          `bytes_acked grew from ${first.bytesAcked} to ${second?.bytesAcked}`,
        );
        assert.ok(
          second.busyTimeUs !== undefined && second.deliveryRateBps !== undefined,
          'busy time and delivery rate (Linux ≥ 4.10)',
        );
      } finally {
        pair.close();
      }
    }),
  );
}

test(
  'tcpInfo (fallback): `ss` runs while the thread goes on (the event loop turns before the sample arrives)',
  {
    skip: ssHere ? undefined : 'no `ss` (iproute2) here',
  },
  () =>
    sysPaths()[1].run(async () => {
      const pair = await loopbackPair();
      try {
        let turns = 0;
        let done = false;
        const spin = (): void => {
          if (!done) {
            turns++;
            setImmediate(spin);
          }
        };
        setImmediate(spin);
        const sample = await readTcpInfo(pair.client);
        done = true;
        assert.ok(sample, 'a sample from ss');
        // a synchronous execFileSync held the thread for the whole child process: no turn could run before it returned
        assert.ok(turns > 0, `${turns} event-loop turns while ss ran`);
      } finally {
        pair.close();
      }
    }),
);

test('tcpInfo: a socket that is closed reads undefined, not a throw', async () => {
  const pair = await loopbackPair();
  pair.close();
  assert.equal(await readTcpInfo(pair.client), undefined);
});

test('parseSsInfo: an iproute2 6.1 line in µs and bytes/s', () => {
  const line =
    '\t bbr wscale:10,10 rto:204 rtt:0.116/0.088 ato:40 mss:65483 pmtu:65535 rcvmss:65483 advmss:65483 cwnd:18 ' +
    'bytes_sent:10000000 bytes_acked:10000001 bytes_received:10000000 bbr:(bw:95247971608bps,mrtt:0.006,pacing_gain:1.25,cwnd_gain:2) ' +
    'send 81289241379bps delivery_rate 95248000000bps busy:28ms rwnd_limited:28ms(100.0%) retrans:0/3 rcv_rtt:0.02 minrtt:0.006';
  assert.deepEqual(parseSsInfo(line), {
    rttUs: 116,
    rttVarUs: 88,
    sndCwnd: 18,
    sndMss: 65483,
    totalRetrans: 3,
    source: 'ss',
    minRttUs: 6,
    deliveryRateBps: 11906000000,
    busyTimeUs: 28000,
    rwndLimitedUs: 28000,
    bytesAcked: 10000001,
    bytesReceived: 10000000,
  });
  assert.equal(parseSsInfo('ESTAB 0 0 127.0.0.1:1 127.0.0.1:2'), undefined);
});
