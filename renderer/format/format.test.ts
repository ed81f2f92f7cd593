import test from 'node:test';
import assert from 'node:assert/strict';
import {
  breadcrumbs,
  plural,
  summarizeError,
  formatBytes,
  formatDate,
  formatTime,
  formatDuration,
  formatEta,
  formatRate,
  joinRemote,
  parentRemote,
  percent,
} from './format';
import {
  moveFocus,
  ownerText,
  select,
  sortEntries,
  toggleSort,
  validateName,
  emptySelection,
  type ListedEntry,
} from './entries';

test('bytes, rates, durations and ETA format for people', () => {
  assert.equal(formatBytes(0), '0 B');
  assert.equal(formatBytes(1023), '1023 B');
  assert.equal(formatBytes(1536), '1.5 KiB');
  assert.equal(formatBytes(5 * 1024 ** 3), '5.0 GiB');
  assert.equal(formatBytes(-1), '—');
  assert.equal(formatBytes(512 * 1024 ** 2), '512 MiB', 'three digits: no decimal from 100 up');
  assert.equal(formatBytes(1024 ** 2 - 20), '1.0 MiB', 'never "1024 KiB": carried into the next unit');
  assert.equal(formatBytes(999.6 * 1024), '1000 KiB');
  assert.equal(formatRate(2 * 1024 * 1024), '2.0 MiB/s');
  assert.equal(formatDuration(61_000), '1:01');
  assert.equal(formatDuration(3_723_000), '1:02:03');
  assert.equal(formatEta(1000, 0), '—', 'no rate, no ETA');
  assert.equal(formatEta(10 * 1024, 1024), '0:10');
  assert.equal(percent(5, 10), 50);
  assert.equal(percent(0, 0, true), 100, 'an empty file that is done is complete');
  assert.equal(percent(0, 0), 0);
});

test('remote paths and breadcrumbs', () => {
  assert.equal(joinRemote('/', 'a'), '/a');
  assert.equal(joinRemote('/a/', 'b'), '/a/b');
  assert.equal(parentRemote('/a/b'), '/a');
  assert.equal(parentRemote('/a'), '/');
  assert.equal(parentRemote('/'), '/');
  assert.deepEqual(breadcrumbs('/home/u'), [
    { label: '/', path: '/' },
    { label: 'home', path: '/home' },
    { label: 'u', path: '/home/u' },
  ]);
  assert.deepEqual(
    breadcrumbs('C:\\Users\\me', '\\').map((c) => c.path),
    [':drives', 'C:\\', 'C:\\Users', 'C:\\Users\\me'],
  );
});

const e = (name: string, type: ListedEntry['type'], size = 0, mtimeMs = 0): ListedEntry => ({
  name,
  type,
  size,
  mtimeMs,
});

test('sorting puts folders first, sorts numerically, and hides dot-files unless asked', () => {
  const list = [
    e('b10.txt', 'file', 5),
    e('.hidden', 'file', 1),
    e('b2.txt', 'file', 50),
    e('zdir', 'dir'),
    e('adir', 'dir'),
  ];
  assert.deepEqual(
    sortEntries(list, { key: 'name', dir: 'asc' }, false).map((x) => x.name),
    ['adir', 'zdir', 'b2.txt', 'b10.txt'],
  );
  assert.deepEqual(
    sortEntries(list, { key: 'size', dir: 'desc' }, true).map((x) => x.name),
    ['zdir', 'adir', 'b2.txt', 'b10.txt', '.hidden'],
  );
  assert.deepEqual(toggleSort({ key: 'name', dir: 'asc' }, 'name'), { key: 'name', dir: 'desc' });
  assert.deepEqual(toggleSort({ key: 'name', dir: 'desc' }, 'size'), { key: 'size', dir: 'asc' });
});

test('sorting by permissions and by owner (the remote pane), folders still first, entries without either first', () => {
  const list = [
    { ...e('w.txt', 'file', 1), mode: 0o644, owner: 'www', group: 'www' },
    { ...e('r.txt', 'file', 1), mode: 0o600, owner: 'root', group: 'wheel' },
    { ...e('a.txt', 'file', 1), mode: 0o755, owner: 'root', group: 'adm' },
    { ...e('bare.txt', 'file', 1) },
    { ...e('dir', 'dir'), mode: 0o700, owner: 'zed', group: 'zed' },
  ];
  const names = (key: 'mode' | 'owner', dir: 'asc' | 'desc') =>
    sortEntries(list, { key, dir }, false).map((x) => x.name);
  assert.deepEqual(names('mode', 'asc'), ['dir', 'bare.txt', 'r.txt', 'w.txt', 'a.txt']);
  assert.deepEqual(names('mode', 'desc'), ['dir', 'a.txt', 'w.txt', 'r.txt', 'bare.txt']);
  assert.deepEqual(names('owner', 'asc'), ['dir', 'bare.txt', 'a.txt', 'r.txt', 'w.txt']);
  assert.equal(ownerText(list[1]), 'root wheel');
  assert.equal(ownerText(list[3]), '');
});

test('selection: replace, toggle, range from the anchor, and keyboard focus moves', () => {
  const order = ['a', 'b', 'c', 'd'];
  let sel = select(emptySelection, order, 'b', 'replace');
  assert.deepEqual([...sel.selected], ['b']);
  sel = select(sel, order, 'd', 'range');
  assert.deepEqual([...sel.selected], ['b', 'c', 'd']);
  sel = select(sel, order, 'c', 'toggle');
  assert.deepEqual([...sel.selected].sort(), ['b', 'd']);
  assert.equal(moveFocus(order, null, 1), 'a');
  assert.equal(moveFocus(order, 'd', 1), 'd', 'clamped at the end');
  assert.equal(moveFocus(order, 'b', -10), 'a');
  assert.equal(moveFocus([], 'x', 1), null);
});

test('typed names are validated', () => {
  assert.equal(validateName('ok.txt'), null);
  assert.ok(validateName(''));
  assert.ok(validateName('..'));
  assert.ok(validateName('a/b'));
  assert.ok(validateName('a\\b'));
  assert.ok(validateName('x'.repeat(256)));
});

test('banner texts stay one short line', () => {
  const openssh =
    '@@@@@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n@@@@@@@@@@@\nIT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!\nlots more';
  assert.equal(summarizeError('HOSTKEY_CHANGED', openssh), 'The server’s host key has changed. Connection refused.');
  assert.equal(summarizeError('X', openssh), 'WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!');
  assert.equal(
    summarizeError('AUTH_FAILED', 'All configured authentication methods failed'),
    'All configured authentication methods failed',
  );
  const long = summarizeError('X', 'a'.repeat(500));
  assert.equal(long.length, 160);
  assert.ok(long.endsWith('…'));
  assert.equal(plural(1, 'item'), '1 item');
  assert.equal(plural(0, 'item'), '0 items');
});

test("dates: one format, the locale's own (date and time; the log's time with seconds)", () => {
  const t = Date.UTC(2026, 10, 28, 14, 5, 9);
  const utc = { timeZone: 'UTC' };
  assert.equal(formatDate(t, { ...utc, locale: 'de-DE' }), '28.11.2026, 14:05');
  assert.equal(formatDate(t, { ...utc, locale: 'en-GB' }), '28/11/2026, 14:05');
  assert.match(formatDate(t, { ...utc, locale: 'en-US' }), /^11\/28\/2026, 02:05\sPM$/);
  assert.equal(formatTime(t, { ...utc, locale: 'de-DE' }), '14:05:09');
  assert.equal(formatDate(undefined), '');
  assert.equal(formatDate(Number.NaN), '');
});
