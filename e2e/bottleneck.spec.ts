/**
 * The throughput graph names what limits the transfer (issue #16): an upload through a 4 MB/s Toxiproxy cap shows
 * "limited by: the network link" above the plot while it runs.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { sha256File, writeRandomFile } from './harness/files';
import { startProxyInFront, toxiproxyAvailable } from './fixtures/toxiproxy';
import { skipBecause } from './harness/skip';

test('the graph labels a bandwidth-capped upload "limited by: the network link"', async ({
  app,
  sshd,
  localDir,
  page,
}) => {
  skipBecause(!toxiproxyAvailable(), 'toxiproxy-server is not installed (/usr/local/bin/toxiproxy-server)');
  const { toxi, port } = await startProxyInFront(sshd.port, [
    { type: 'bandwidth', stream: 'upstream', attributes: { rate: 4096 } },
  ]);
  try {
    const remoteDir = path.join(sshd.root, 'capped');
    fs.mkdirSync(remoteDir, { recursive: true });
    const local = writeRandomFile(path.join(localDir, 'capped.bin'), 32 * 1024 * 1024);

    await app.open();
    await app.createSite({
      name: 'Capped',
      host: sshd.host,
      port,
      user: sshd.user,
      keyPath: sshd.clientKeyPath,
      localDir,
      remoteDir,
    });
    await app.startConnect('Capped');
    await expect(app.hostKeyDialog('unknown')).toBeVisible();
    await app.answerUnknownHostKey('Accept once');
    await app.waitForRemoteListing(remoteDir);

    await app.dragLocalToRemote('capped.bin');
    await app.waitForJobState('capped.bin', 'running');
    const label = page.locator('.graph .limited-by');
    await expect(label).toHaveAttribute('data-verdict', 'link', { timeout: 15_000 });
    await expect(label).toHaveText('limited by: the network link');
    await expect(label).toHaveAttribute('title', /bandwidth-bound|RTT-bound|retransmissions/);
    await app.screenshot('graph-limited-by-link');
    await app.waitForJobState('capped.bin', 'done', 90_000);
    expect(sha256File(path.join(remoteDir, 'capped.bin'))).toBe(sha256File(local));
  } finally {
    await toxi.stop();
  }
});
