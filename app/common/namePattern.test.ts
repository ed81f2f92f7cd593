import test from 'node:test';
import assert from 'node:assert/strict';
import { namePattern } from './namePattern';

test('substring: anywhere in the name, case ignored unless asked', () => {
  const m = namePattern('log', 'substring');
  assert.equal(m('access.LOG'), true);
  assert.equal(m('catalogue'), true);
  assert.equal(m('lo g'), false);
  assert.equal(namePattern('Log', 'substring', true)('access.log'), false);
  assert.equal(namePattern('Log', 'substring', true)('Logs'), true);
  // Regex characters are plain text.
  assert.equal(namePattern('a.b(', 'substring')('xa.b(y'), true);
  assert.equal(namePattern('a.b', 'substring')('axb'), false);
});

test('glob: the whole name; *, ?, sets, negated sets, a quoted character', () => {
  const log = namePattern('*.log', 'glob');
  assert.equal(log('error.log'), true);
  assert.equal(log('ERROR.LOG'), true);
  assert.equal(log('error.log.1'), false);
  assert.equal(log('errorxlog'), false);
  assert.equal(namePattern('*.LOG', 'glob', true)('error.log'), false);
  assert.equal(namePattern('file?.txt', 'glob')('file1.txt'), true);
  assert.equal(namePattern('file?.txt', 'glob')('file12.txt'), false);
  assert.equal(namePattern('[ab]*', 'glob')('beta'), true);
  assert.equal(namePattern('[ab]*', 'glob')('gamma'), false);
  assert.equal(namePattern('[!ab]*', 'glob')('gamma'), true);
  assert.equal(namePattern('[a-c]x', 'glob')('bx'), true);
  assert.equal(namePattern('[a-c]x', 'glob')('dx'), false);
  assert.equal(namePattern('\\*', 'glob')('*'), true);
  assert.equal(namePattern('\\*', 'glob')('a'), false);
  // An unclosed set is a plain bracket; a name with a line break still matches `*`.
  assert.equal(namePattern('[x', 'glob')('[x'), true);
  assert.equal(namePattern('a*', 'glob')('a\nb'), true);
});
