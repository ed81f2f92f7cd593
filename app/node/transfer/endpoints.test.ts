/**
 * The endpoints of both directions (endpoints.ts, direction.ts) over a fake connection: one table of the worker
 * calls each direction makes for the same file operations, then what each destination does on its own side
 * (temporary names, removals, commits, out-of-order writes and refusals).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'node:test';
import assert from 'node:assert/strict';
import { SluiceError } from '../errors';
import type { Lane, ConnectionPool } from '../ssh/connectionPool';
import { endpointsFor } from './direction';
import type { EndpointFile } from './endpoints';
import type { EngineEvent } from './types';

type Call = [op: string, args: Record<string, unknown>];

/** A session and a lane whose worker calls are recorded and answered by `answers` (default: undefined). */
function fakeSession(
  answers: Record<string, (args: Record<string, unknown>) => unknown> = {},
  outOfOrderWrites?: boolean,
) {
  const calls: Call[] = [];
  const events: EngineEvent[] = [];
  const leftovers: string[] = [];
  const call = async (op: string, args: Record<string, unknown>) => {
    calls.push([op, args]);
    return answers[op]?.(args);
  };
  const feedback = { events: (e: EngineEvent) => events.push(e), server: { outOfOrderWrites } };
  const pool = {
    call,
    leftovers: { record: (l: { path: string }) => leftovers.push(l.path) },
    stat: async (p: string) => (p === '/r/there' ? { type: 'file', size: 3, mtimeMs: 1000, mode: 0o644 } : null),
  } as unknown as ConnectionPool;
  const lane = { conn: { call }, channel: 2 } as unknown as Lane;
  return { session: pool, feedback, lane, calls, events, leftovers };
}

const file = (src: string, temp: string, dst = '/x/dst'): EndpointFile => ({
  src,
  dst,
  temp,
  size: 10,
  mode: 0o444,
  mtimeMs: 0,
  inPlace: undefined,
});

test('both directions make the same calls with their sides swapped (table)', async () => {
  const rows = [
    {
      direction: 'put' as const,
      f: file('/l/a', '/r/.a.part'),
      local: '/l/a',
      remote: '/r/.a.part',
      op: 'upload',
      whole: 'putFile',
      mode: 0o644,
      fileEnd: false,
    },
    {
      direction: 'get' as const,
      f: file('/r/a', '/l/.a.part'),
      local: '/l/.a.part',
      remote: '/r/a',
      op: 'download',
      whole: 'getFile',
      mode: 0o444,
      fileEnd: true,
    },
  ];
  for (const row of rows) {
    const { session, feedback, lane, calls } = fakeSession({
      putFile: () => ({ size: 10, fsynced: true }),
      getFile: () => 10,
      hashLocal: () => 'L',
      hashRemote: () => ({ sha256: 'R', method: 'reread' }),
    });
    const ends = endpointsFor(session, { direction: row.direction }, feedback);
    assert.deepEqual(ends.paths(row.f), { localPath: row.local, remotePath: row.remote }, row.direction);
    const end = await ends.moveWhole(lane, row.f, undefined, {});
    assert.equal(end.size, 10, row.direction);
    assert.equal(end.attrsRefused, undefined, row.direction);
    await ends.moveRange(lane, row.f, 4, 10, 250, {});
    await ends.checkpoint(lane, row.f);
    await ends.release(lane.conn, row.f);
    const hashed = await ends.hashes(lane, row.f, true, { local: () => undefined, remote: () => undefined });
    assert.deepEqual(hashed, { local: 'L', remote: { sha256: 'R', method: 'reread' } });
    assert.deepEqual(
      calls.map(([op]) => op),
      [row.whole, row.op, 'checkpoint', 'releaseFile', 'hashLocal', 'hashRemote'],
      row.direction,
    );
    const [, range] = calls[1];
    assert.deepEqual(
      range,
      {
        channel: 2,
        localPath: row.local,
        remotePath: row.remote,
        start: 4,
        end: 10,
        mode: row.mode,
        fileEnd: row.fileEnd,
        checkpointMs: 250,
      },
      `${row.direction}: the range task reads one side and writes the other; a download's last range asks for EOF`,
    );
    assert.equal(calls[2][1].direction, row.direction === 'put' ? 'upload' : 'download');
    assert.equal(calls[4][1].path, row.local, 'the local side is hashed here');
    assert.equal(calls[5][1].path, row.remote, 'the remote side by the server or a re-read');
    assert.equal(
      calls[0][1].mode,
      row.mode,
      `${row.direction}: a remote temporary file is created writable by its owner`,
    );
  }
});

