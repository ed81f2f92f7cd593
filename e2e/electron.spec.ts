/**
 * Smoke test of the packaged shell with Playwright's `_electron`, for machines that have the Electron binary.
 * Here (no binary: `electron` downloads it lazily and this machine cannot) it is skipped with the reason printed;
 * the renderer itself is covered by the Chromium specs against the real engine.
 */
import { _electron as electron, expect, test } from '@playwright/test';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BRIDGE_METHOD_NAMES } from '../app/common/ipc/contract';
import { skipBecause } from './harness/skip';

const ROOT = path.resolve(__dirname, '..');

/** The Electron executable without triggering its lazy download: ELECTRON_PATH, else node_modules/electron/path.txt. */
function electronBinary(): string | null {
  if (process.env.ELECTRON_PATH) return fs.existsSync(process.env.ELECTRON_PATH) ? process.env.ELECTRON_PATH : null;
  const pkg = path.join(ROOT, 'node_modules', 'electron');
  const pathTxt = path.join(pkg, 'path.txt');
  if (!fs.existsSync(pathTxt)) return null;
  const exe = path.join(pkg, 'dist', fs.readFileSync(pathTxt, 'utf8').trim());
  return fs.existsSync(exe) ? exe : null;
}

test('electron smoke: the window loads the renderer with exactly the contract bridge', async () => {
  const exe = electronBinary();
  skipBecause(
    !exe,
    'no Electron binary on this machine (node_modules/electron/dist is empty; set ELECTRON_PATH to run this spec)',
  );
  const main = path.join(ROOT, 'dist', 'main', 'index.js');
  skipBecause(!fs.existsSync(main), `${main} missing: run npm run build first`);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-electron-'));
  const app = await electron.launch({ executablePath: exe!, args: [main], env: { ...process.env, SLUICE_HOME: home } });
  try {
    const window = await app.firstWindow();
    await expect(window.getByRole('complementary', { name: 'Site manager' })).toBeVisible();
    const exposed = await window.evaluate(() => Object.keys(window.sluice ?? {}).sort());
    expect(exposed).toEqual([...BRIDGE_METHOD_NAMES, 'on', 'pathForFile'].sort());
    expect(await window.evaluate(() => typeof (globalThis as { require?: unknown }).require)).toBe('undefined');
  } finally {
    await app.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
});
