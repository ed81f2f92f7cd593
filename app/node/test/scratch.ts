/**
 * Scratch folders for tests that need one synchronously: made under the OS temp folder and removed when the test
 * process exits, whatever the tests did, so a run leaves nothing in /tmp.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const made: string[] = [];
let hooked = false;

/**
 * A new empty folder, removed at process exit.
 * @param prefix the folder name's start, e.g. `sluice-pipe-` (mkdtemp adds six characters)
 */
export function scratchDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  if (!hooked) {
    hooked = true;
    process.on('exit', () => { for (const d of made) fs.rmSync(d, { recursive: true, force: true }); });
  }
  return dir;
}
