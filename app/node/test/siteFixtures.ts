/** TEST ONLY: where the import fixtures are (app/node/sites/testdata; tests run from dist/). */
import * as path from 'node:path';

/** The folder of files written in each import format (see its README.md). */
export const TESTDATA = path.resolve(__dirname, '..', '..', '..', '..', 'app', 'node', 'sites', 'testdata');
