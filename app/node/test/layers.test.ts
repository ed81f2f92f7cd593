/**
 * The layers of docs/ARCHITECTURE.md are enforced by `npm run lint` (eslint.config.mjs LAYERS, the rule in
 * scripts/lint/layers.mjs): planted upward imports (values and types), a file in no layer, a package off a layer's
 * list, ssh2's internals outside ssh2x.ts, a require() of a repo file, an import circle and an engine opened around
 * openEngine are refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ESLint } from 'eslint';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

/**
 * Lint messages for `code` as if it were `filePath` (no such file exists: the cycle rule, which reads files, is off).
 */
async function messagesFor(code: string, filePath: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT, overrideConfig: { rules: { 'import/no-cycle': 'off' } } });
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, filePath) });
  return result.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

const allowList = (layer: string) => new RegExp(`sluice/layers: ${layer} may not import`);
/** A module importing the value `name` from `from`. */
const value = (name: string, from: string) => `import { ${name} } from '${from}';\nexport const x = ${name};\n`;
/** A module importing the type `name` from `from`. */
const type = (name: string, from: string) => `import type { ${name} } from '${from}';\nexport type X = ${name};\n`;

test('an upward value import fails lint in every layer (its allow-list)', { timeout: 60_000 }, async () => {
  const planted: Array<[string, string, string]> = [
    [value('runTransfer', '../transfer/run'), 'app/node/sftp/planted.ts', 'app/node/sftp'],
    [value('ConnectionPool', '../ssh/connectionPool'), 'app/node/stores/planted.ts', 'app/node/stores'],
    [value('runTransfer', '../transfer/run'), 'app/node/ssh/planted.ts', 'app/node/ssh'],
    [value('openEngine', '../engine/engine'), 'app/node/sites/planted.ts', 'app/node/sites'],
    [value('runTransfer', '../transfer/run'), 'app/node/sys/planted.ts', 'app/node/sys'],
    [value('openEngine', '../engine/engine'), 'app/node/transfer/planted.ts', 'app/node/transfer'],
    [value('Service', '../service'), 'app/node/engine/planted.ts', 'app/node/engine'],
    [value('formatRate', '../cli/units'), 'app/node/service/planted.ts', 'app/node/service'],
    [value('ConnectionPool', './ssh/connectionPool'), 'app/node/ssh2x.ts', 'app/node/ssh2x'],
    [value('SluiceError', '../node/errors'), 'app/common/planted.ts', 'app/common'],
    [value('openEngine', '../../app/node/engine/engine'), 'renderer/views/planted.ts', 'renderer/views'],
    [value('bridge', '../bridge/bridge'), 'renderer/format/planted.ts', 'renderer/format'],
    [value('openEngine', '../app/node/engine/engine'), 'main/planted.ts', 'main'],
    [value('Service', '../../app/node/service'), 'main/preload/planted.ts', 'main/preload'],
  ];
  for (const [code, file, layer] of planted) {
    assert.match((await messagesFor(code, file)).join('\n'), allowList(layer), `${file}: ${code}`);
  }
  const required = "export const e = require('../transfer/run');\n";
  const fromRequire = (await messagesFor(required, 'app/node/sftp/planted.ts')).join('\n');
  assert.match(fromRequire, allowList('app/node/sftp'), 'require() too');
});

test('an upward type-only import fails lint too, in each form a type comes through', { timeout: 60_000 }, async () => {
  const planted: Array<[string, string, string]> = [
    [type('TransferFile', '../transfer/transferFile'), 'app/node/ssh/planted.ts', 'app/node/ssh'],
    [
      "import { type EngineEvent } from '../transfer/types';\nexport type E = EngineEvent;\n",
      'app/node/ssh/planted.ts',
      'app/node/ssh',
    ],
    ["export type { Engine } from '../engine/engine';\n", 'app/node/transfer/planted.ts', 'app/node/transfer'],
    ["export type E = import('../engine/engine').Engine;\n", 'app/node/transfer/planted.ts', 'app/node/transfer'],
    [type('SluiceError', '../node/errors'), 'app/common/planted.ts', 'app/common'],
    [type('Service', '../../app/node/service'), 'renderer/state/planted.ts', 'renderer/state'],
  ];
  for (const [code, file, layer] of planted) {
    const messages = (await messagesFor(code, file)).join('\n');
    assert.match(messages, allowList(layer), `${file}: ${code}`);
    assert.match(messages, /not even its types/);
  }
  // No exception: the pool (ssh/connectionPool.ts), which once took EngineEvent from transfer/, is refused like any
  // file.
  const poolEvents = (
    await messagesFor(type('EngineEvent', '../transfer/types'), 'app/node/ssh/connectionPool.ts')
  ).join('\n');
  assert.match(poolEvents, allowList('app/node/ssh'), 'ssh/connectionPool.ts may not take a type from transfer/');
  assert.match(poolEvents, /app\/node\/transfer\/types \(not even its types\)/);
});

