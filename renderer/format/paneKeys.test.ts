/** The file panes' keyboard table (renderer/format/paneKeys.ts) and where a move lands. */
import test from 'node:test';
import assert from 'node:assert/strict';
import { isMacPlatform, moveTarget, paneCommand, paneKeyLabels, PAGE_ROWS } from './paneKeys';

test('keys to commands: FileZilla/WinSCP keys, transfers by side', () => {
  assert.deepEqual(paneCommand({ key: 'F5' }, 'local'), { kind: 'refresh' });
  assert.deepEqual(paneCommand({ key: 'F4' }, 'remote'), { kind: 'edit' });
  assert.equal(paneCommand({ key: 'F4' }, 'local'), null);
  assert.deepEqual(paneCommand({ key: 'ArrowLeft', altKey: true }, 'local'), { kind: 'back' });
  assert.deepEqual(paneCommand({ key: 'ArrowRight', altKey: true }, 'remote'), { kind: 'forward' });
  assert.deepEqual(paneCommand({ key: 'ArrowLeft', altKey: true }, 'local', true), { kind: 'back' });
  assert.deepEqual(paneCommand({ key: 'l', ctrlKey: true }, 'remote'), { kind: 'editPath' });
  assert.deepEqual(paneCommand({ key: 'l', metaKey: true }, 'remote', true), { kind: 'editPath' });
  assert.deepEqual(paneCommand({ key: '[', metaKey: true }, 'remote', true), { kind: 'back' });
  assert.deepEqual(paneCommand({ key: ']', metaKey: true }, 'remote', true), { kind: 'forward' });
  assert.equal(paneCommand({ key: 'ArrowLeft' }, 'local'), null);
  assert.deepEqual(paneCommand({ key: 'r' }, 'remote'), { kind: 'filter', text: 'r' });
  assert.deepEqual(paneCommand({ key: 'R', shiftKey: true }, 'local'), { kind: 'filter', text: 'R' });
  assert.deepEqual(paneCommand({ key: '*', shiftKey: true }, 'local', true), { kind: 'filter', text: '*' });
  assert.deepEqual(paneCommand({ key: ' ' }, 'local'), { kind: 'toggle' });
  assert.deepEqual(paneCommand({ key: 'Escape' }, 'local'), { kind: 'clearFilter' });
  assert.equal(paneCommand({ key: 'r', altKey: true }, 'local'), null);
  assert.deepEqual(paneCommand({ key: 'u', ctrlKey: true }, 'local'), { kind: 'transfer' });
  assert.equal(paneCommand({ key: 'u', ctrlKey: true }, 'remote'), null);
  assert.deepEqual(paneCommand({ key: 'd', ctrlKey: true }, 'remote'), { kind: 'transfer' });
  assert.equal(paneCommand({ key: 'd', ctrlKey: true }, 'local'), null);
  assert.deepEqual(paneCommand({ key: 'F10', shiftKey: true }, 'local'), { kind: 'menu' });
  assert.deepEqual(paneCommand({ key: 'ContextMenu' }, 'remote'), { kind: 'menu' });
  assert.equal(paneCommand({ key: 'F10' }, 'local'), null);
  assert.deepEqual(paneCommand({ key: 'Enter' }, 'local'), { kind: 'open' });
  assert.deepEqual(paneCommand({ key: 'Backspace' }, 'local'), { kind: 'up' });
  assert.deepEqual(paneCommand({ key: 'ArrowUp', altKey: true }, 'local'), { kind: 'up' });
  assert.deepEqual(paneCommand({ key: 'Delete' }, 'local'), { kind: 'delete' });
  assert.deepEqual(paneCommand({ key: 'F2' }, 'local'), { kind: 'rename' });
  assert.deepEqual(paneCommand({ key: 'A', ctrlKey: true }, 'local'), { kind: 'selectAll' });
  assert.deepEqual(paneCommand({ key: ' ' }, 'local'), { kind: 'toggle' });
  assert.deepEqual(paneCommand({ key: 'End', shiftKey: true }, 'local'), {
    kind: 'move',
    delta: Infinity,
    extend: true,
  });
  assert.deepEqual(paneCommand({ key: 'PageDown' }, 'local'), { kind: 'move', delta: PAGE_ROWS, extend: false });
  assert.equal(paneCommand({ key: 'F12' }, 'local'), null);
  assert.equal(paneCommand({ key: 'Enter', shiftKey: true }, 'local'), null);
});

