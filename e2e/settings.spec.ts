/**
 * Settings → Ciphers (issue #15): "Measure" times every AEAD cipher and CTR + MAC pair through the engine's packet
 * path, the dialog shows the table and the default order it now gives (stored in the data folder's cipher-speed.json),
 * and the next connection negotiates that order's first cipher.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';
import { requireDist } from './harness/engine';

interface Stored {
  measurements: Array<{ rows: Array<{ cipher: string; mac: string | null; perCoreMBps: number }> }>;
}

test('Measure shows every combination and the measured default order; a connection then uses its first cipher', async ({
  app,
  sshd,
  engine,
  localDir,
}) => {
  test.setTimeout(180_000);
  const { benchCombinations } = requireDist<{ benchCombinations: () => unknown[] }>('app/node/ssh/cipherBench.js');
  const { rankCiphers } = requireDist<{ rankCiphers: (rows: Stored['measurements'][0]['rows']) => string[] }>(
    'app/common/model/cipherRank.js',
  );
  await app.open();
  await app.page.getByRole('toolbar', { name: 'Main toolbar' }).getByRole('button', { name: 'Settings' }).click();
  const dialog = app.page.getByRole('dialog', { name: 'Settings' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByText('No measurement on this machine yet', { exact: false })).toBeVisible();
  await expect(dialog.getByLabel('Default order')).toContainText('no measurement yet: the AES rule');

  await dialog.getByRole('button', { name: 'Measure' }).click();
  await expect(dialog.getByRole('button', { name: /Measuring/ })).toBeDisabled();
  const rows = dialog.getByRole('table', { name: 'Cipher speed' }).locator('tbody tr');
  await expect(rows).toHaveCount(benchCombinations().length, { timeout: 120_000 });
  await expect(dialog.getByLabel('Default order')).toContainText('from the measurement of');

  const stored = JSON.parse(fs.readFileSync(path.join(engine.home, 'cipher-speed.json'), 'utf8')) as Stored;
  const ranked = rankCiphers(stored.measurements[0].rows);
  const defaults = dialog.getByLabel('Default order').locator('dd').first();
  await expect(defaults).toHaveText(new RegExp(`^${ranked.slice(0, 3).join(', ').replace(/[.]/g, '\\.')}`));
  await expect(dialog.locator('tr.first td').first()).toHaveText(
    ranked[0].startsWith('aes') && ranked[0].endsWith('-ctr') ? new RegExp(`^${ranked[0]} \\+ `) : ranked[0],
  );
  for (const cell of await rows.locator('td:nth-child(2)').allTextContents()) expect(Number(cell)).toBeGreaterThan(0);
  await app.screenshot('settings-ciphers');
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();

  const remoteDir = path.join(sshd.root, 'measured-cipher');
  fs.mkdirSync(remoteDir, { recursive: true });
  await app.createSite({
    name: 'Measured',
    host: sshd.host,
    port: sshd.port,
    user: sshd.user,
    keyPath: sshd.clientKeyPath,
    localDir,
    remoteDir,
  });
  await app.startConnect('Measured');
  await app.answerUnknownHostKey('Accept once');
  await app.waitForRemoteListing(remoteDir);
  await expect(app.statusBar.getByLabel('Cipher')).toHaveText(ranked[0]);
});
