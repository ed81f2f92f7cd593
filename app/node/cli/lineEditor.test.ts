import { test } from 'node:test';
import assert from 'node:assert/strict';
import { editLine, newLine, type LineState } from './lineEditor';

/** Feeds each chunk in turn from a new line; returns the last edit and everything echoed. */
function type(chunks: string[], echo = true, start: LineState = newLine()) {
  let state = start;
  let echoed = '';
  let last = editLine(state, '', echo);
  for (const c of chunks) {
    last = editLine(state, c, echo);
    state = last.state;
    echoed += last.echo;
  }
  return { ...last, echoed };
}

test('Enter ends the line: CR, LF, and what follows is handed back as typed ahead', () => {
  const cr = type(['abc\rnext']);
  assert.deepEqual(cr.outcome, { kind: 'done', rest: 'next' });
  assert.equal(cr.state.answer, 'abc');
  assert.equal(cr.state.skipLf, true);
  assert.equal(cr.echoed, 'abc');
  const lf = type(['x\n']);
  assert.deepEqual(lf.outcome, { kind: 'done', rest: '' });
  assert.equal(lf.state.skipLf, false);
});

test('a CR LF split over two lines: the LF after the CR does not end the next line', () => {
  const first = type(['a\r']);
  const next = type(['\nb'], true, newLine(first.state.skipLf));
  assert.deepEqual(next.outcome, { kind: 'more' });
  assert.equal(next.state.answer, 'b');
  assert.equal(next.state.skipLf, false);
});

test('the table of edits, each typed as one chunk and again one character at a time', () => {
  const cases: Array<[string, string, string]> = [
    // input, answer, echo
    ['abx\u007fc', 'abc', 'abx\b \bc'],
    ['ab\bc', 'ac', 'ab\b \bc'],
    ['a😀\u007f', 'a', 'a😀\b \b'],
    ['\u007f\u007fz', 'z', 'z'],
    ['junk\u0015p', 'p', 'junk\b \b\b \b\b \b\b \bp'],
    ['p\u001b[Dw\u001b[1;5C', 'pw', 'pw'],
    ['a\u001bOb', 'ab', 'ab'],
    ['a\u0007\tb', 'ab', 'ab'],
    ['é✓', 'é✓', 'é✓'],
  ];
  for (const [input, answer, echo] of cases) {
    for (const chunks of [[input], Array.from(input)]) {
      const r = type(chunks);
      assert.deepEqual(r.outcome, { kind: 'more' }, JSON.stringify(input));
      assert.equal(r.state.answer, answer, JSON.stringify(input));
      assert.equal(r.echoed, echo, JSON.stringify(input));
    }
  }
});

test('without echo nothing is written, erasures included', () => {
  const r = type(['secret\u007f\u0015pw\r'], false);
  assert.equal(r.state.answer, 'pw');
  assert.equal(r.echoed, '');
  assert.deepEqual(r.outcome, { kind: 'done', rest: '' });
});

test('Ctrl-C cancels; Ctrl-D cancels an empty line and is ignored in a typed one', () => {
  assert.deepEqual(type(['ab\u0003cd\r']).outcome, { kind: 'cancel', message: 'Cancelled' });
  assert.deepEqual(type(['\u0004']).outcome, { kind: 'cancel', message: 'Cancelled (end of input)' });
  const typed = type(['ab\u0004c\r']);
  assert.deepEqual(typed.outcome, { kind: 'done', rest: '' });
  assert.equal(typed.state.answer, 'abc');
});

test('the state passed in is not changed', () => {
  const start = newLine(true);
  const r = editLine(start, '\nab\r', true);
  assert.deepEqual(start, { answer: '', escape: 'none', skipLf: true });
  assert.equal(r.state.answer, 'ab');
});
