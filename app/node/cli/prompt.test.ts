import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { askHostKey, terminalPrompter, type PromptInput } from './prompt';
import { SluiceError } from '../errors';

/** A fake TTY: a PassThrough with isTTY and a recorded setRawMode. */
function fakeTerminal(isTTY = true): {
  input: PromptInput & PassThrough;
  output: PassThrough;
  written: () => string;
  rawCalls: boolean[];
} {
  const input = new PassThrough() as PassThrough & PromptInput;
  const rawCalls: boolean[] = [];
  input.isTTY = isTTY;
  input.isRaw = false;
  if (isTTY) {
    input.setRawMode = (mode: boolean) => {
      rawCalls.push(mode);
      input.isRaw = mode;
      return input;
    };
  }
  const output = new PassThrough();
  let text = '';
  output.on('data', (d: Buffer) => {
    text += d.toString();
  });
  return { input, output, written: () => text, rawCalls };
}

function aborted(e: unknown): boolean {
  return e instanceof SluiceError && e.code === 'ABORTED';
}

test('secret reads hidden input in raw mode and restores the terminal', async () => {
  const term = fakeTerminal();
  const p = terminalPrompter(term);
  const answer = p.secret('Password: ');
  term.input.write('hunter2\r');
  assert.equal(await answer, 'hunter2');
  assert.deepEqual(term.rawCalls, [true, false]);
  assert.equal(term.written(), 'Password: \n');
  assert.ok(!term.written().includes('hunter2'), 'no echo');
});

test('secret handles backspace, Ctrl-U, escape sequences and split UTF-8', async () => {
  const term = fakeTerminal();
  const p = terminalPrompter(term);
  const a = p.secret('? ');
  term.input.write('abx\u007fc\r');
  assert.equal(await a, 'abc');
  const b = p.secret('? ');
  term.input.write('junk\u0015p\u001b[Dw\u001b[1;5C\r');
  assert.equal(await b, 'pw');
  const c = p.secret('? ');
  const e = Buffer.from('é✓\r');
  term.input.write(e.subarray(0, 1));
  term.input.write(e.subarray(1, 3));
  term.input.write(e.subarray(3));
  assert.equal(await c, 'é✓');
});

test('answers typed ahead in one chunk (tmux send-keys) go to the next prompts, CRLF counts once', async () => {
  const term = fakeTerminal();
  const p = terminalPrompter(term);
  const first = p.secret('1: ');
  term.input.write('first\rsecond\r\nthird\n');
  assert.equal(await first, 'first');
  assert.equal(await p.secret('2: '), 'second');
  assert.equal(await p.secret('3: '), 'third');
});

test('concurrent prompts are asked one after the other', async () => {
  const term = fakeTerminal();
  const p = terminalPrompter(term);
  const a = p.secret('A: ');
  const b = p.secret('B: ');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(term.written(), 'A: ', 'B is not shown while A is pending');
  term.input.write('one\r');
  assert.equal(await a, 'one');
  term.input.write('two\r');
  assert.equal(await b, 'two');
  assert.equal(term.written(), 'A: \nB: \n');
});

test('Ctrl-C, Ctrl-D and end of input abort; unterminated input at EOF is the answer', async () => {
  const term = fakeTerminal();
  const p = terminalPrompter(term);
  const c = p.secret('? ');
  term.input.write('abc\u0003');
  await assert.rejects(c, aborted);
  assert.deepEqual(term.rawCalls, [true, false], 'raw mode restored after Ctrl-C');
  const d = p.secret('? ');
  term.input.write('\u0004');
  await assert.rejects(d, aborted);

  const piped = fakeTerminal(false);
  const q = terminalPrompter(piped);
  const last = q.secret('? ');
  piped.input.end('no-newline');
  assert.equal(await last, 'no-newline');
  await assert.rejects(q.secret('? '), aborted);
  assert.deepEqual(piped.rawCalls, [], 'no raw mode on a pipe');
});

test('confirm: yes/no, default on Enter, re-asks on other answers', async () => {
  const term = fakeTerminal();
  const p = terminalPrompter(term);
  const a = p.confirm('Continue?');
  term.input.write('y\r');
  assert.equal(await a, true);
  assert.match(term.written(), /Continue\? \[y\/N\] y\n/, 'visible answers are echoed');
  const b = p.confirm('Continue?');
  term.input.write('\r');
  assert.equal(await b, false);
  const c = p.confirm('Continue?', true);
  term.input.write('\r');
  assert.equal(await c, true);
  const d = p.confirm('Continue?');
  term.input.write('maybe\rYES\r');
  assert.equal(await d, true);
  assert.match(term.written(), /Please answer yes or no/);
  const e = p.confirm('Continue?', true);
  term.input.write('x\rx\rx\r');
  assert.equal(await e, true, 'three invalid answers give the default');
});

