// Lint: TypeScript rules plus the import-direction rules of ../shared/ARCHITECTURE.md.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['node:*', 'fs', 'fs/*', 'path', 'os', 'child_process', 'worker_threads', 'net', 'crypto', 'stream', 'events', 'util', 'readline'];
const engineLibs = ['ssh2', 'ssh2/*', 'better-sqlite3', 'cpu-features', 'commander', 'cli-progress'];

/** Patterns a layer must not import, with the reason shown by the linter. */
function banned(groups, message) {
  return { 'no-restricted-imports': ['error', { patterns: [{ group: groups, message }] }] };
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/results/**', 'renderer/dist/**', 'test-results/**', 'playwright-report/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { console: 'readonly', process: 'readonly', require: 'readonly', module: 'writable', __dirname: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', Buffer: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    files: ['app/common/**/*.ts'],
    rules: banned([...nodeBuiltins, ...engineLibs, 'electron', 'react', '**/app/node/**', '**/node/**', '**/main/**', '**/renderer/**', '**/native/**', '**/e2e/**'],
      'app/common is pure TypeScript: no node:*, Electron, engine libraries or other layers (ARCHITECTURE.md).'),
  },
  {
    files: ['app/node/**/*.ts'],
    // Tests may use the e2e fixtures (private sshd, scripted server, Toxiproxy).
    ignores: ['**/*.test.ts', 'app/node/test/**'],
    rules: banned(['electron', 'react', '**/main/**', '**/renderer/**', '**/e2e/**'],
      'app/node is the engine in plain Node: no Electron, React, main/, renderer/ or e2e/ (ARCHITECTURE.md).'),
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    rules: banned([...nodeBuiltins, ...engineLibs, 'electron', '**/app/node/**', '**/main/**', '**/e2e/**'],
      'renderer imports app/common only and reaches the engine through the bridge (ARCHITECTURE.md).'),
  },
  {
    files: ['main/preload/**/*.ts'],
    rules: banned([...nodeBuiltins, ...engineLibs, '**/app/node/**', '**/renderer/**', '**/e2e/**'],
      'the preload is an allowlist over app/common and electron only (ARCHITECTURE.md).'),
  },
  {
    files: ['main/**/*.ts', 'app/**/*.ts', 'renderer/**/*.ts', 'renderer/**/*.tsx'],
    ignores: ['main/ipc/validatedIpc.ts', '**/*.test.ts'],
    rules: {
      'no-restricted-syntax': ['error', { selector: "Identifier[name='ipcMain']", message: 'Only main/ipc/validatedIpc.ts touches ipcMain.' }],
    },
  },
  {
    files: ['bin/**/*.js', 'scripts/**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
