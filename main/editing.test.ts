/** main/editing.ts with a mocked electron: the default application through shell.openPath; the quit question. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EditView } from '../app/common/model/edit';
import { installElectronMock } from './test/mockElectron';

type Box = { parent: unknown; options: { message: string; detail?: string; buttons?: string[] } };
const electron = installElectronMock() as ReturnType<typeof installElectronMock> & Record<string, unknown>;
// This module's own electron surface, added here so mockElectron.ts stays as other main/ tests use it.
const dialog = {
  boxes: [] as Box[],
  response: 0,
  /** Electron's two forms: (window, options) or (options); answers `response`. */
  showMessageBox(a: unknown, b?: unknown): Promise<{ response: number; checkboxChecked: boolean }> {
    dialog.boxes.push((b === undefined ? { parent: undefined, options: a } : { parent: a, options: b }) as Box);
    return Promise.resolve({ response: dialog.response, checkboxChecked: false });
  },
};
electron.dialog = dialog;
const { openInDefaultApp, QuitGuard } = require('./editing') as typeof import('./editing');

const edit = (n: number, over: Partial<EditView> = {}): EditView => ({
  editId: `e${n}`,
  siteId: 's',
  remotePath: `/srv/f${n}.txt`,
  localPath: `/d/edits/e${n}/f${n}.txt`,
  state: 'failed',
  unsent: true,
  ...over,
});

test('a private copy opens through shell.openPath; its error comes back as the answer', async () => {
  electron.shell.openedPaths.length = 0;
  assert.equal(await openInDefaultApp('/d/edits/e1/notes.txt'), '');
  electron.shell.openPathAnswer = 'No application knows how to open this file';
  assert.equal(await openInDefaultApp('/d/x.bin'), 'No application knows how to open this file');
  electron.shell.openPathAnswer = '';
  assert.deepEqual(electron.shell.openedPaths, ['/d/edits/e1/notes.txt', '/d/x.bin']);
});

test('nothing unsent: quitting goes on without a question', () => {
  dialog.boxes.length = 0;
  const guard = new QuitGuard(
    () => [],
    () => null,
  );
  assert.equal(
    guard.mayQuit(() => assert.fail('not asked')),
    true,
  );
  assert.equal(dialog.boxes.length, 0);
});

test('an unsent save asks once; "Keep Sluice open" keeps it, "Quit anyway" quits and is not asked again', async () => {
  dialog.boxes.length = 0;
  let pending = [edit(1), edit(2, { state: 'uploading', unsent: false })];
  const win = { id: 'main window' };
  const guard = new QuitGuard(
    () => pending,
    () => win as never,
  );
  let quits = 0;
  dialog.response = 0;
  assert.equal(
    guard.mayQuit(() => quits++),
    false,
    'the quit waits for the answer',
  );
  assert.equal(
    guard.mayQuit(() => quits++),
    false,
  );
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(dialog.boxes.length, 1, 'one question for two quit attempts');
  const box = dialog.boxes[0];
  assert.equal(box.parent, win, 'modal to the window');
  assert.equal(box.options.message, '2 edited files have saves that are not on the server yet');
  assert.equal(
    box.options.detail,
    '/srv/f1.txt (failed, not uploaded)\n/srv/f2.txt (uploading)\n\n' +
      'If you quit now, they are sent the next time the site connects.',
  );
  assert.deepEqual(box.options.buttons, ['Keep Sluice open', 'Quit anyway']);
  assert.equal(quits, 0, 'kept open');

  pending = [1, 2, 3, 4, 5, 6, 7].map((n) => edit(n, { state: 'conflict' }));
  dialog.response = 1;
  assert.equal(
    guard.mayQuit(() => quits++),
    false,
  );
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(quits, 1, 'quit anyway');
  assert.match(dialog.boxes[1].options.detail ?? '', /\/srv\/f5\.txt \(conflict, not uploaded\)\nand 2 more\n/);
  assert.equal(
    guard.mayQuit(() => quits++),
    true,
    'not asked again',
  );
  assert.equal(dialog.boxes.length, 2);
});
