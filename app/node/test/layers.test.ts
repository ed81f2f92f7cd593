/**
 * The layers of docs/ARCHITECTURE.md are enforced by `npm run lint` (eslint.config.mjs): planted upward imports,
 * a require() of a repo file, an import circle and an engine opened around engine/engine.ts openEngine are refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ESLint } from 'eslint';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

/** Lint messages for `code` as if it were `filePath` (no such file exists: the cycle rule, which reads files, is off). */
async function messagesFor(code: string, filePath: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT, overrideConfig: { rules: { 'import/no-cycle': 'off' } } });
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, filePath) });
  return result.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

test('an upward import inside app/node fails lint (sftp -> transfer, stores -> ssh, ssh -> transfer at run time, sites -> engine)', { timeout: 60_000 }, async () => {
  assert.match((await messagesFor("import { runTransfer } from '../transfer/run';\nexport const r = runTransfer;\n", 'app/node/sftp/planted.ts')).join('\n'),
    /no-restricted-imports: .*app\/node\/sftp imports only errors\.ts and ssh2x\.ts/);
  assert.match((await messagesFor("import { Session } from '../ssh/session';\nexport const s = Session;\n", 'app/node/stores/planted.ts')).join('\n'),
    /app\/node\/stores imports no other engine layer/);
  assert.match((await messagesFor("import { runTransfer } from '../transfer/run';\nexport const r = runTransfer;\n", 'app/node/ssh/planted.ts')).join('\n'),
    /app\/node\/ssh may use sftp and stores/);
  assert.match((await messagesFor("import { openEngine } from '../engine/engine';\nexport const o = openEngine;\n", 'app/node/sites/planted.ts')).join('\n'),
    /app\/node\/sites \(site import and export\) uses stores only/);
  assert.match((await messagesFor("import { runTransfer } from '../transfer/run';\nexport const r = runTransfer;\n", 'app/node/sys/planted.ts')).join('\n'),
    /app\/node\/sys \(the native\/ addon and its fallbacks\) imports only errors\.ts/);
  assert.deepEqual(await messagesFor("import type { EngineEvent } from '../transfer/types';\nexport type E = EngineEvent;\n", 'app/node/ssh/planted.ts'), [],
    'a type-only import from ssh into transfer/types is allowed');
});

test('the service, the CLI and main/ open engines only through openEngine: the set-up pieces and Session are refused', { timeout: 60_000 }, async () => {
  const door = /no-restricted-imports: .*open engines through engine\/engine\.ts openEngine/;
  assert.match((await messagesFor("import { Session } from '../ssh/session';\nexport const s = Session;\n", 'app/node/service/planted.ts')).join('\n'), door);
  assert.match((await messagesFor("import { gatherAuth } from '../ssh/auth';\nexport const g = gatherAuth;\n", 'app/node/cli/planted.ts')).join('\n'), door);
  assert.match((await messagesFor("import { KnownHosts } from './stores/knownHosts';\nexport const k = KnownHosts;\n", 'app/node/service.ts')).join('\n'), door);
  assert.match((await messagesFor("import { sessionOptionsFor } from '../app/node/engine/setup';\nexport const o = sessionOptionsFor;\n", 'main/planted.ts')).join('\n'), door);
  assert.deepEqual(await messagesFor(
    "import { openEngine } from '../engine/engine';\nimport { AUTO_TUNE } from '../ssh/session';\nimport type { HostKeyPolicy } from '../ssh/hostKeys';\n"
    + 'export const o = [openEngine, AUTO_TUNE];\nexport type P = HostKeyPolicy;\n', 'app/node/cli/planted.ts'), [],
  'the door itself, other exports of the same modules and types pass');
});

test('main/ may not import renderer/, and repo files are never require()d', { timeout: 60_000 }, async () => {
  assert.match((await messagesFor("import { App } from '../renderer/views/App';\nexport const a = App;\n", 'main/planted.ts')).join('\n'), /main\/ adapts the engine/);
  assert.match((await messagesFor("export const e = require('../errors');\n", 'app/node/transfer/planted.ts')).join('\n'), /do not require\(\) them/);
});

test('an import circle fails lint', { timeout: 60_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(ROOT, 'app', 'node', 'transfer', 'lint-cycle-'));
  try {
    fs.writeFileSync(path.join(dir, 'a.ts'), "import { b } from './b';\nexport const a = (): unknown => b;\n");
    fs.writeFileSync(path.join(dir, 'b.ts'), "import { a } from './a';\nexport const b = (): unknown => a;\n");
    const eslint = new ESLint({ cwd: ROOT });
    const results = await eslint.lintFiles([path.join(dir, 'a.ts')]);
    assert.ok(results[0].messages.some((m) => m.ruleId === 'import/no-cycle'), JSON.stringify(results[0].messages));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