test('choose: by number, name or unique prefix; default on Enter; aborts after 3 invalid answers', async () => {
  const choices = ['accept-once', 'accept-and-save', 'reject'] as const;
  const term = fakeTerminal();
  const p = terminalPrompter(term);
  const pick = async (typed: string, def?: (typeof choices)[number]): Promise<string> => {
    const r = p.choose('Host key?', [...choices], def);
    term.input.write(typed);
    return r;
  };
  assert.equal(await pick('2\r'), 'accept-and-save');
  assert.equal(await pick('REJ\r'), 'reject');
  assert.equal(await pick('accept-once\r'), 'accept-once');
  assert.equal(await pick('\r', 'reject'), 'reject');
  assert.equal(await pick('acc\r4\rreject\r'), 'reject', '"acc" is ambiguous, 4 is out of range');
  await assert.rejects(pick('x\ry\rz\r'), aborted);
  assert.equal(await pick('x\ry\rz\r', 'reject'), 'reject');
  assert.match(term.written(), /1\) accept-once {2}2\) accept-and-save {2}3\) reject/);
});

test('choose: aliases are accepted when typed in full, without being listed', async () => {
  const term = fakeTerminal();
  const p = terminalPrompter(term);
  const pick = async (typed: string): Promise<string> => {
    const r = p.choose('Key?', ['once', 'save', 'no'], 'no', { yes: 'save' });
    term.input.write(typed);
    return r;
  };
  assert.equal(await pick('yes\r'), 'save');
  assert.equal(await pick('YES\r'), 'save');
  assert.equal(await pick('ye\r\r'), 'no', 'an alias is not matched by prefix; Enter then gives the default');
  assert.match(term.written(), /\n {2}1\) once {2}2\) save {2}3\) no \(default\)\n/, 'the alias is not listed');
  assert.match(term.written(), /Please answer one of: once, save, no\.\n/);
});

test('askHostKey: yes (listed), y and save save the key; once, no and Enter keep working', async () => {
  const identity = { host: 'files.example.com', port: 2222, keyType: 'ssh-ed25519', fingerprint: 'SHA256:abc' };
  const answers: Array<[string, string]> = [
    ['yes\r', 'accept-save'],
    ['y\r', 'accept-save'],
    ['Y\r', 'accept-save'],
    ['save\r', 'accept-save'],
    ['1\r', 'accept-save'],
    ['once\r', 'accept-once'],
    ['o\r', 'accept-once'],
    ['2\r', 'accept-once'],
    ['no\r', 'reject'],
    ['n\r', 'reject'],
    ['\r', 'reject'],
  ];
  for (const [typed, want] of answers) {
    const term = fakeTerminal();
    const warning = new PassThrough();
    let shown = '';
    warning.on('data', (d: Buffer) => {
      shown += d.toString();
    });
    const r = askHostKey(terminalPrompter(term), identity, warning);
    term.input.write(typed);
    assert.equal(await r, want, JSON.stringify(typed));
    assert.match(
      shown,
      /The authenticity of host 'files\.example\.com' \(port 2222\) can't be established\.\nED25519 key fingerprint is SHA256:abc\./,
    );
    assert.match(term.written(), /\[yes\].*\n {2}1\) yes {2}2\) once {2}3\) no \(default\)\n/);
  }
});

test('secret on a real pseudo-terminal: no echo, isInteractive true', async (t) => {
  if (spawnSync('script', ['--version']).status !== 0) {
    t.skip('util-linux script(1) is not available to create a pty');
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-pty-'));
  try {
    const child = path.join(dir, 'child.js');
    fs.writeFileSync(
      child,
      `
      const p = require(${JSON.stringify(path.join(__dirname, 'prompt.js'))});
      p.terminalPrompter().secret('Passphrase: ').then(
        (s) => { process.stdout.write('RESULT ' + JSON.stringify({ length: s.length, ok: s === 'top-secret-1', interactive: p.isInteractive() }) + '\\n'); process.exit(0); },
        (e) => { process.stdout.write('FAILED ' + e.code + '\\n'); process.exit(1); });
    `,
    );
    const proc = spawn(
      'script',
      ['-qfec', `${JSON.stringify(process.execPath)} ${JSON.stringify(child)}`, '/dev/null'],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let seen = '';
    const result = new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve(`timeout; output so far: ${JSON.stringify(seen)}`), 15000);
      let typed = false;
      proc.stdout.on('data', (d: Buffer) => {
        seen += d.toString();
        if (!typed && seen.includes('Passphrase: ')) {
          typed = true; // raw mode is set before the question is written
          proc.stdin.write('top-secret-1\r');
        }
        if (/RESULT [^\n]*\n|FAILED/.test(seen)) {
          clearTimeout(timer);
          resolve(seen);
        }
      });
    });
    const out = await result;
    if (proc.exitCode === null) {
      proc.kill();
      await once(proc, 'exit');
    }
    assert.match(out, /RESULT \{"length":12,"ok":true,"interactive":true\}/);
    assert.ok(!out.includes('top-secret-1'), `the secret must not be echoed: ${JSON.stringify(out)}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
