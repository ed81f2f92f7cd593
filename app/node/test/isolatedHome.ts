/**
 * Keeps tests out of the user's own Sluice data folder: a test process that has no SLUICE_HOME gets a fresh one for
 * itself, removed when it exits. Without it, sessions opened without a `dataDir` wrote their leftovers journal into
 * ~/.config/sluice of whoever ran `npm test`.
 */
import { scratchDir } from '../../../e2e/fixtures/tmp';

/** The folder this module made and put in SLUICE_HOME, or undefined when the process already had one. */
export const isolatedHome: string | undefined = (() => {
  if (process.env.SLUICE_HOME) return undefined;
  const dir = scratchDir('sluice-test-data-');
  process.env.SLUICE_HOME = dir;
  return dir;
})();
