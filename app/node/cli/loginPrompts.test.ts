import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { SluiceError } from '../errors';
import { TRY_AGAIN, batchKeyboardRefusal, loginAsks } from './loginPrompts';
import { terminalPrompter, type PromptInput } from './prompt';

/** A fake TTY whose output is recorded; typing goes to `input`. */
function fakeTerminal(): { input: PromptInput & PassThrough; output: PassThrough; written: () => string } {
  const input = new PassThrough() as PassThrough & PromptInput;
  input.isTTY = true;
  input.isRaw = false;
  input.setRawMode = (mode: boolean) => {
    input.isRaw = mode;
    return input;
  };
  const output = new PassThrough();
  let text = '';
  output.on('data', (d: Buffer) => {
    text += d.toString();
  });
  return { input, output, written: () => text };
}

const spec = { user: 'alice', host: 'files.example.com', port: 2222 };

test('a refused password is asked again on the terminal, OpenSSH-style', async () => {
  const term = fakeTerminal();
  const asks = loginAsks(spec, terminalPrompter(term), term.output);
  const first = asks.askPassword!(false);
  term.input.write('wrong\r');
  assert.equal(await first, 'wrong');
  const again = asks.askPassword!(true);
  term.input.write('right\r');
  assert.equal(await again, 'right');
  assert.equal(
    term.written(),
    `alice@files.example.com's password: \n${TRY_AGAIN}\nalice@files.example.com's password: \n`,
  );
  assert.ok(!term.written().includes('wrong') && !term.written().includes('right'), 'passwords are not echoed');
});

test('a keyboard-interactive round shows its name and instruction, hides a hidden prompt and echoes an echoed one', async () => {
  const term = fakeTerminal();
  const asks = loginAsks(spec, terminalPrompter(term), term.output);
  const answers = asks.askKeyboard!({
    name: 'Duo two-factor',
    instructions: 'Answer both.\u001b[31m',
    again: true,
    prompts: [
      { prompt: 'Password: ', echo: false },
      { prompt: 'Verification code: ', echo: true },
    ],
  });
  term.input.write('s3cret\r');
  term.input.write('654321\r');
  assert.deepEqual(await answers, ['s3cret', '654321']);
  assert.equal(
    term.written(),
    `${TRY_AGAIN}\nDuo two-factor\nAnswer both.\\x1b[31m\nPassword: \nVerification code: 654321\n`,
  );
});

test('--batch: a keyboard-interactive prompt is refused with AUTH_FAILED naming it; an informational round needs no answer', async () => {
  const asks = loginAsks(spec, undefined);
  assert.equal(asks.askPassword, undefined);
  assert.deepEqual(await asks.askKeyboard!({ name: 'Welcome', instructions: '', prompts: [], again: false }), []);
  await assert.rejects(
    asks.askKeyboard!({
      name: '',
      instructions: '',
      prompts: [{ prompt: 'Verification code: ', echo: false }],
      again: false,
    }),
    (e: unknown) => {
      assert.ok(e instanceof SluiceError);
      assert.equal(e.code, 'AUTH_FAILED');
      assert.equal(
        e.message,
        'authentication failed for alice@files.example.com:2222: the server asks "Verification code:" (keyboard-interactive), ' +
          'which cannot be answered without a terminal (--batch)',
      );
      return true;
    },
  );
  const pw = batchKeyboardRefusal(spec, {
    name: '',
    instructions: '',
    prompts: [{ prompt: 'Password: ', echo: false }],
    again: true,
  });
  assert.match(pw.message, /refused the answer and asks again "Password:" .*give the password in SLUICE_PASSWORD$/);
});

test('the password is asked at most NumberOfPasswordPrompts times (3 by default), keyboard-interactive rounds included', async () => {
  const term = fakeTerminal();
  const asks = loginAsks(spec, terminalPrompter(term), term.output);
  for (const again of [false, true, true]) {
    const answer = asks.askPassword!(again);
    term.input.write('wrong\r');
    assert.equal(await answer, 'wrong');
  }
  assert.equal(await asks.askPassword!(true), undefined, 'a 4th question is not asked');
  assert.equal(term.written().match(/password: /g)?.length, 3);
  await assert.rejects(
    asks.askKeyboard!({ name: '', instructions: '', prompts: [{ prompt: 'Password: ', echo: false }], again: true }),
    /authentication failed for alice@files\.example\.com:2222: 3 answers refused \(NumberOfPasswordPrompts\)/,
  );
  const one = loginAsks(spec, terminalPrompter(term), term.output, 1);
  const first = one.askPassword!(false);
  term.input.write('x\r');
  assert.equal(await first, 'x');
  assert.equal(await one.askPassword!(true), undefined, 'NumberOfPasswordPrompts 1 from ssh_config');
});
