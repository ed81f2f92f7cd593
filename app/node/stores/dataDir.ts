/** Where Sluice keeps its data: one folder per user, shared by the app and the CLI. */
import os from 'node:os';
import path from 'node:path';

/**
 * The data folder: `SLUICE_HOME` when set, else the per-OS application data folder
 * (`%APPDATA%\Sluice`, `~/Library/Application Support/Sluice`, `$XDG_CONFIG_HOME/sluice` or `~/.config/sluice`, the
 * folder Electron's `app.getPath('userData')` names).
 */
export function resolveHome(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.SLUICE_HOME) return path.resolve(env.SLUICE_HOME);
  const home = os.homedir();
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Sluice');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Sluice');
  return path.join(env.XDG_CONFIG_HOME ?? path.join(home, '.config'), 'sluice');
}
