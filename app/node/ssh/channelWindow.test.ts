import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client, type SFTPWrapper } from 'ssh2';
import { startSshd } from '../../../e2e/fixtures/sshd';
import { openTrusting, withTrustedServer } from '../test/helpers';
import { AUTO_TUNE, SSH2_DEFAULT_WINDOW, WINDOW_TUNE, channelWindowFor } from './connectionPool';
import { parseWindow } from '../cli/optionParsers';
import { runTransfer } from '../transfer/run';

const MiB = 1024 * 1024;

test('channel window follows the RTT: 2 MiB below the auto-tune threshold, the bandwidth-delay product above, capped', () => {
  assert.equal(channelWindowFor(0.2), SSH2_DEFAULT_WINDOW);
  assert.equal(channelWindowFor(AUTO_TUNE.rttMs - 0.01), SSH2_DEFAULT_WINDOW);
  assert.equal(channelWindowFor(Number.NaN), SSH2_DEFAULT_WINDOW);
  const at50 = channelWindowFor(50);
  assert.ok(at50 > SSH2_DEFAULT_WINDOW && at50 < WINDOW_TUNE.maxBytes, `${at50}`);
  assert.equal(at50 % 65536, 0);
  assert.ok(at50 >= 0.05 * WINDOW_TUNE.bytesPerSecond);
  assert.equal(channelWindowFor(2000), WINDOW_TUNE.maxBytes);
  assert.ok(channelWindowFor(80) > channelWindowFor(50));
});

test('--window accepts 2M..256M and refuses sizes outside', () => {
  assert.equal(parseWindow('8M'), 8 * MiB);
  assert.equal(parseWindow('2MiB'), 2 * MiB);
  assert.throws(() => parseWindow('1M'), /must be from 2M to 256M/);
  assert.throws(() => parseWindow('1G'), /must be from 2M to 256M/);
});

/**
 * Connects ssh2 directly to `port`, recording the amounts of every outbound SSH_MSG_CHANNEL_WINDOW_ADJUST per channel.
 */
function connectRecording(
  srv: { port: number; user: string; clientKeyPath: string },
  adjusts: Map<number, number[]>,
): Promise<Client> {
  const c = new Client();
  return new Promise((resolve, reject) => {
    c.once('ready', () => resolve(c));
    c.once('error', reject);
    c.connect({
      host: '127.0.0.1',
      port: srv.port,
      username: srv.user,
      privateKey: fs.readFileSync(srv.clientKeyPath),
      hostVerifier: () => true,
      debug: (m: string) => {
        const x = /Sending CHANNEL_WINDOW_ADJUST \(r:(\d+), (\d+)\)/.exec(m);
        if (x) adjusts.set(Number(x[1]), [...(adjusts.get(Number(x[1])) ?? []), Number(x[2])]);
      },
    });
  });
}

function readAll(sftp: SFTPWrapper, p: string): Promise<Buffer> {
  return new Promise((resolve, reject) => sftp.readFile(p, (e, b) => (e ? reject(e) : resolve(b))));
}

test('patched ssh2 (patches/ssh2+*.patch) tops a channel up to incoming.maxWindow; other channels keep 2 MiB', async () => {
  const srv = await startSshd();
  try {
    const data = randomBytes(12 * MiB);
    fs.writeFileSync(path.join(srv.root, 'w.bin'), data);
    const adjusts = new Map<number, number[]>();
    const client = await connectRecording(srv, adjusts);
    try {
      const open = (): Promise<SFTPWrapper> =>
        new Promise((resolve, reject) => client.sftp((e, s) => (e ? reject(e) : resolve(s))));
      const wide = await open();
      const plain = await open();
      const chan = (s: SFTPWrapper) => s as unknown as { incoming: { maxWindow?: number }; outgoing: { id: number } };
      chan(wide).incoming.maxWindow = 8 * MiB;
      assert.ok((await readAll(wide, path.join(srv.root, 'w.bin'))).equals(data));
      assert.ok((await readAll(plain, path.join(srv.root, 'w.bin'))).equals(data));
      const wideAdjusts = adjusts.get(chan(wide).outgoing.id) ?? [];
      const plainAdjusts = adjusts.get(chan(plain).outgoing.id) ?? [];
      assert.ok(
        wideAdjusts.some((a) => a > SSH2_DEFAULT_WINDOW),
        `wide channel adjusts: ${wideAdjusts.join(', ')}`,
      );
      assert.ok(wideAdjusts.every((a) => a <= 8 * MiB));
      assert.ok(
        plainAdjusts.length > 0 && plainAdjusts.every((a) => a <= SSH2_DEFAULT_WINDOW),
        `plain channel adjusts: ${plainAdjusts.join(', ')}`,
      );
    } finally {
      client.end();
    }
  } finally {
    await srv.stop();
  }
});

test('a session applies the requested channel window and still moves identical bytes', async () => {
  await withTrustedServer(
    () => startSshd(),
    'sluice-window-',
    async ({ server: srv, dir }) => {
      const data = randomBytes(24 * MiB);
      fs.writeFileSync(path.join(srv.root, 'big.bin'), data);
      const open = (channelWindow?: number) => openTrusting(srv, dir, { connections: 2, channels: 2, channelWindow });
      const auto = await open();
      try {
        assert.equal(auto.channelWindow, channelWindowFor(auto.rttMs!));
      } finally {
        await auto.close();
      }
      const pool = await open(8 * MiB);
      try {
        assert.equal(pool.channelWindow, 8 * MiB);
        const report = await runTransfer(pool, {
          id: 'w',
          direction: 'get',
          sources: [path.join(srv.root, 'big.bin')],
          dest: dir,
          recursive: false,
        });
        assert.deepEqual(report.failed, []);
        assert.ok(fs.readFileSync(path.join(dir, 'big.bin')).equals(data));
      } finally {
        await pool.close();
      }
    },
  );
});
