/** Where Sluice keeps its data: one folder per user, shared by the app and the CLI. */
import { homeOf, pathFor } from '../sys/platformPaths';

/**
 * The data folder: `SLUICE_HOME` when set, else the per-OS application data folder
 * (`%APPDATA%\Sluice`, `~/Library/Application Support/Sluice`, `$XDG_CONFIG_HOME/sluice` or `~/.config/sluice`, the
 * folder Electron's `app.getPath('userData')` names).
 */
export function resolveHome(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  const p = pathFor(platform);
  if (env.SLUICE_HOME) return p.resolve(env.SLUICE_HOME);
  const home = homeOf(env, platform);
  if (platform === 'win32') return p.join(env.APPDATA ?? p.join(home, 'AppData', 'Roaming'), 'Sluice');
  if (platform === 'darwin') return p.join(home, 'Library', 'Application Support', 'Sluice');
  return p.join(env.XDG_CONFIG_HOME ?? p.join(home, '.config'), 'sluice');
}
