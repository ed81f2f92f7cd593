/**
 * Conflicts are asked in the listing's order with "N more like this" (#29.7), against the real engine and sshd: six
 * dropped files that all exist on the server, moved by several channels at once, are asked about f-000 first, then
 * f-001 and on, each dialog counting those still waiting.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';

test('conflicts of one drop come in the listing order, each with the number still waiting', async ({
  app,
  sshd,
  engine,
  localDir,
}) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  const remoteDir = path.join(sshd.root, 'conflict-order');
  fs.mkdirSync(remoteDir, { recursive: true });
  const names = Array.from({ length: 6 }, (_, i) => `f-${String(i).padStart(3, '0')}.txt`);
  for (const n of names) {
    fs.writeFileSync(path.join(remoteDir, n), `old ${n}\n`);
    fs.writeFileSync(path.join(localDir, n), `new ${n}\n`);
  }

  await app.open();
  await app.createSite({
    name: 'Order',
    host: sshd.host,
    port: sshd.port,
    user: sshd.user,
    keyPath: sshd.clientKeyPath,
    localDir,
    remoteDir,
    connections: 2,
    channels: 4,
  });
  await app.startConnect('Order');
  await app.waitForRemoteListing(remoteDir);
  await app.dropOsFiles(names.map((n) => path.join(localDir, n)));

  const dialog = app.conflictDialog;
  for (const [i, n] of names.entries()) {
    await expect(dialog.getByLabel('Conflicting target')).toHaveText(path.join(remoteDir, n));
    const left = names.length - 1 - i;
    if (left > 0) await expect(dialog.getByLabel('Conflicts waiting')).toHaveText(`${left} more like this`);
    else await expect(dialog.getByLabel('Conflicts waiting')).toHaveCount(0);
    if (i === 0) await app.screenshot('conflict-order');
    await dialog.getByRole('button', { name: i % 2 ? 'Skip' : 'Overwrite' }).click();
  }
  await app.waitForJobState('f-000.txt and 5 more', 'done');
  for (const [i, n] of names.entries())
    expect(fs.readFileSync(path.join(remoteDir, n), 'utf8')).toBe(`${i % 2 ? 'old' : 'new'} ${n}\n`);
});
