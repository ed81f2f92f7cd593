/** Sluice's version, read from its package.json: all `sluice --version` loads (cli.ts answers it before commander). */
import fs from 'node:fs';
import path from 'node:path';

/**
 * The version in Sluice's package.json, found by walking up from this file (dist/app/node/cli/ once built).
 * @returns the version, or `'unknown'` when no package.json named "sluice" is found
 */
export function packageVersion(from = __dirname): string {
  let dir = from;
  for (let i = 0; i < 8; i++) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'sluice' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no package.json here: look further up
    }
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return 'unknown';
}
