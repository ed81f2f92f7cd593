import test from 'node:test';
import assert from 'node:assert/strict';
import { FakeWebContents, installElectronMock } from './test/mockElectron';

const electron = installElectronMock();
const { mainWindowOptions, createMainWindow, hardenWebContents, isAllowedExternalUrl } =
  require('./window') as typeof import('./window');
const { menuTemplate } = require('./menu') as typeof import('./menu');

test('window options: isolated, sandboxed, no Node, web security on', () => {
  const o = mainWindowOptions('/app/preload.js');
  assert.deepEqual(o.webPreferences, {
    preload: '/app/preload.js',
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    spellcheck: false,
    safeDialogs: true,
    disableBlinkFeatures: 'Auxclick',
  });
});

test('createMainWindow passes exactly the factory options to BrowserWindow', () => {
  const created = (electron.BrowserWindow as unknown as { created: unknown[] }).created;
  created.length = 0;
  createMainWindow('/app/preload.js');
  assert.equal(created.length, 1);
  assert.deepEqual(created[0], mainWindowOptions('/app/preload.js'));
});

function prevented(wc: FakeWebContents, event: string, ...args: unknown[]): boolean {
  let value = false;
  wc.emit(
    event,
    {
      preventDefault: () => {
        value = true;
      },
    },
    ...args,
  );
  return value;
}

test('hardenWebContents blocks navigation, new windows, webviews and permissions', async () => {
  const wc = new FakeWebContents();
  hardenWebContents(wc as never);
  electron.shell.opened.length = 0;

  assert.ok(prevented(wc, 'will-navigate', 'https://evil.example/'));
  assert.ok(
    prevented(wc, 'will-navigate', 'app://sluice/other.html'),
    'even in-app navigation is blocked (single page app)',
  );
  assert.ok(prevented(wc, 'will-navigate', 'https://github.com/sluice-sftp/sluice/issues'));
  assert.deepEqual(
    electron.shell.opened,
    ['https://github.com/sluice-sftp/sluice/issues'],
    'only the allowlisted link went to the browser',
  );
  assert.ok(prevented(wc, 'will-redirect', 'https://evil.example/'));
  assert.ok(!prevented(wc, 'will-redirect', 'app://sluice/index.html'));
  assert.ok(prevented(wc, 'will-attach-webview'));

  assert.deepEqual(wc.windowOpenHandler?.({ url: 'https://evil.example/' }), { action: 'deny' });
  assert.deepEqual(wc.windowOpenHandler?.({ url: 'https://github.com/sluice-sftp/sluice' }), { action: 'deny' });
  assert.deepEqual(electron.shell.opened, [
    'https://github.com/sluice-sftp/sluice/issues',
    'https://github.com/sluice-sftp/sluice',
  ]);

  for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal']) {
    const granted = await new Promise<boolean>((resolve) => wc.permissionRequestHandler?.(wc, permission, resolve));
    assert.equal(granted, false, permission);
  }
  assert.equal(wc.permissionCheckHandler?.(wc, 'media', 'app://sluice'), false);
});

test('external URL allowlist: https prefixes only, no look-alikes', () => {
  assert.ok(isAllowedExternalUrl('https://github.com/sluice-sftp/sluice'));
  assert.ok(isAllowedExternalUrl('https://github.com/sluice-sftp/sluice/releases'));
  for (const bad of [
    'https://github.com/sluice-sftp/sluice-evil',
    'http://github.com/sluice-sftp/sluice',
    'https://user@github.com/sluice-sftp/sluice',
    'https://github.com.evil.example/sluice-sftp/sluice',
    'javascript:alert(1)',
    'file:///etc/passwd',
    'not a url',
    'smb://host/share',
  ])
    assert.equal(isAllowedExternalUrl(bad), false, bad);
});

test('menu offers the usual edit shortcuts; developer tools only when asked', () => {
  const roles = (t: ReturnType<typeof menuTemplate>): string[] => JSON.stringify(t).match(/"role":"(\w+)"/g) ?? [];
  const release = roles(menuTemplate('linux', false)).join();
  for (const r of ['undo', 'redo', 'cut', 'copy', 'paste', 'selectAll', 'quit'])
    assert.ok(release.includes(`"${r}"`), r);
  assert.ok(!release.includes('toggleDevTools'));
  assert.ok(roles(menuTemplate('linux', true)).join().includes('toggleDevTools'));
  assert.ok(roles(menuTemplate('darwin', false)).join().includes('appMenu'));
});

test("Ctrl+W / Cmd+W is left to the page (it closes a remote tab): the window's Close takes Ctrl+Shift+W", () => {
  for (const platform of ['linux', 'win32', 'darwin'] as const) {
    const json = JSON.stringify(menuTemplate(platform, true));
    // Outside macOS the windowMenu role brings its own Close on Ctrl+W.
    if (platform !== 'darwin') assert.doesNotMatch(json, /"role":"windowMenu"/, platform);
    const closes = json.match(/\{"role":"close"[^}]*\}/g) ?? [];
    assert.equal(closes.length, 1, `${platform}: one Close item`);
    assert.match(closes[0], /"accelerator":"CmdOrCtrl\+Shift\+W"/, platform);
  }
});