test('the destinations: temporary names beside the target, stat and remove on their own side', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-endpoints-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'there'), 'abc');
  const { session, feedback } = fakeSession({
    remove: (a) => {
      if (a.path !== '/r/there')
        throw new SluiceError(a.path === '/r/gone' ? 'NO_SUCH_FILE' : 'PERMISSION_DENIED', 'REMOVE');
    },
  });
  const rows = [
    {
      direction: 'put' as const,
      there: '/r/there',
      gone: '/r/gone',
      refused: '/r/locked',
      tempRe: /^\/r\/\.there\.sluice-[0-9a-f]{8}\.part$/,
    },
    {
      direction: 'get' as const,
      there: path.join(dir, 'there'),
      gone: path.join(dir, 'gone'),
      refused: dir,
      tempRe: /\.there\.sluice-[0-9a-f]{8}\.part$/,
    },
  ];
  for (const row of rows) {
    const { dest } = endpointsFor(session, { direction: row.direction }, feedback);
    assert.match(dest.tempName(row.there), row.tempRe, row.direction);
    assert.equal(path.dirname(dest.tempName(row.there)), path.dirname(row.there), 'beside the target');
    assert.equal((await dest.stat(row.there))?.size, 3, row.direction);
    assert.equal(await dest.stat(row.gone), null, row.direction);
    assert.equal(await dest.remove(row.gone), true, `${row.direction}: a missing file is gone`);
    assert.equal(await dest.remove(row.refused), false, `${row.direction}: a refused removal says so`);
    assert.equal(await dest.remove(row.there), true, row.direction);
  }
  assert.ok(!fs.existsSync(path.join(dir, 'there')), 'the local file was removed');
});

test('a remote destination: segments where the server keeps out-of-order writes, one handle after a refusal', async () => {
  const unknown = fakeSession();
  const ends = endpointsFor(unknown.session, { direction: 'put' }, unknown.feedback);
  const f = file('/l/a', '/r/.a.part', '/r/a');
  const lanes = [unknown.lane, { ...unknown.lane, channel: 3 }];
  assert.equal(ends.dest.openAhead(f, lanes).length, 1, 'opened ahead on the one connection while the probe runs');
  assert.deepEqual(unknown.calls.at(-1), ['openAhead', { channels: [2, 3], remotePath: '/r/.a.part', mode: 0o644 }]);
  const known = fakeSession({}, true);
  assert.deepEqual(
    endpointsFor(known.session, { direction: 'put' }, known.feedback).dest.openAhead(f, lanes),
    [],
    'not once the answer is known',
  );
  assert.equal(
    await endpointsFor(known.session, { direction: 'put' }, known.feedback).dest.takesOutOfOrder('/r/a'),
    true,
  );

  const refusedTemp = new SluiceError('PERMISSION_DENIED', `OPEN ${f.temp}: permission denied`);
  assert.equal(known.feedback.server.outOfOrderWrites, true);
  const dest = endpointsFor(known.session, { direction: 'put' }, known.feedback).dest;
  assert.equal(dest.segmentsRefused(f, refusedTemp), true);
  assert.equal(known.feedback.server.outOfOrderWrites, true, 'the folder refused the temporary file, not the segments');
  assert.equal(dest.segmentsRefused(f, new SluiceError('REMOTE_FAILURE', `WRITE ${f.temp}: failure`)), true);
  assert.equal(known.feedback.server.outOfOrderWrites, false, 'later uploads use one handle');
  assert.equal(known.events.length, 1);
  assert.match((known.events[0] as { message: string }).message, /segmented upload of \/r\/a failed .*one handle/);
  assert.equal(dest.segmentedWrites(), false);
});

test("a local destination: any offset, no fallback, committed by rename with its source's times", async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-endpoints-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const { session, feedback, lane } = fakeSession();
  const { dest } = endpointsFor(session, { direction: 'get' }, feedback);
  const f = { ...file('/r/a', path.join(dir, '.a.part'), path.join(dir, 'a')), size: 4096 };
  assert.equal(await dest.takesOutOfOrder(f.dst), true);
  assert.deepEqual(dest.openAhead(f, [lane]), []);
  assert.equal(
    dest.segmentsRefused(f, new SluiceError('LOCAL_IO', 'write')),
    false,
    "a local write failure is the file's",
  );
  assert.equal(await dest.writesInPlaceAfter(lane, f, new SluiceError('PERMISSION_DENIED', `OPEN ${f.temp}`)), false);
  await dest.prepareSegments(f);
  assert.equal(fs.statSync(f.temp).size, 4096, 'created at full length before its segments');
  assert.deepEqual(await dest.finish(lane, f, undefined, Promise.resolve()), { size: 4096 });
  assert.equal(await dest.commit(lane, f, 'no-clobber', { mtime: 1_000_000 }), undefined);
  assert.ok(!fs.existsSync(f.temp));
  assert.equal(fs.statSync(f.dst).mtimeMs, 1_000_000_000, "the source's time, before the rename");
  await assert.rejects(
    dest.commit(lane, { ...f, temp: f.dst }, 'no-clobber', undefined),
    (e: SluiceError) => e.code === 'EXISTS',
  );
  await dest.removeTemp({ ...f, temp: f.dst, inPlace: { offset: 0 } });
  assert.ok(fs.existsSync(f.dst), 'a file written in place is never removed');
  assert.equal(dest.segmentedWrites(), undefined);
});

test('a remote temporary file that cannot be removed is recorded for the next connection', async () => {
  const { session, feedback, leftovers } = fakeSession({
    remove: () => {
      throw new SluiceError('CONNECTION_LOST', 'gone');
    },
  });
  await endpointsFor(session, { direction: 'put' }, feedback).dest.removeTemp(file('/l/a', '/r/.a.part'));
  assert.deepEqual(leftovers, ['/r/.a.part']);
});
