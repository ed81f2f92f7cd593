/** The editor command of Settings: split into words as a shell would, `{file}` placed, the program started. */
import test from 'node:test';
import assert from 'node:assert/strict';
import { editorArgv, launchEditor, splitCommand } from './launch';

test('an editor command splits into words like a shell, without one', () => {
  assert.deepEqual(splitCommand('code -w'), ['code', '-w']);
  assert.deepEqual(splitCommand(`"/Applications/Sublime Text.app/x" --wait  'a b' c\\ d ""`), [
    '/Applications/Sublime Text.app/x',
    '--wait',
    'a b',
    'c d',
    '',
  ]);
  assert.deepEqual(splitCommand('vim "say \\"hi\\"" $HOME;rm'), ['vim', 'say "hi"', '$HOME;rm'], 'nothing is expanded');
  assert.throws(() => splitCommand('  '), /empty/);
  assert.throws(() => splitCommand('gvim "-f'), /unclosed "/);
});

test('{file} is replaced where it stands, else the file is the last word', () => {
  assert.deepEqual(editorArgv('gvim -f', '/d/a b.txt'), ['gvim', '-f', '/d/a b.txt']);
  assert.deepEqual(editorArgv('emacsclient +1 {file} --no-wait', '/d/x'), ['emacsclient', '+1', '/d/x', '--no-wait']);
  assert.deepEqual(editorArgv('open --args=--file={file}', '/d/x'), ['open', '--args=--file=/d/x']);
});

test('a program that cannot start is a USAGE error naming it', async () => {
  await assert.rejects(
    launchEditor('/nonexistent/editor -w', '/tmp/x'),
    (e: Error & { code?: string }) =>
      e.code === 'USAGE' && /Cannot start the editor \/nonexistent\/editor: .*ENOENT/.test(e.message),
  );
});
