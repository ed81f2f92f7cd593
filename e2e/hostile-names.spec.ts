/**
 * Remote names that try to spoof what the app shows (issue 24): a right-to-left override makes `report<RLO>fdp.exe`
 * display as `reportexe.pdf`, a control character can hide part of a name. The file pane shows them escaped
 * (`\u202e`, `\x07`), as the CLI does, while the row keeps the real name for actions and screen readers.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, test } from './harness/test';

test('remote names with bidi and control characters are shown escaped in the file pane', async ({
  app,
  sshd,
  engine,
  localDir,
}) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  const remoteDir = path.join(sshd.root, 'spoof');
  fs.mkdirSync(remoteDir, { recursive: true });
  const spoof = 'report\u202Efdp.exe';
  const bell = 'bell\u0007\u2066x\u2069.txt';
  fs.writeFileSync(path.join(remoteDir, spoof), 'not a pdf\n');
  fs.writeFileSync(path.join(remoteDir, bell), 'bell\n');
  fs.writeFileSync(path.join(remoteDir, 'plain.txt'), 'plain\n');

  await app.open();
  await app.createSite({
    name: 'Spoof',
    host: sshd.host,
    port: sshd.port,
    user: sshd.user,
    keyPath: sshd.clientKeyPath,
    localDir,
    remoteDir,
  });
  await app.startConnect('Spoof');
  await app.waitForRemoteListing(remoteDir);

  await expect(app.remoteRow(spoof).getByRole('gridcell').first()).toHaveText('report\\u202efdp.exe');
  await expect(app.remoteRow(bell).getByRole('gridcell').first()).toHaveText('bell\\x07\\u2066x\\u2069.txt');
  await expect(app.remoteRow('plain.txt').getByRole('gridcell').first()).toHaveText('plain.txt');
  const shown = await app.remoteGrid.locator('tbody').innerText();
  // eslint-disable-next-line no-control-regex -- looking for raw control characters is the point
  expect(shown).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u202a-\u202e\u2066-\u2069]/);
});
