import test from 'node:test';
import assert from 'node:assert/strict';
import { modeString, octalMode, parseModeChange } from './fileMode';

test("modeString: ls -l's letters for types, setuid/setgid/sticky with and without x", () => {
  assert.equal(modeString(0o755, 'dir'), 'drwxr-xr-x');
  assert.equal(modeString(0o100644, 'file'), '-rw-r--r--');
  assert.equal(modeString(0o777, 'symlink'), 'lrwxrwxrwx');
  assert.equal(modeString(0o4755, 'file'), '-rwsr-xr-x');
  assert.equal(modeString(0o2644, 'file'), '-rw-r-Sr--');
  assert.equal(modeString(0o1777, 'dir'), 'drwxrwxrwt');
  assert.equal(modeString(0o1776, 'dir'), 'drwxrwxrwT');
  assert.equal(modeString(0o600, 'other', 0o140000), 'srw-------');
  assert.equal(modeString(0o644, 'other', 0o010000), 'prw-r--r--');
  assert.equal(octalMode(0o4755), '4755');
  assert.equal(octalMode(0o644), '0644');
});

test("parseModeChange: octal and chmod(1)'s symbolic clauses; anything else undefined", () => {
  const apply = (mode: string, from: number, dir = false) => parseModeChange(mode)!(from, dir);
  assert.equal(apply('755', 0o600), 0o755);
  assert.equal(apply('4750', 0o600), 0o4750);
  assert.equal(apply('u+x', 0o644), 0o744);
  assert.equal(apply('go-w', 0o666), 0o644);
  assert.equal(apply('a=r', 0o777), 0o444);
  assert.equal(apply('=rw', 0o7777), 0o666);
  assert.equal(apply('u=rwx,go=rx', 0o000), 0o755);
  assert.equal(apply('a+X', 0o644), 0o644, 'X: no x for a file without one');
  assert.equal(apply('a+X', 0o744), 0o755, 'X: x for a file with one');
  assert.equal(apply('a+X', 0o644, true), 0o755, 'X: x for a folder');
  assert.equal(apply('g=u', 0o750), 0o770);
  assert.equal(apply('o=g', 0o751), 0o755);
  assert.equal(apply('u+s,+t', 0o755), 0o5755);
  assert.equal(apply('go-rwx', 0o4755), 0o4700);
  for (const bad of ['', '8', '75555', 'u+q', 'x+r', 'u+', 'rwx', '+g', 'u=rw;g']) {
    if (bad === 'u+' || bad === '+g') continue; // valid: `u+` adds nothing; `+g` copies the group's bits
    assert.equal(parseModeChange(bad), undefined, bad);
  }
  assert.equal(apply('u+', 0o640), 0o640);
});
