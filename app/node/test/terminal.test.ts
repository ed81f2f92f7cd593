/**
 * The pseudo-terminal harness itself: what the CLI leaves on the screen (its lines after wrapping at the terminal's
 * width, and where the cursor ends), so other CLI text tests can assert what a person sees.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startCliInTerminal } from './terminal';

test('sluice --version in a terminal: one line, the cursor at the start of the next', async () => {
  const r = await startCliInTerminal(['--version'], { knownHosts: '/dev/null', cols: 80 }).result;
  assert.equal(r.code, 0, r.raw);
  assert.match(r.text, /^\d+\.\d+\.\d+$/);
  assert.deepEqual(r.cursor, { x: 0, y: 1 });
});

test('a line longer than the terminal wraps onto the next screen line, as a person would see it', async () => {
  const narrow = await startCliInTerminal(['--help'], { knownHosts: '/dev/null', cols: 40 }).result;
  const wide = await startCliInTerminal(['--help'], { knownHosts: '/dev/null', cols: 200 }).result;
  assert.equal(narrow.code, 0, narrow.raw);
  assert.ok(
    narrow.lines.every((l) => l.length <= 40),
    narrow.text,
  );
  assert.ok(narrow.lines.length > wide.text.split('\n').length, 'the 40-column screen has more lines');
  assert.ok(
    wide.lines.some((l) => l.length > 40),
    wide.text,
  );
});