test('what a layer lists passes; a file in no layer, a package off its list fail', { timeout: 60_000 }, async () => {
  assert.deepEqual(
    await messagesFor(
      "import type { RemoteSpec } from '../engine/remoteSpec';\nimport { Worker } from 'node:worker_threads';\n" +
        "import { plural } from '../../common/plural';\n" +
        'export type R = RemoteSpec;\nexport const w = [Worker, plural];\n',
      'app/node/service/planted.ts',
    ),
    [],
    'service -> engine, node:*, app/common',
  );
  assert.match(
    (await messagesFor('export const x = 1;\n', 'app/node/newlayer/planted.ts')).join('\n'),
    /app\/node\/newlayer\/planted is in no layer: give its folder a row/,
  );
  assert.match(
    (await messagesFor(value('readFileSync', 'node:fs'), 'renderer/format/planted.ts')).join('\n'),
    /renderer\/format may not import the package 'node:fs'/,
  );
  const zodAndFs = `import { z } from 'zod';\nexport const z2 = z;\n${value('readFileSync', 'node:fs')}`;
  assert.match(
    (await messagesFor(zodAndFs, 'app/common/planted.ts')).join('\n'),
    /app\/common may not import the package 'node:fs'/,
  );
});

test("ssh2's internals are reached through ssh2x.ts only", { timeout: 60_000 }, async () => {
  const internals = "export const c = require('ssh2/lib/protocol/constants');\n";
  assert.match(
    (await messagesFor(internals, 'app/node/ssh/planted.ts')).join('\n'),
    /app\/node\/ssh may not import the package 'ssh2\/lib\/protocol\/constants'/,
  );
  assert.match(
    (await messagesFor(internals, 'app/node/engine/planted.ts')).join('\n'),
    /app\/node\/engine may not import the package/,
  );
  assert.match(
    (await messagesFor(value('Client', 'ssh2/lib/client'), 'app/node/sftp/planted.ts')).join('\n'),
    /app\/node\/sftp may not import the package 'ssh2\/lib\/client'/,
  );
  assert.deepEqual(await messagesFor(internals, 'app/node/ssh2x.ts'), []);
  assert.deepEqual(
    await messagesFor(value('utils', 'ssh2'), 'app/node/ssh/planted.ts'),
    [],
    "ssh2's public API stays open to ssh/",
  );
});

type Layers = Record<string, { imports?: string[]; packages?: string[] }>;

