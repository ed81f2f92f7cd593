/** A pane's Back/Forward history (renderer/state/paneHistory.ts). */
import test from 'node:test';
import assert from 'node:assert/strict';
import { emptyHistory, HISTORY_LIMIT, recordVisit, travel } from './paneHistory';

test('visits append; Back and Forward move the pointer once arrived; a new folder drops what was ahead', () => {
  let h = recordVisit(emptyHistory, '/srv');
  assert.equal(travel(h, -1), null);
  h = recordVisit(recordVisit(h, '/srv/a'), '/srv/a/b');
  assert.deepEqual(h, { entries: ['/srv', '/srv/a', '/srv/a/b'], index: 2 });
  assert.equal(recordVisit(h, '/srv/a/b'), h, 'a refresh is not a visit');
  const back = travel(h, -1);
  assert.equal(back, 1);
  h = recordVisit(h, '/srv/a', back);
  assert.deepEqual(h, { entries: ['/srv', '/srv/a', '/srv/a/b'], index: 1 });
  assert.equal(travel(h, 1), 2);
  h = recordVisit(h, '/srv/c');
  assert.deepEqual(h, { entries: ['/srv', '/srv/a', '/srv/c'], index: 2 });
  assert.equal(travel(h, 1), null);
  assert.equal(travel(emptyHistory, 1), null);
});

test('a travel that landed elsewhere (the folder moved meanwhile) is a visit; the history stays bounded', () => {
  const h = recordVisit(recordVisit(emptyHistory, '/a'), '/b');
  assert.deepEqual(recordVisit(h, '/elsewhere', 0), { entries: ['/a', '/b', '/elsewhere'], index: 2 });
  let long = emptyHistory;
  for (let i = 0; i < HISTORY_LIMIT + 20; i++) long = recordVisit(long, `/d${i}`);
  assert.equal(long.entries.length, HISTORY_LIMIT);
  assert.equal(long.entries[0], '/d20');
  assert.equal(long.index, HISTORY_LIMIT - 1);
});
