import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import * as os from 'node:os';
import { unsafeNameReason, safeLocalJoin, isSafeName, MAX_NAME_BYTES } from './safeNames';
import { SluiceError } from '../errors';

const hostile: Array<[string, RegExp]> = [
  ['', /empty/],
  ['.', /directory/],
  ['..', /directory/],
  ['a/../b', /"\/"/],
  ['../x', /"\/"/],
  ['/etc/passwd', /"\/"/],
  ['x\\y', /"\\"/],
  ['..\\..\\evil', /"\\"/],
  ['\u0000', /control/],
  ['ok\u0000.txt', /control/],
  ['line\nbreak', /control/],
  ['esc\u001b[31m', /control/],
  ['tab\t', /control/],
  ['C:x', /drive letter/],
  ['c:', /drive letter/],
  ['z:\\windows', /"\\"/],
  ['con.txt', /reserved/],
  ['CON', /reserved/],
  ['NUL', /reserved/],
  ['nul.tar.gz', /reserved/],
  ['Aux', /reserved/],
  ['prn.log', /reserved/],
  ['COM1', /reserved/],
  ['com9.txt', /reserved/],
  ['LPT1', /reserved/],
  ['lpt5.doc', /reserved/],
  ['CON.', /reserved|dot/],
  ['name.', /dot or a space/],
  ['name ', /dot or a space/],
  ['...', /dot or a space/],
  ['é'.repeat(128), /255 bytes/], // 256 bytes of UTF-8 in 128 characters
  ['a'.repeat(256), /255 bytes/],
];

test('unsafeNameReason refuses every hostile name with a reason', () => {
  for (const [name, why] of hostile) {
    const reason = unsafeNameReason(name);
    assert.ok(reason !== null, `expected ${JSON.stringify(name)} to be refused`);
    assert.match(reason, why, `reason for ${JSON.stringify(name)}`);
    assert.equal(isSafeName(name), false);
  }
});

test('unsafeNameReason accepts ordinary names', () => {
  const fine = [
    'report.pdf',
    '.bashrc',
    '..hidden',
    'a..b',
    'CONSOLE',
    'com10',
    'lpt',
    'nul_',
    'connect.txt',
    'Ünïcødé ✓.txt',
    'with space.txt',
    'a'.repeat(MAX_NAME_BYTES),
    '日本語のファイル名',
    '-rf',
    'x~',
    '~',
  ];
  for (const name of fine)
    assert.equal(unsafeNameReason(name, { windows: true }), null, `expected ${JSON.stringify(name)} to be accepted`);
});

test('colons and < > " | ? * are refused only with the Windows rules', () => {
  for (const name of [
    'file.txt:stream',
    '2026-01-01T12:00:00.log',
    'a<b',
    'q?.txt',
    'star*',
    'pipe|x',
    'say "hi"',
    'x>y',
  ]) {
    assert.equal(unsafeNameReason(name, { windows: false }), null, name);
    assert.match(unsafeNameReason(name, { windows: true }) ?? '', /alternate data stream|Windows forbids/, name);
    assert.throws(
      () => safeLocalJoin(os.tmpdir(), [name], { windows: true }),
      (e: unknown) => e instanceof SluiceError && e.code === 'UNSAFE_NAME',
    );
  }
  assert.equal(
    unsafeNameReason('file.txt:stream'),
    process.platform === 'win32' ? unsafeNameReason('file.txt:stream', { windows: true }) : null,
  );
  // Drive letters are refused everywhere.
  assert.match(unsafeNameReason('C:x', { windows: false }) ?? '', /drive letter/);
});

test('safeLocalJoin joins safe components under root', () => {
  const root = path.join(os.tmpdir(), 'sluice-root');
  assert.equal(safeLocalJoin(root, ['a', 'b.txt']), path.join(root, 'a', 'b.txt'));
  assert.equal(safeLocalJoin(root, ['..hidden']), path.join(root, '..hidden'));
  assert.equal(safeLocalJoin(root, []), path.resolve(root));
  assert.equal(safeLocalJoin('relative/dir', ['f']), path.resolve('relative/dir', 'f'));
});

test('safeLocalJoin never escapes root and throws UNSAFE_NAME', () => {
  const root = path.join(os.tmpdir(), 'sluice-root');
  const attacks: string[][] = [
    ['..'],
    ['a', '..', '..'],
    ['a/../../b'],
    ['/etc/passwd'],
    ['..\\x'],
    ['C:x'],
    ['NUL'],
    ['ok', ''],
    ['\u0000'],
    ['.'],
    ['a', '.'],
    ...hostile.map(([n]) => ['sub', n]),
  ];
  for (const components of attacks) {
    assert.throws(
      () => safeLocalJoin(root, components),
      (e: unknown) => {
        assert.ok(e instanceof SluiceError);
        assert.equal(e.code, 'UNSAFE_NAME');
        // eslint-disable-next-line no-control-regex
        assert.doesNotMatch(e.message, /[\u0000-\u001f]/, 'message must be printable');
        return true;
      },
      JSON.stringify(components),
    );
  }
});

test('safeLocalJoin results always stay inside root (fuzz)', () => {
  const root = path.join(os.tmpdir(), 'sluice-fuzz');
  const alphabet = ['a', '.', '/', '\\', ':', ' ', 'C', 'N', 'U', 'L', '\u0000', 'é', '~'];
  let seed = 12345;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  for (let i = 0; i < 5000; i++) {
    const components = Array.from({ length: 1 + rand(3) }, () =>
      Array.from({ length: rand(6) }, () => alphabet[rand(alphabet.length)]).join(''),
    );
    let out: string;
    try {
      out = safeLocalJoin(root, components);
    } catch (e) {
      assert.ok(e instanceof SluiceError && e.code === 'UNSAFE_NAME');
      continue;
    }
    const rel = path.relative(root, out);
    assert.ok(
      rel !== '' && !rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel),
      `${JSON.stringify(components)} → ${out}`,
    );
    assert.equal(
      rel.split(path.sep).length,
      components.length,
      `${JSON.stringify(components)} must map to one component each`,
    );
  }
});
