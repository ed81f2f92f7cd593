import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startSsh2SftpServer, type KeyboardRoundScript } from '../../../e2e/fixtures/ssh2SftpServer';
import { makeTempDir, removeDir } from '../../../e2e/fixtures/tmp';
import { SluiceError } from '../errors';
import type { EngineOptions } from '../engine/engine';
import { openPool } from '../test/helpers';
import { runTransfer } from '../transfer/run';
import { isPasswordPrompt, passwordAnswers, type KeyboardRound } from './keyboardInteractive';

/** A password round, then a one-time code round (echoed, as some PAM modules ask it). */
const PASSWORD_THEN_CODE: KeyboardRoundScript[] = [
  {
    name: 'Sluice test login',
    instructions: 'Two steps.',
    prompts: [{ prompt: 'Password: ', echo: false }],
    answers: ['s3cret'],
  },
  { prompts: [{ prompt: 'Verification code: ', echo: true }], answers: ['654321'] },
];

/** Options for `srv` with no key, no agent and a known_hosts file trusting it; `o` adds the login questions. */
function optionsFor(
  srv: { host: string; port: number; knownHostsLine(): string },
  dir: string,
  o: Partial<EngineOptions> = {},
): EngineOptions {
  const kh = path.join(dir, 'known_hosts');
  fs.writeFileSync(kh, `${srv.knownHostsLine()}\n`);
  return {
    host: srv.host,
    port: srv.port,
    username: 'alice',
    hostKeyMode: 'strict',
    knownHostsPaths: { readPaths: [kh], writePath: kh },
    connections: 1,
    channels: 1,
    ...o,
    auth: { identityFiles: [], useAgent: false, home: dir, env: {}, ...o.auth },
  };
}

test('isPasswordPrompt: the account password, not a code, a token or a new password', () => {
  for (const p of ['Password: ', "alice@host's password: ", 'PASSWORD:', 'Enter your password'])
    assert.equal(isPasswordPrompt(p), true, p);
  for (const p of [
    'Verification code: ',
    'One-time password (OTP): ',
    'Passcode or option (1-3): ',
    'New password: ',
    'Retype new password: ',
    'Token: ',
    'Password again: ',
    'Username: ',
    '',
  ])
    assert.equal(isPasswordPrompt(p), false, p);
});

test('passwordAnswers: the password answers the first password prompt of a login once, nothing else', () => {
  const s = { password: 'pw', passwordUsed: false, rounds: 0 };
  assert.deepEqual(
    passwordAnswers(
      [
        { prompt: 'Verification code: ', echo: false },
        { prompt: 'Password: ', echo: false },
        { prompt: 'Password: ', echo: false },
      ],
      s,
    ),
    [undefined, 'pw', undefined],
  );
  assert.equal(s.passwordUsed, true);
  assert.deepEqual(passwordAnswers([{ prompt: 'Password: ', echo: false }], s), [undefined], 'not a second time');
  assert.deepEqual(
    passwordAnswers([{ prompt: 'Password: ', echo: false }], { password: undefined, passwordUsed: false, rounds: 0 }),
    [undefined],
  );
});

test('a password and then a one-time code: the given password answers only the password prompt; the code prompt reaches the prompter with its text and echo flag', async () => {
  const srv = await startSsh2SftpServer({ keyboardInteractive: PASSWORD_THEN_CODE });
  const dir = await makeTempDir('sluice-kbd-');
  try {
    const rounds: KeyboardRound[] = [];
    const pool = await openPool(
      optionsFor(srv, dir, {
        auth: { password: 's3cret' },
        askKeyboard: async (round) => {
          rounds.push(round);
          return ['654321'];
        },
      }),
    );
    try {
      assert.equal(pool.authMethod, 'keyboard-interactive');
      assert.deepEqual(rounds, [
        { name: '', instructions: '', prompts: [{ prompt: 'Verification code: ', echo: true }], again: false },
      ]);
      assert.deepEqual(srv.keyboardAnswers, [['s3cret'], ['654321']], 'the password went to the password prompt only');
    } finally {
      await pool.close();
    }
  } finally {
    await srv.stop();
    await removeDir(dir);
  }
});

test("without a password every prompt is asked, with the round's name and instruction; a wrong code is asked again and the password is not resent", async () => {
  const srv = await startSsh2SftpServer({ keyboardInteractive: PASSWORD_THEN_CODE });
  const dir = await makeTempDir('sluice-kbd-');
  try {
    const rounds: KeyboardRound[] = [];
    const codes = ['000000', '654321'];
    const pool = await openPool(
      optionsFor(srv, dir, {
        askKeyboard: async (round) => {
          rounds.push(round);
          return round.prompts.map((p) => (isPasswordPrompt(p.prompt) ? 's3cret' : (codes.shift() ?? '')));
        },
      }),
    );
    await pool.close();
    assert.deepEqual(
      rounds.map((r) => [r.name, r.instructions, r.prompts.map((p) => `${p.prompt}|${p.echo}`).join(), r.again]),
      [
        ['Sluice test login', 'Two steps.', 'Password: |false', false],
        ['', '', 'Verification code: |true', false],
        ['Sluice test login', 'Two steps.', 'Password: |false', true],
        ['', '', 'Verification code: |true', false],
      ],
    );
    assert.deepEqual(srv.keyboardAnswers, [['s3cret'], ['000000'], ['s3cret'], ['654321']]);
  } finally {
    await srv.stop();
    await removeDir(dir);
  }
});

