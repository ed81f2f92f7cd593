/**
 * The Properties dialog's permissions (renderer/state/modeForm.ts): the grid and the octal field stay in step, bad
 * octal text is reported and not applied, Apply sends only a change (or a recursion with its scope).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { chmodRequest, modeBit, modeForm, octalError, octalText, toggleBit, typeOctal } from './modeForm';

test('each checkbox is one bit', () => {
  assert.equal(modeBit('owner', 'read'), 0o400);
  assert.equal(modeBit('owner', 'write'), 0o200);
  assert.equal(modeBit('group', 'execute'), 0o010);
  assert.equal(modeBit('others', 'read'), 0o004);
  assert.equal(modeBit('others', 'execute'), 0o001);
});

test('the grid and the octal field follow each other', () => {
  let f = modeForm(0o100644);
  assert.deepEqual([f.mode, f.octal], [0o644, '644']);
  f = toggleBit(f, 'group', 'write');
  assert.deepEqual([f.mode, f.octal], [0o664, '664']);
  f = toggleBit(f, 'owner', 'read');
  assert.deepEqual([f.mode, f.octal], [0o264, '264']);
  f = typeOctal(f, '0750');
  assert.equal(f.mode, 0o750);
  assert.equal(f.octal, '0750', 'the text stays as typed');
  f = typeOctal(f, '4755');
  assert.equal(f.mode, 0o4755);
  assert.equal(octalText(toggleBit(f, 'others', 'read').mode), '4751', 'a set-id bit keeps four digits');
});

test('bad octal text is reported, keeps the grid, and is not applied', () => {
  const f = typeOctal(modeForm(0o644), '8x');
  assert.equal(f.mode, 0o644);
  assert.match(octalError(f) ?? '', /octal digits/);
  assert.equal(chmodRequest(f), null);
  assert.equal(octalError(typeOctal(f, '')) === null, false, 'empty is invalid too');
});

test('Apply sends a change only, or the recursion with its scope', () => {
  const f = modeForm(0o755);
  assert.equal(chmodRequest(f), null, 'nothing changed');
  assert.deepEqual(chmodRequest(toggleBit(f, 'others', 'execute')), { mode: 0o754 });
  assert.deepEqual(chmodRequest({ ...f, recurse: true, scope: 'files' }), { mode: 0o755, recurse: 'files' });
});
