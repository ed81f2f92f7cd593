// Lint: TypeScript rules plus the import-direction rules of docs/ARCHITECTURE.md.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importPlugin from 'eslint-plugin-import';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import layerRules from './scripts/lint/layers.mjs';

const ROOT = path.dirname(fileURLToPath(import.meta.url));

const common = ['app/common'];
const node = ['node:*'];
// app/node from the bottom up: each layer's allow-list names only layers listed above it.
const leaves = ['app/common', 'app/node/errors', 'app/node/sys'];
const sshBase = [...leaves, 'app/node/ssh2x', 'app/node/sftp', 'app/node/stores'];
const belowEngine = [...sshBase, 'app/node/ssh', 'app/node/transfer'];
const belowTop = [...belowEngine, 'app/node/engine', 'app/node/sites', 'app/node/sync'];

/**
 * The layers (docs/ARCHITECTURE.md "Layers", the same rows): a layer is a repo folder or file (without extension); a
 * file belongs to the longest one above it (app/node/cli.ts to app/node/cli). `imports` (repo paths: layers) and
 * `packages` (`ssh2/lib/*`: a package's subpaths) are all it may import, type-only imports included; a layer not
 * listed in another's `imports` is refused there, and a new folder needs a row here before its files pass lint.
 */
const LAYERS = {
  'app/common': { packages: ['zod'] },
  'app/node/errors': { imports: common },
  'app/node/ssh2x': { imports: ['app/node/errors'], packages: ['ssh2', 'ssh2/lib/*', 'ssh2/package.json'] },
  'app/node/sys': { imports: ['app/node/errors'], packages: node },
  'app/node/sftp': { imports: ['app/node/errors', 'app/node/ssh2x'], packages: [...node, 'ssh2'] },
  'app/node/stores': { imports: leaves, packages: [...node, 'better-sqlite3', 'zod'] },
  'app/node/sites': {
    imports: [...leaves, 'app/node/stores'],
    packages: [...node, 'ssh-config', 'fast-xml-parser', 'zod'],
  },
  'app/node/ssh': { imports: sshBase, packages: [...node, 'ssh2', 'ssh-config', 'cpu-features'] },
  'app/node/transfer': { imports: [...sshBase, 'app/node/ssh'], packages: node },
  'app/node/engine': { imports: belowEngine, packages: [...node, 'ssh2'] },
  'app/node/sync': { imports: belowEngine, packages: [...node, 'picomatch', 'chokidar'] },
  'app/node/cli': { imports: belowTop, packages: [...node, 'commander', 'cli-progress'] },
  'app/node/edit': { imports: leaves, packages: [...node, 'chokidar'] },
  'app/node/service': { imports: [...belowTop, 'app/node/edit'], packages: node },
  main: {
    imports: [...common, 'app/node/service', 'app/node/stores', 'app/node/sys'],
    packages: [...node, 'electron'],
  },
  'main/preload': { imports: common, packages: ['electron'] },
  renderer: {
    imports: [...common, 'renderer/views', 'renderer/state', 'renderer/bridge', 'renderer/format'],
    packages: ['react', 'react-dom/client'],
  },
  'renderer/views': {
    imports: [...common, 'renderer/state', 'renderer/bridge', 'renderer/format'],
    packages: ['react', '@tanstack/react-virtual', 'uplot', 'uplot/dist/uPlot.min.css'],
  },
  'renderer/state': { imports: [...common, 'renderer/format'], packages: ['react'] },
  'renderer/format': { imports: common },
  'renderer/bridge': { imports: common },
  bench: { imports: ['app/node', ...common, 'e2e/fixtures'], packages: node },
};

/**
 * Unit tests beside pure code (app/common, renderer/) and their `testing/` helpers keep their layer's allow-list, plus
 * node's test runner and assert: a test of the queue's rules cannot reach the engine, nor a renderer test app/node.
 */
const TEST_PACKAGES = ['node:test', 'node:assert', 'node:assert/strict'];
const PURE_TEST_LAYERS = Object.fromEntries(
  Object.entries(LAYERS)
    .filter(([name]) => name === 'app/common' || name === 'renderer' || name.startsWith('renderer/'))
    .map(([name, layer]) => [name, { ...layer, packages: [...(layer.packages ?? []), ...TEST_PACKAGES] }]),
);

/**
 * The engine's one door (docs/ARCHITECTURE.md): the service, the CLI and main/ open engines with engine/engine.ts
 * openEngine, never by composing the set-up pieces (known_hosts, host-key policy, algorithms, identities) or a
 * ConnectionPool themselves. Only these values are refused; types and the modules' other exports pass.
 */
