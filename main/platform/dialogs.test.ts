/** main/platform/dialogs.ts over a mocked electron: the options Electron's open dialog gets, and its answers. */
import test from 'node:test';
import assert from 'node:assert/strict';
import { installElectronMock } from '../test/mockElectron';

type Answer = { canceled: boolean; filePaths: string[] };
const electron = installElectronMock() as ReturnType<typeof installElectronMock> & Record<string, unknown>;
// This module's own electron surface, added here so mockElectron.ts stays as other main/ tests use it.
const fake = {
  calls: [] as Array<{ parent: unknown; options: unknown }>,
  answers: [] as Answer[],
  /** Electron's two forms: (window, options) or (options); the queued answers in order, else cancelled. */
  showOpenDialog(a: unknown, b?: unknown): Promise<Answer> {
    fake.calls.push(b === undefined ? { parent: undefined, options: a } : { parent: a, options: b });
    return Promise.resolve(fake.answers.shift() ?? { canceled: true, filePaths: [] });
  },
};
electron.dialog = fake;
const { electronFileDialogs } = require('./dialogs') as typeof import('./dialogs');

test('openFile: modal to the window, hidden files shown, the chosen path or null when cancelled', async () => {
  const win = { id: 1 };
  const dialogs = electronFileDialogs(() => win as never);
  fake.answers.push({ canceled: false, filePaths: ['/home/me/.ssh/id_ed25519'] }, { canceled: true, filePaths: [] });
  assert.equal(
    await dialogs.openFile({ title: 'Choose a private key', defaultPath: '/home/me/.ssh', showHidden: true }),
    '/home/me/.ssh/id_ed25519',
  );
  assert.equal(
    await dialogs.openFile({ title: 'Choose a private key', defaultPath: '/home/me/.ssh', showHidden: false }),
    null,
  );
  assert.deepEqual(fake.calls, [
    {
      parent: win,
      options: {
        title: 'Choose a private key',
        defaultPath: '/home/me/.ssh',
        properties: ['openFile', 'dontAddToRecent', 'showHiddenFiles'],
      },
    },
    {
      parent: win,
      options: {
        title: 'Choose a private key',
        defaultPath: '/home/me/.ssh',
        properties: ['openFile', 'dontAddToRecent'],
      },
    },
  ]);
});

test('openFile without a window opens an unparented dialog', async () => {
  fake.calls.length = 0;
  fake.answers.push({ canceled: false, filePaths: ['/k'] });
  assert.equal(
    await electronFileDialogs(() => null).openFile({ title: 't', defaultPath: '/', showHidden: true }),
    '/k',
  );
  assert.equal(fake.calls[0].parent, undefined);
});
