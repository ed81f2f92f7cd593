/**
 * The resume stage (resume.ts) over a fake destination and journal: it alone names a file's temporary file (the
 * destination's fresh name, or the one the journal keeps), and decides how the file starts (table).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { resumePlan, type ResumeSide } from './resume';
import type { JournalledFile, TransferJournal } from './types';

const F = { src: '/l/a', dst: '/r/a', size: 100, mtimeMs: 0 };
const FRESH = '/r/.a.sluice-fresh000.part';
const KEPT = '/r/.a.sluice-kept0000.part';

/** A destination holding files of these sizes; records what it removes. */
function dest(sizes: Record<string, number>): ResumeSide & { removed: string[] } {
  const removed: string[] = [];
  return {
    removed,
    tempName: () => FRESH,
    stat: async (p) => (p in sizes ? { size: sizes[p], mtimeMs: 0 } : null),
    remove: async (p) => {
      removed.push(p);
      return true;
    },
  };
}

/** A journal whose planFile answers `j` (its temp: the proposed name unless given); records restarts. */
function journal(j: Partial<JournalledFile>): TransferJournal & { restarts: string[]; proposed: string[] } {
  const restarts: string[] = [];
  const proposed: string[] = [];
  return {
    restarts,
    proposed,
    resuming: true,
    planFile: async (_f, p) => {
      proposed.push(p);
      return { temp: p, done: [], committed: false, discarded: [], ...j };
    },
    restartFile: (_src, why) => restarts.push(why),
    recordRange: () => undefined,
    fileEnded: () => undefined,
    flush: () => undefined,
  };
}

test('resumePlan names the temporary file once and decides how the file starts (table)', async () => {
  const rows: Array<[string, Partial<JournalledFile> | null, Record<string, number>, unknown, RegExp | null]> = [
    ["no journal: a fresh start under the destination's name", null, {}, { kind: 'fresh', temp: FRESH }, null],
    ['journal, nothing recorded: its name (kept for the job)', { temp: KEPT }, {}, { kind: 'fresh', temp: KEPT }, null],
    [
      'recorded ranges still there: the missing ones',
      { temp: KEPT, done: [[0, 40]] },
      { [KEPT]: 40 },
      { kind: 'resume', temp: KEPT, missing: [[40, 100]], doneBytes: 40, recordedEnd: 40 },
      null,
    ],
    [
      'partial copy shorter than recorded: over again, same name',
      { temp: KEPT, done: [[0, 40]] },
      { [KEPT]: 30 },
      { kind: 'fresh', temp: KEPT },
      /shorter \(30 bytes\) than recorded \(40\)/,
    ],
    ['partial copy gone', { temp: KEPT, done: [[0, 40]] }, {}, { kind: 'fresh', temp: KEPT }, /partial copy is gone/],
    ['committed earlier and still there', { committed: true }, { '/r/a': 100 }, { kind: 'committed' }, null],
    [
      'committed earlier, gone since: over again under a fresh name',
      { committed: true },
      {},
      { kind: 'fresh', temp: FRESH },
      /gone or changed/,
    ],
  ];
  for (const [name, j, sizes, expected, restart] of rows) {
    const d = dest(sizes);
    const jl = j ? journal(j) : undefined;
    const logs: string[] = [];
    assert.deepEqual(await resumePlan(d, jl, F, { log: (m) => logs.push(m) }), expected, name);
    if (jl) assert.deepEqual(jl.proposed, [FRESH], `${name}: the journal is offered the destination's name`);
    if (restart) assert.match(jl?.restarts[0] ?? '', restart, name);
    else assert.deepEqual(jl?.restarts ?? [], [], name);
  }
});

test("an earlier run's copies of a changed source are removed, an abandoned one said", async () => {
  const d = dest({});
  const logs: string[] = [];
  await resumePlan(d, journal({ discarded: ['/r/.old1'], abandoned: ['/r/.old2'] }), F, { log: (m) => logs.push(m) });
  assert.deepEqual(d.removed, ['/r/.old1', '/r/.old2']);
  assert.deepEqual(logs, [
    '/r/a: starting over: removed the partial copy /r/.old2 that an earlier, interrupted run left',
  ]);
});
