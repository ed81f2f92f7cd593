/**
 * main/dragOut.ts with a mocked electron: the files the service fetched are given to webContents.startDrag with the
 * system's icon of the first; a file outside the drag cache, no window, or a closed one start no drag.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { installElectronMock } from './test/mockElectron';

const electron = installElectronMock() as ReturnType<typeof installElectronMock> & Record<string, unknown>;
// This module's own electron surface, added here so mockElectron.ts stays as other main/ tests use it.
const iconsAsked: string[] = [];
electron.app = {
  getFileIcon: (file: string) => {
    iconsAsked.push(file);
    return Promise.resolve({ icon: file });
  },
};
const { startDragOf } = require('./dragOut') as typeof import('./dragOut');

interface Drag {
  file: string;
  files: string[];
  icon: unknown;
}

function fakeWindow(destroyed = false) {
  const drags: Drag[] = [];
  const win = { isDestroyed: () => destroyed, webContents: { startDrag: (d: Drag) => drags.push(d) } };
  return { win: win as unknown as import('electron').BrowserWindow, drags };
}

test('the fetched files go to startDrag, the first file giving the icon', async () => {
  const { win, drags } = fakeWindow();
  const start = startDragOf(() => win, '/home/u/.sluice/drag-out');
  const files = ['/home/u/.sluice/drag-out/a1/notes.txt', '/home/u/.sluice/drag-out/a1/site'];
  assert.equal(await start(files), true);
  assert.deepEqual(drags, [{ file: files[0], files, icon: { icon: files[0] } }]);
  assert.deepEqual(iconsAsked, [files[0]]);
});

test('a file outside the cache, no window, a closed window or nothing to drag: no drag', async () => {
  const { win, drags } = fakeWindow();
  const start = startDragOf(() => win, '/home/u/.sluice/drag-out');
  assert.equal(await start(['/home/u/.sluice/drag-out/a1/x', '/etc/passwd']), false);
  assert.equal(await start(['/home/u/.sluice/drag-out/../secrets.json']), false);
  assert.equal(await start([]), false);
  assert.equal(drags.length, 0);
  assert.equal(await startDragOf(() => null, '/c')(['/c/x']), false);
  const closed = fakeWindow(true);
  assert.equal(await startDragOf(() => closed.win, '/c')(['/c/x']), false);
  assert.equal(closed.drags.length, 0);
});
