import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuthTrace } from './authTrace';

test('AuthTrace: -v notes per attempt, and a failure naming what was tried and what the server accepts', () => {
  const notes: string[] = [];
  const t = new AuthTrace((m) => notes.push(m));
  t.answered(null, null);
  t.offered('ssh-agent');
  t.listedAgentKeys(['ssh-ed25519 SHA256:abc alice@laptop']);
  t.answered(null, false);
  t.offered('key /k (ssh-ed25519)');
  t.answered(['publickey', 'password'], false);
  for (let i = 0; i < 3; i++) {
    t.offered('password');
    t.answered(['publickey', 'password'], false);
  }
  assert.deepEqual(notes.slice(0, 5), [
    'auth: trying ssh-agent',
    'auth: ssh-agent offers 1 key: ssh-ed25519 SHA256:abc alice@laptop',
    'auth: ssh-agent refused',
    'auth: trying key /k (ssh-ed25519)',
    'auth: key /k (ssh-ed25519) refused; the server accepts: publickey, password',
  ]);
  const e = t.failure('root@h:22');
  assert.equal(e.code, 'AUTH_FAILED');
  assert.equal(
    e.message,
    'authentication failed for root@h:22: every method offered was refused (tried: ssh-agent with 1 key: ' +
      'ssh-ed25519 SHA256:abc alice@laptop; key /k (ssh-ed25519); password (3 times)); the server accepts: publickey, password',
  );
});

test('AuthTrace: nothing offered says what would have been; partial success and success are noted', () => {
  const none = new AuthTrace();
  none.answered(['publickey', 'password'], false);
  assert.equal(
    none.failure('u@h:22').message,
    'authentication failed for u@h:22: nothing was offered; the server accepts: publickey, password; ' +
      'no key to offer (-i FILE, ~/.ssh/id_ed25519, id_ecdsa, id_rsa, or ssh-agent); no password to offer (SLUICE_PASSWORD, or a terminal without --batch)',
  );
  const notes: string[] = [];
  const two = new AuthTrace((m) => notes.push(m));
  two.offered('key /k (ssh-ed25519)');
  two.answered(['keyboard-interactive'], true);
  two.offered('keyboard-interactive');
  two.succeeded();
  assert.deepEqual(notes, [
    'auth: trying key /k (ssh-ed25519)',
    'auth: key /k (ssh-ed25519) accepted, and one more method is needed; the server accepts: keyboard-interactive',
    'auth: trying keyboard-interactive',
    'auth: keyboard-interactive accepted',
  ]);
});
