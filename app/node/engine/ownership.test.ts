/**
 * Owner and group from a server's `ls -l` line (engine/ownership.ts): names when the line's size agrees with the
 * ATTRS', the ids otherwise; a hostile name (bidi override, control characters, a long one) escaped and cut at 32
 * characters.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { ownership } from './ownership';

const line = (owner: string, group: string, size: number) =>
  `-rw-r--r--    1 ${owner} ${group} ${size} Nov 28 07:34 notes.txt`;

test('names from the ls -l line; the ids when the line is missing or its size disagrees', () => {
  assert.deepEqual(ownership({ longname: line('alice', 'staff', 12), size: 12, uid: 1000, gid: 50 }), {
    links: '1',
    owner: 'alice',
    group: 'staff',
  });
  assert.deepEqual(ownership({ longname: line('alice', 'staff', 99), size: 12, uid: 1000, gid: 50 }), {
    links: '?',
    owner: '1000',
    group: '50',
  });
  assert.deepEqual(ownership({ size: 0 }), { links: '?', owner: '?', group: '?' });
});

test("a hostile server's names are escaped, and cut at 32 characters", () => {
  const own = ownership({ longname: line('\u202eevil\x1b[2J', 'g'.repeat(200), 3), size: 3 });
  assert.ok(!own.owner.includes('\u202e') && !own.owner.includes('\x1b'), own.owner);
  assert.match(own.owner, /evil/);
  assert.equal(own.group, `${'g'.repeat(32)}…`, 'cut at 32 characters, marked');
});