test('a prompt no one can answer (no prompter, as --batch) fails AUTH_FAILED naming it, after the password answered its own prompt', async () => {
  const srv = await startSsh2SftpServer({ keyboardInteractive: PASSWORD_THEN_CODE });
  const dir = await makeTempDir('sluice-kbd-');
  try {
    await assert.rejects(openPool(optionsFor(srv, dir, { auth: { password: 's3cret' } })), (e: unknown) => {
      assert.ok(e instanceof SluiceError);
      assert.equal(e.code, 'AUTH_FAILED');
      assert.match(e.message, /"Verification code:" \(keyboard-interactive\)/);
      return true;
    });
    assert.deepEqual(srv.keyboardAnswers, [['s3cret']], 'the code prompt was not answered with the password');
  } finally {
    await srv.stop();
    await removeDir(dir);
  }
});

test("a wrong password is asked again until it is right; at the server's limit of tries the login fails AUTH_FAILED", async () => {
  const srv = await startSsh2SftpServer({ password: 'right', maxAuthTries: 3 });
  const dir = await makeTempDir('sluice-pw-');
  try {
    const asked: boolean[] = [];
    const pool = await openPool(
      optionsFor(srv, dir, {
        auth: { password: 'wrong-1' },
        askPassword: async (again) => {
          asked.push(again);
          return asked.length === 1 ? 'wrong-2' : 'right';
        },
      }),
    );
    await pool.close();
    assert.deepEqual(asked, [true, true], 'asked again after each refusal');
    assert.deepEqual(srv.passwordAttempts, ['wrong-1', 'wrong-2', 'right']);

    srv.passwordAttempts.length = 0;
    const always: boolean[] = [];
    await assert.rejects(
      openPool(
        optionsFor(srv, dir, {
          askPassword: async (again) => {
            always.push(again);
            return 'wrong';
          },
        }),
      ),
      (e: unknown) => {
        assert.ok(e instanceof SluiceError);
        assert.equal(e.code, 'AUTH_FAILED');
        assert.match(e.message, /closed the connection after 3 password or keyboard-interactive tries/);
        return true;
      },
    );
    assert.deepEqual(always, [false, true, true]);
    assert.equal(srv.passwordAttempts.length, 3, "the server's limit ended it");
  } finally {
    await srv.stop();
    await removeDir(dir);
  }
});

test('the time a person takes to answer does not count against the connect timeout', async () => {
  const srv = await startSsh2SftpServer({ keyboardInteractive: '123456' });
  const dir = await makeTempDir('sluice-kbd-');
  try {
    // The prompter answers later than readyTimeoutMs: a person reading a code off their phone.
    const pool = await openPool(
      optionsFor(srv, dir, {
        readyTimeoutMs: 1500,
        askKeyboard: () => new Promise((resolve) => setTimeout(() => resolve(['123456']), 2500)),
      }),
    );
    assert.equal(pool.authMethod, 'keyboard-interactive');
    await pool.close();
  } finally {
    await srv.stop();
    await removeDir(dir);
  }
});

test('a keyboard-interactive login widens one connection instead of asking again per connection', async () => {
  const srv = await startSsh2SftpServer({ keyboardInteractive: '123456' });
  const dir = await makeTempDir('sluice-kbd-');
  try {
    let asked = 0;
    const pool = await openPool(
      optionsFor(srv, dir, {
        askKeyboard: async (round) => {
          asked++;
          assert.deepEqual(round.prompts, [{ prompt: 'Verification code: ', echo: false }]);
          return ['123456'];
        },
        connections: 3,
        channels: 2,
      }),
    );
    try {
      assert.equal(pool.authMethod, 'keyboard-interactive');
      assert.equal(asked, 1);
      assert.equal(srv.connections, 1, 'only one SSH connection was made');
      assert.equal(pool.lanes().length, 6, 'the one connection carries connections × channels SFTP channels');
      const src = path.join(dir, 'f.bin');
      fs.writeFileSync(src, Buffer.alloc(300_000, 7));
      const report = await runTransfer(pool, {
        id: 'k',
        direction: 'put',
        sources: [src],
        dest: srv.root,
        recursive: false,
      });
      assert.equal(report.failed.length, 0);
      assert.deepEqual(fs.readFileSync(path.join(srv.root, 'f.bin')), fs.readFileSync(src));
    } finally {
      await pool.close();
    }
  } finally {
    await srv.stop();
    await removeDir(dir);
  }
});