test('docs/ARCHITECTURE.md has a row for every layer, with what it may import', { timeout: 60_000 }, async () => {
  const file = path.join(ROOT, 'app/node/errors.ts');
  const config = (await new ESLint({ cwd: ROOT }).calculateConfigForFile(file)) as {
    rules: Record<string, [unknown, { layers: Layers }]>;
  };
  const { layers } = config.rules['sluice/layers'][1];
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Layers'), doc.indexOf('\n## ', doc.indexOf('## Layers') + 1));
  // A row is a line starting with its layer, and the indented lines under it.
  const rows = new Map<string, string>();
  let last = '';
  for (const line of section.split('\n')) {
    if (/^\S/.test(line)) rows.set((last = line.split(/\s+/)[0]), line);
    else if (last && line.trim()) rows.set(last, `${rows.get(last)} ${line}`);
  }
  const token = (layer: string) =>
    layer.replace(/^app\/node\//, '') + (fs.existsSync(path.join(ROOT, layer)) ? '/' : '.ts');
  const word = (s: string) => new RegExp(`(^|[\\s,(])${s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}([\\s,;)]|$)`);
  assert.ok(Object.keys(layers).length >= 20, 'the allow-lists were read from eslint.config.mjs');
  for (const [layer, { imports = [], packages = [] }] of Object.entries(layers)) {
    const row = rows.get(token(layer));
    assert.ok(row, `docs/ARCHITECTURE.md has no row '${token(layer)}' for the layer ${layer}`);
    for (const imported of imports) {
      const shown = imported.replace(/^app\/node\//, '').replace(/^renderer\//, '');
      assert.match(row, word(shown), `${layer} may import ${imported}`);
    }
    for (const pkg of packages) assert.match(row, word(pkg), `${layer} may import the package ${pkg}`);
  }
  for (const dir of fs.readdirSync(path.join(ROOT, 'app', 'node'), { withFileTypes: true })) {
    if (dir.isDirectory() && dir.name !== 'test') {
      assert.ok(layers[`app/node/${dir.name}`], `app/node/${dir.name} is a layer`);
    }
  }
});

test(
  'the service, the CLI and main/ open engines only through openEngine: the set-up pieces and ConnectionPool are refused',
  { timeout: 60_000 },
  async () => {
    const door = /no-restricted-imports: .*open engines through engine\/engine\.ts openEngine/;
    assert.match(
      (
        await messagesFor(
          "import { ConnectionPool } from '../ssh/connectionPool';\nexport const s = ConnectionPool;\n",
          'app/node/service/planted.ts',
        )
      ).join('\n'),
      door,
    );
    assert.match(
      (
        await messagesFor(
          "import { gatherAuth } from '../ssh/auth';\nexport const g = gatherAuth;\n",
          'app/node/cli/planted.ts',
        )
      ).join('\n'),
      door,
    );
    assert.match(
      (
        await messagesFor(
          "import { KnownHosts } from './stores/knownHosts';\nexport const k = KnownHosts;\n",
          'app/node/service.ts',
        )
      ).join('\n'),
      door,
    );
    assert.match(
      (
        await messagesFor(
          "import { poolOptionsFor } from '../app/node/engine/setup';\nexport const o = poolOptionsFor;\n",
          'main/planted.ts',
        )
      ).join('\n'),
      door,
    );
    assert.deepEqual(
      await messagesFor(
        "import { openEngine } from '../engine/engine';\nimport { AUTO_TUNE } from '../ssh/connectionPool';\nimport type { HostKeyPolicy } from '../ssh/hostKeys';\n" +
          'export const o = [openEngine, AUTO_TUNE];\nexport type P = HostKeyPolicy;\n',
        'app/node/cli/planted.ts',
      ),
      [],
      'the door itself, other exports of the same modules and types pass',
    );
  },
);

test('main/ may not import renderer/, and repo files are never require()d', { timeout: 60_000 }, async () => {
  assert.match(
    (
      await messagesFor("import { App } from '../renderer/views/App';\nexport const a = App;\n", 'main/planted.ts')
    ).join('\n'),
    allowList('main'),
  );
  assert.match(
    (await messagesFor("export const e = require('../errors');\n", 'app/node/transfer/planted.ts')).join('\n'),
    /do not require\(\) them/,
  );
});

test('an import circle fails lint', { timeout: 60_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(ROOT, 'app', 'node', 'transfer', 'lint-cycle-'));
  try {
    fs.writeFileSync(path.join(dir, 'a.ts'), "import { b } from './b';\nexport const a = (): unknown => b;\n");
    fs.writeFileSync(path.join(dir, 'b.ts'), "import { a } from './a';\nexport const b = (): unknown => a;\n");
    const eslint = new ESLint({ cwd: ROOT });
    const results = await eslint.lintFiles([path.join(dir, 'a.ts')]);
    assert.ok(
      results[0].messages.some((m) => m.ruleId === 'import/no-cycle'),
      JSON.stringify(results[0].messages),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test(
  'a unit test beside app/common or renderer/ code keeps its layer, plus node:test and node:assert',
  { timeout: 60_000 },
  async () => {
    const testImports =
      "import test from 'node:test';\nimport assert from 'node:assert/strict';\nexport const t = [test, assert];\n";
    assert.deepEqual(
      await messagesFor(`${testImports}${value('emptyQueue', './reducer')}`, 'app/common/queue/planted.test.ts'),
      [],
    );
    assert.deepEqual(
      await messagesFor(`${testImports}${value('reduceApp', './appState')}`, 'renderer/state/planted.test.ts'),
      [],
    );
    assert.match(
      (await messagesFor(value('SluiceError', '../node/errors'), 'app/common/planted.test.ts')).join('\n'),
      allowList('app/common'),
      'a test of app/common may not reach the engine',
    );
    assert.match(
      (await messagesFor(value('readFileSync', 'node:fs'), 'app/common/planted.test.ts')).join('\n'),
      /app\/common may not import the package 'node:fs'/,
    );
    assert.match(
      (
        await messagesFor(value('openEngine', '../../app/node/engine/engine'), 'renderer/state/testing/planted.ts')
      ).join('\n'),
      allowList('renderer/state'),
      'a renderer test helper neither',
    );
    // app/node's tests may still reach any layer and the fixtures.
    assert.deepEqual(
      await messagesFor(value('startSshd', '../../../e2e/fixtures/sshd'), 'app/node/sftp/planted.test.ts'),
      [],
    );
  },
);
