import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { SIGNAL_EXIT_CODES, guardSignals, type HandledSignal } from './signals';

/** A guard over a fake signal source, recording what it did. */
function harness(sessionOpen: boolean, platform: NodeJS.Platform = 'linux') {
  const source = new EventEmitter();
  const log = { cancels: 0, lines: [] as string[], quits: [] as Array<[number, string]> };
  let open = sessionOpen;
  const guard = guardSignals({
    source,
    platform,
    cancel: () => {
      log.cancels++;
    },
    cleanupPending: () => open,
    write: (t) => {
      log.lines.push(t);
    },
    quit: (code, message) => {
      log.quits.push([code, message]);
    },
  });
  return {
    source,
    log,
    guard,
    openPool: () => {
      open = true;
    },
  };
}

test('exit codes are 128 + the signal number', () => {
  assert.deepEqual(SIGNAL_EXIT_CODES, { SIGHUP: 129, SIGINT: 130, SIGTERM: 143, SIGBREAK: 149 });
});

for (const [sig, code, text] of [
  ['SIGINT', 130, /interrupted: stopping the transfer \(Ctrl-C again to quit at once\)/],
  ['SIGTERM', 143, /terminated \(SIGTERM\): stopping/],
  ['SIGHUP', 129, /hangup \(SIGHUP\): stopping/],
] as Array<[HandledSignal, number, RegExp]>) {
  test(`${sig} during a job: cancels, says so once, does not quit; the run then exits ${code}`, () => {
    const h = harness(true);
    h.source.emit(sig);
    assert.equal(h.log.cancels, 1);
    assert.equal(h.log.lines.length, 1);
    assert.match(h.log.lines[0], text);
    assert.deepEqual(h.log.quits, [], 'the first signal must leave time for the cleanup');
    assert.equal(h.guard.received, sig);
    assert.equal(h.guard.exitCode(), code);
    h.guard.dispose();
  });
}

test('a second signal quits at once, with its own exit code', () => {
  const h = harness(true);
  h.source.emit('SIGTERM');
  h.source.emit('SIGINT');
  assert.equal(h.log.quits.length, 1);
  assert.equal(h.log.quits[0][0], 130);
  assert.match(h.log.lines[1], /interrupted again: quitting without cleanup/);
  const t = harness(true);
  t.source.emit('SIGTERM');
  t.source.emit('SIGTERM');
  assert.equal(t.log.quits[0][0], 143);
  assert.match(t.log.lines[1], /SIGTERM again: quitting without cleanup/);
  h.guard.dispose();
  t.guard.dispose();
});

test('before the session exists the first signal quits at once (nothing to clean up)', () => {
  const h = harness(false);
  h.source.emit('SIGHUP');
  assert.deepEqual(h.log.quits, [[129, 'interrupted by SIGHUP']]);
  assert.equal(h.log.cancels, 1);
  assert.deepEqual(h.log.lines, ['sluice: interrupted by SIGHUP']);
  h.guard.dispose();
});

test('no exit code without a signal; dispose removes every handler', () => {
  const h = harness(true);
  assert.equal(h.guard.exitCode(), undefined);
  assert.equal(h.source.listenerCount('SIGTERM'), 1);
  h.guard.dispose();
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) assert.equal(h.source.listenerCount(sig), 0, sig);
  h.source.emit('SIGTERM');
  assert.equal(h.log.cancels, 0);
});

test('Windows: Ctrl+Break (SIGBREAK) stops the job like Ctrl-C, exit 149; elsewhere it is not listened to', () => {
  const h = harness(true, 'win32');
  h.source.emit('SIGBREAK');
  assert.equal(h.log.cancels, 1);
  assert.match(h.log.lines[0], /interrupted \(Ctrl\+Break\): stopping the transfer \(Ctrl\+Break again to quit/);
  assert.equal(h.guard.exitCode(), 149);
  h.guard.dispose();
  const posix = harness(true, 'linux');
  assert.equal(posix.source.listenerCount('SIGBREAK'), 0);
  posix.guard.dispose();
});

test('Windows: a closed console (SIGHUP) gives the cleanup 8 s, then quits 129 before Windows kills it', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const h = harness(true, 'win32');
  h.source.emit('SIGHUP');
  assert.equal(h.log.cancels, 1);
  t.mock.timers.tick(7999);
  assert.deepEqual(h.log.quits, []);
  t.mock.timers.tick(1);
  assert.deepEqual(h.log.quits, [[129, 'the console closed; the cleanup did not finish in time']]);
  h.guard.dispose();
  // A run that finished its cleanup in time disposes the guard: no quit afterwards.
  const done = harness(true, 'win32');
  done.source.emit('SIGHUP');
  done.guard.dispose();
  t.mock.timers.tick(10_000);
  assert.deepEqual(done.log.quits, []);
});
