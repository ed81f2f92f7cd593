import test from 'node:test';
import assert from 'node:assert/strict';
import type { AuthPrompt } from '../../app/common/ipc/contract';
import { sessionStateText } from '../format/format';
import { initialAppState, reduceApp } from './appState';
import { authView, fieldLabel } from './authModel';

function prompt(patch: Partial<AuthPrompt>): AuthPrompt {
  return {
    promptId: 'a1',
    siteId: 's1',
    host: 'files.example.com',
    port: 22,
    user: 'alice',
    kind: 'password',
    retry: false,
    prompts: [{ prompt: 'Password', echo: false }],
    ...patch,
  };
}

test('the password dialog: titled for the account, hidden field, "wrong password" only on a retry', () => {
  const first = authView(prompt({}));
  assert.equal(first.title, 'Password for alice@files.example.com');
  assert.deepEqual(first.fields, [{ label: 'Password', type: 'password' }]);
  assert.equal(first.retryText, undefined);
  assert.equal(first.remember, false);
  assert.equal(authView(prompt({ retry: true })).retryText, 'Wrong password, try again.');
});

test("a keyboard-interactive round: the server's name and instruction, one field per prompt, shown only when echo is set", () => {
  const v = authView(
    prompt({
      kind: 'keyboard-interactive',
      port: 2222,
      name: 'Duo',
      instructions: 'Approve or type a code.',
      prompts: [
        { prompt: 'Password: ', echo: false },
        { prompt: 'Verification code: ', echo: true },
      ],
    }),
  );
  assert.equal(v.title, 'Login to alice@files.example.com');
  assert.equal(v.explanation, 'Duo\nApprove or type a code.');
  assert.deepEqual(v.fields, [
    { label: 'Password', type: 'password' },
    { label: 'Verification code', type: 'text' },
  ]);
  assert.equal(
    authView(prompt({ kind: 'keyboard-interactive', prompts: [{ prompt: 'Code:', echo: false }] })).explanation,
    'The server alice@files.example.com asks:',
  );
  assert.equal(fieldLabel('  : '), 'Answer');
});

test('the passphrase dialog names the key file and offers Remember when the service allows it', () => {
  const v = authView(
    prompt({
      kind: 'passphrase',
      keyPath: '/home/alice/.ssh/id_ed25519',
      canRemember: true,
      retry: true,
      prompts: [{ prompt: 'Passphrase', echo: false }],
    }),
  );
  assert.equal(v.title, 'Passphrase for key');
  assert.match(v.explanation, /\/home\/alice\/\.ssh\/id_ed25519 is encrypted/);
  assert.equal(v.retryText, 'Wrong passphrase, try again.');
  assert.equal(v.remember, true);
});

test('login prompts queue in the state and leave it when answered or closed', () => {
  let s = reduceApp(initialAppState, { type: 'event', event: 'auth.prompt', payload: prompt({ promptId: 'a1' }) });
  s = reduceApp(s, { type: 'event', event: 'auth.prompt', payload: prompt({ promptId: 'a2', retry: true }) });
  assert.equal(
    reduceApp(s, { type: 'event', event: 'auth.prompt', payload: prompt({ promptId: 'a2' }) }),
    s,
    'a repeat is ignored',
  );
  assert.deepEqual(
    s.authPrompts.map((p) => p.promptId),
    ['a1', 'a2'],
  );
  s = reduceApp(s, { type: 'promptAnswered', promptId: 'a1' });
  s = reduceApp(s, { type: 'event', event: 'prompt.closed', payload: { promptId: 'a2' } });
  assert.deepEqual(s.authPrompts, []);
});

test('the status bar says which reconnect attempt is under way', () => {
  assert.equal(sessionStateText({ state: 'reconnecting', attempt: 2 }), 'reconnecting (attempt 2)');
  assert.equal(sessionStateText({ state: 'connected' }), 'connected');
});
