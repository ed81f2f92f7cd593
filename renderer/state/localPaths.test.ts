/**
 * The local pane on Windows (#30 item 7), by the separator the engine reports: This PC (the drives and shares) is the
 * top level, Up from `C:\` or a share's root goes there (never to the working folder), a drive opens at its root,
 * UNC paths are shown and walked as `\\server\share` + folders; POSIX panes unchanged.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  DRIVES_PATH,
  isDrivesPath,
  joinLocal,
  parentLocal,
  windowsCrumbs,
  windowsRoot,
} from '../../app/common/localPaths';
import { newSiteForm, validateSiteForm } from './siteForm';

test('Windows roots: drives (either separator, any case) and UNC shares', () => {
  assert.equal(windowsRoot('c:/Users'), 'C:\\');
  assert.equal(windowsRoot('D:'), 'D:\\');
  assert.equal(windowsRoot('\\\\nas\\media\\films'), '\\\\nas\\media\\');
  assert.equal(windowsRoot('//nas/media'), '\\\\nas\\media\\');
  assert.equal(windowsRoot('\\\\nas'), undefined, 'a server without a share is no root');
  assert.equal(windowsRoot(DRIVES_PATH), undefined);
});

test('Up on Windows: folder → parent → drive root → This PC, which stays; shares alike', () => {
  const ups = (p: string) => {
    const seen = [p];
    for (let i = 0; i < 6 && seen[seen.length - 1] !== DRIVES_PATH; i++)
      seen.push(parentLocal(seen[seen.length - 1], '\\'));
    return seen;
  };
  assert.deepEqual(ups('C:\\Users\\me'), ['C:\\Users\\me', 'C:\\Users', 'C:\\', DRIVES_PATH]);
  assert.deepEqual(ups('\\\\nas\\media\\films\\2024'), [
    '\\\\nas\\media\\films\\2024',
    '\\\\nas\\media\\films',
    '\\\\nas\\media\\',
    DRIVES_PATH,
  ]);
  assert.equal(parentLocal(DRIVES_PATH, '\\'), DRIVES_PATH);
  assert.equal(parentLocal('C:\\Users\\', '\\'), 'C:\\');
  // POSIX is as before.
  assert.equal(parentLocal('/home/me', '/'), '/home');
  assert.equal(parentLocal('/', '/'), '/');
});

test('opening from This PC: a drive at its root, a share at its root; joins inside keep one separator', () => {
  assert.equal(joinLocal(DRIVES_PATH, 'D:', '\\'), 'D:\\');
  assert.equal(joinLocal(DRIVES_PATH, '\\\\nas\\media', '\\'), '\\\\nas\\media\\');
  assert.equal(joinLocal('D:\\', 'x', '\\'), 'D:\\x');
  assert.equal(joinLocal('\\\\nas\\media\\', 'films', '\\'), '\\\\nas\\media\\films');
  assert.equal(joinLocal('/home', 'me', '/'), '/home/me');
  assert.ok(isDrivesPath(DRIVES_PATH) && !isDrivesPath('C:\\') && !isDrivesPath(null));
});

test('Windows breadcrumbs: This PC, the drive or the share, then each folder', () => {
  assert.deepEqual(windowsCrumbs('\\\\nas\\media\\films'), [
    { label: 'This PC', path: DRIVES_PATH },
    { label: '\\\\nas\\media', path: '\\\\nas\\media\\' },
    { label: 'films', path: '\\\\nas\\media\\films' },
  ]);
  assert.deepEqual(windowsCrumbs(DRIVES_PATH), [{ label: 'This PC', path: DRIVES_PATH }]);
});

test("a site's local folder may be a UNC share; the remote folder may not", () => {
  const base = { ...newSiteForm(), name: 'n', host: 'h', user: 'u' };
  assert.equal(validateSiteForm({ ...base, localDir: '\\\\nas\\media\\in' }).ok, true);
  const remote = validateSiteForm({ ...base, remoteDir: '\\\\nas\\media' });
  assert.equal(remote.ok, false);
});
