/**
 * The smaller truths of #29.8, against the real engine and sshd: the throughput axis reads in round values; while a
 * lost session reconnects the status bar says "reconnecting" in amber and drops the cipher and server lines that no
 * longer hold, the site's icon turns amber, and the job waiting for the connection says why it waits. Each test
 * connects a fresh app and uploads steady.bin at 5 MiB/s.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { emptyDir, writeRandomFile } from './harness/files';
import { requireDist, startTestEngine } from './harness/engine';
import type { EngineFactory } from '../app/node/engine/engine';

const MiB = 1024 * 1024;

const reconnecting = test.extend({
  // eslint-disable-next-line no-empty-pattern
  engine: async ({}, use) => {
    const { openEngine } = requireDist<{ openEngine: EngineFactory }>('app/node/engine/engine.js');
    let opens = 0;
    const engine = await startTestEngine({
      // The first reconnect attempt fails, so the session stays "reconnecting" for a few seconds.
      engine: async (o) => {
        if (++opens === 2)
          throw Object.assign(new Error('connection refused (the spec fails the first attempt)'), {
            code: 'CONNECTION_LOST',
          });
        return openEngine(o);
      },
      reconnectPolicy: { tries: 4, baseDelayMs: 2500, maxDelayMs: 5000, totalDelayMs: 30_000 },
    });
    await use(engine);
    await engine.close();
  },
});

/**
 * A rate label with round digits: `0 B/s`, `250 KiB/s`, `1.0 MiB/s`, `2.5 MiB/s`, `1000 KiB/s` (not `95.4`, `977`,
 * `286`).
 */
const ROUND = /^(0 B|[1-9]\d?0*(\.[05])? (B|KiB|MiB|GiB))\/s$/;

reconnecting.beforeEach(async ({ app, sshd, engine, localDir }) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  const remoteDir = emptyDir(path.join(sshd.root, 'status-reconnect'));
  writeRandomFile(path.join(localDir, 'steady.bin'), 24 * MiB);
  await app.open();
  await app.createSite({
    name: 'Flaky',
    host: sshd.host,
    port: sshd.port,
    user: sshd.user,
    keyPath: sshd.clientKeyPath,
    localDir,
    remoteDir,
  });
  await app.startConnect('Flaky');
  await app.waitForRemoteListing(remoteDir);
  await app.statusBar.getByLabel('Speed limit').selectOption({ label: '5.0 MiB/s' });
  await app.localRow('steady.bin').click();
  await app.localPane.getByRole('button', { name: 'Local: upload' }).click();
  await app.waitForJobBytes('steady.bin', 2 * MiB);
});

reconnecting('the rate axis: round values only, up to at least the rate shown', async ({ app }) => {
  await expect(app.graph).toHaveAttribute('data-y-ticks', /MiB\/s/);
  const ticks = (await app.graph.getAttribute('data-y-ticks'))!.split(', ');
  for (const t of ticks) expect(t, `tick ${t} of ${ticks.join(', ')}`).toMatch(ROUND);
  await app.screenshot('graph-round-ticks');
});

reconnecting(
  '"reconnecting" in amber without stale cipher and server; the waiting job says why, and finishes once back',
  async ({ app, sshd }) => {
    const site = app.statusBar.getByLabel('Connected site');
    await expect(app.statusBar.getByLabel('Cipher')).not.toHaveText('—');
    expect(await sshd.killSessions()).toBeGreaterThan(0);
    await expect(site).toHaveText(/^Flaky \(reconnecting/);
    await expect(site).toHaveClass(/reconnecting/);
    await expect(site).toHaveCSS('color', 'rgb(178, 106, 0)');
    await expect(app.statusBar.getByLabel('Cipher')).toHaveText('—');
    await expect(app.statusBar.getByLabel('Server version')).toHaveText('—');
    await expect(app.siteItem('Flaky').locator('.icon')).toHaveClass(/conn-reconnecting/);
    await app.waitForJobState('steady.bin', 'queued');
    await expect(app.jobRow('steady.bin').getByRole('note', { name: 'steady.bin waits' })).toHaveText(
      /^waiting for the connection to Flaky \(reconnecting/,
    );
    await app.screenshot('status-reconnecting');

    await expect(site).toHaveText('Flaky (connected)', { timeout: 30_000 });
    await app.statusBar.getByLabel('Speed limit').selectOption({ label: 'unlimited' });
    await app.waitForJobState('steady.bin', 'done');
    await expect(app.jobRow('steady.bin').getByRole('note', { name: 'steady.bin waits' })).toHaveCount(0);
  },
);