function door(files) {
  const pieces = {
    'ssh/connectionPool': ['ConnectionPool'],
    'ssh/auth': ['gatherAuth'],
    'ssh/algorithms': ['buildAlgorithms'],
    'ssh/hostKeys': ['HostKeyPolicy'],
    'stores/knownHosts': ['KnownHosts'],
    'engine/setup': ['poolOptionsFor', 'preferStoredHostKeyTypes'],
  };
  const patterns = Object.entries(pieces).map(([mod, importNames]) => ({
    group: [`./${mod}`, `../${mod}`, `**/app/node/${mod}`],
    importNames,
    allowTypeImports: true,
    message: 'open engines through engine/engine.ts openEngine (the one door, docs/ARCHITECTURE.md).',
  }));
  return {
    files,
    ignores: ['**/*.test.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] },
  };
}

const IPC_MAIN_BAN = {
  selector: "Identifier[name='ipcMain']",
  message: 'Only main/ipc/validatedIpc.ts touches ipcMain.',
};
// The import graph and the lint zones must see every edge between repo files.
const REQUIRE_BAN = {
  selector: "CallExpression[callee.name='require'][arguments.0.value=/^\\.{1,2}\\//]",
  message: 'Import repo files; do not require() them.',
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'bench/results/**',
      'renderer/dist/**',
      'test-results/**',
      'playwright-report/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        Buffer: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
      // Prettier (npm run format) wraps code at 120 columns; this catches what it cannot wrap: comments. A string or a
      // template literal may run past (prettier keeps them whole, and a message stays greppable).
      'max-len': [
        'error',
        {
          code: 120,
          ignoreUrls: true,
          ignoreStrings: true,
          ignoreTemplateLiterals: true,
          ignoreRegExpLiterals: true,
        },
      ],
    },
  },
  {
    files: ['app/**/*.ts', 'main/**/*.ts', 'renderer/**/*.ts', 'renderer/**/*.tsx', 'bench/**/*.ts'],
    // Tests and their helpers may reach the fixtures (private sshd, scripted server, Toxiproxy) and any layer.
    ignores: ['**/*.test.ts', '**/*.test.tsx', 'app/node/test/**', 'main/test/**', 'app/**/testing/**'],
    plugins: { sluice: layerRules },
    rules: { 'sluice/layers': ['error', { root: ROOT, layers: LAYERS }] },
  },
  {
    files: [
      'app/common/**/*.test.ts',
      'app/common/**/testing/**/*.ts',
      'renderer/**/*.test.ts',
      'renderer/**/testing/**/*.ts',
    ],
    plugins: { sluice: layerRules },
    rules: { 'sluice/layers': ['error', { root: ROOT, layers: PURE_TEST_LAYERS }] },
  },
  door(['app/node/service.ts', 'app/node/service/**/*.ts', 'app/node/cli.ts', 'app/node/cli/**/*.ts', 'main/**/*.ts']),
  {
    // No import circles anywhere in the product code.
    files: ['app/**/*.ts', 'main/**/*.ts', 'renderer/**/*.ts', 'renderer/**/*.tsx'],
    ignores: ['**/*.test.ts', 'app/node/test/**'],
    plugins: { import: importPlugin },
    settings: {
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js'] } },
      'import/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import/extensions': ['.ts', '.tsx', '.js'],
    },
    rules: { 'import/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // ipcMain is banned by name in production code. main/test/ holds its test double, an object with an `ipcMain` key
    // (the formatter unquotes keys, and the selector matches a bare key), so it gets only the require() ban.
    files: ['main/**/*.ts', 'app/**/*.ts', 'renderer/**/*.ts', 'renderer/**/*.tsx'],
    ignores: ['main/ipc/validatedIpc.ts', '**/*.test.ts', 'main/test/**'],
    rules: { 'no-restricted-syntax': ['error', IPC_MAIN_BAN, REQUIRE_BAN] },
  },
  {
    files: ['main/test/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-syntax': ['error', REQUIRE_BAN] },
  },
  {
    // Limits (#25 item 6): no function over 80 lines and no file over 450 in product code; blank lines and comments
    // count (a function's TSDoc is outside it). Tests and their fixtures are exempt.
    files: ['app/**/*.ts', 'main/**/*.ts', 'renderer/**/*.ts', 'renderer/**/*.tsx'],
    ignores: ['**/*.test.ts', 'app/node/test/**', 'main/test/**', '**/testing/**'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false }],
      'max-lines': ['error', { max: 450, skipBlankLines: false, skipComments: false }],
    },
  },
  {
    files: ['bin/**/*.js', 'scripts/**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
