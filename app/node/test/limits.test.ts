/**
 * The size limits of #25 item 6 are enforced by `npm run lint` (eslint.config.mjs): no product function over 80 lines
 * and no product file over 450, blank lines and comments counted; tests are exempt.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { ESLint } from 'eslint';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

/** The size-rule messages for `code` as if it were `filePath` (no such file exists). */
async function sizeMessages(code: string, filePath: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT, overrideConfig: { rules: { 'import/no-cycle': 'off' } } });
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, filePath) });
  return result.messages.filter((m) => m.ruleId?.startsWith('max-lines')).map((m) => `${m.ruleId}: ${m.message}`);
}

/** A function of exactly `lines` lines, its body a blank line and a comment among plain statements. */
function functionOf(lines: number): string {
  const body = ['  let n = 0;', '', '  // a comment counts too'];
  while (body.length < lines - 3) body.push(`  n += ${body.length};`);
  return ['export function planted(): number {', ...body, '  return n;', '}', ''].join('\n');
}

test('a product function over 80 lines fails lint in every product folder; 80 pass', { timeout: 60_000 }, async () => {
  const files = ['app/node/cli/planted.ts', 'app/common/planted.ts', 'main/planted.ts', 'renderer/views/planted.tsx'];
  for (const file of files) {
    assert.deepEqual(
      await sizeMessages(functionOf(81), file),
      ["max-lines-per-function: Function 'planted' has too many lines (81). Maximum allowed is 80."],
      file,
    );
    assert.deepEqual(await sizeMessages(functionOf(80), file), [], file);
  }
});

test('a product file over 450 lines fails lint; tests are exempt from both limits', { timeout: 60_000 }, async () => {
  const constants = (n: number) => Array.from({ length: n }, (_, i) => `export const c${i} = ${i};`).join('\n');
  assert.deepEqual(await sizeMessages(constants(451), 'app/node/transfer/planted.ts'), [
    'max-lines: File has too many lines (451). Maximum allowed is 450.',
  ]);
  assert.deepEqual(await sizeMessages(constants(450), 'app/node/transfer/planted.ts'), []);
  const testFile = `${constants(451)}\n${functionOf(120)}`;
  assert.deepEqual(await sizeMessages(testFile, 'app/node/transfer/planted.test.ts'), []);
});

test(
  'no product file is excepted: the files that once were (run.ts, the pool) are held to 450 lines too',
  {
    timeout: 60_000,
  },
  async () => {
    const long = Array.from({ length: 460 }, (_, i) => `export const c${i} = ${i};`).join('\n');
    for (const file of ['app/node/transfer/run.ts', 'app/node/ssh/connectionPool.ts']) {
      assert.deepEqual(
        await sizeMessages(long, file),
        ['max-lines: File has too many lines (460). Maximum allowed is 450.'],
        file,
      );
    }
  },
);