test('moveTarget: clamped steps, Home/End to either end, from nothing focused', () => {
  assert.equal(moveTarget(10, 3, 1), 4);
  assert.equal(moveTarget(10, 9, 1), 9);
  assert.equal(moveTarget(10, 5, -PAGE_ROWS), 0);
  assert.equal(moveTarget(10, 5, -Infinity), 0);
  assert.equal(moveTarget(10, 5, Infinity), 9);
  assert.equal(moveTarget(10, -1, 1), 0);
  assert.equal(moveTarget(10, -1, -1), 9);
  assert.equal(moveTarget(10, -1, -Infinity), 0);
  assert.equal(moveTarget(10, -1, Infinity), 9);
});

test('macOS: ⌘↑ up, ⌘↓ open, ⌘⌫ delete, ⌘R refresh, ⌘U/⌘D transfer; ⌫ alone is not "up"; labels say ⌘', () => {
  const mac = (e: Parameters<typeof paneCommand>[0], side: 'local' | 'remote' = 'local') => paneCommand(e, side, true);
  assert.deepEqual(mac({ key: 'ArrowUp', metaKey: true }), { kind: 'up' });
  assert.deepEqual(mac({ key: 'ArrowDown', metaKey: true }), { kind: 'open' });
  assert.deepEqual(mac({ key: 'Backspace', metaKey: true }), { kind: 'delete' });
  assert.deepEqual(mac({ key: 'r', metaKey: true }), { kind: 'refresh' });
  assert.deepEqual(mac({ key: 'u', metaKey: true }), { kind: 'transfer' });
  assert.deepEqual(mac({ key: 'd', metaKey: true }, 'remote'), { kind: 'transfer' });
  assert.equal(mac({ key: 'Backspace' }), null, '⌫ is the Mac\'s delete key: never "go up"');
  assert.deepEqual(mac({ key: 'Enter' }), { kind: 'open' });
  assert.deepEqual(mac({ key: 'ArrowDown' }), { kind: 'move', delta: 1, extend: false });
  // Elsewhere unchanged.
  assert.deepEqual(paneCommand({ key: 'Backspace' }, 'local'), { kind: 'up' });
  assert.equal(paneCommand({ key: 'ArrowUp', metaKey: true }, 'local'), null);
  assert.deepEqual(paneKeyLabels(true), {
    up: '⌘↑',
    delete: '⌘⌫',
    deleteShort: '⌘⌫',
    refresh: '⌘R',
    upload: '⌘U',
    download: '⌘D',
    back: '⌘[',
    forward: '⌘]',
    path: '⌘L',
    cut: '⌘X',
    paste: '⌘V',
    find: '⌘F',
  });
  assert.equal(paneKeyLabels(false).back, 'Alt+←');
  assert.equal(paneKeyLabels(false).cut, 'Ctrl+X');
  // Cut and paste (#26 item 6): Ctrl or ⌘ with X / V, in either pane.
  assert.deepEqual(paneCommand({ key: 'x', ctrlKey: true }, 'local'), { kind: 'cut' });
  assert.deepEqual(paneCommand({ key: 'v', ctrlKey: true }, 'remote'), { kind: 'paste' });
  assert.deepEqual(paneCommand({ key: 'v', metaKey: true }, 'remote', true), { kind: 'paste' });
  assert.equal(paneCommand({ key: 'v', ctrlKey: true, shiftKey: true }, 'remote'), null);
  assert.equal(paneKeyLabels(false).upload, 'Ctrl+U');
  assert.ok(isMacPlatform({ platform: 'MacIntel' }) && !isMacPlatform({ platform: 'Win32' }) && !isMacPlatform({}));
});

test('find: F3 and Ctrl+F (⌘F) in the remote pane, nothing in the local one; typed letters still filter', () => {
  assert.deepEqual(paneCommand({ key: 'F3' }, 'remote'), { kind: 'find' });
  assert.deepEqual(paneCommand({ key: 'f', ctrlKey: true }, 'remote'), { kind: 'find' });
  assert.deepEqual(paneCommand({ key: 'F', ctrlKey: true, shiftKey: true }, 'remote'), { kind: 'find' });
  assert.deepEqual(paneCommand({ key: 'f', metaKey: true }, 'remote', true), { kind: 'find' });
  assert.equal(paneCommand({ key: 'F3' }, 'local'), null);
  assert.equal(paneCommand({ key: 'f', ctrlKey: true }, 'local'), null);
  assert.deepEqual(paneCommand({ key: 'f' }, 'remote'), { kind: 'filter', text: 'f' });
  assert.equal(paneKeyLabels(false).find, 'F3, Ctrl+F');
});
