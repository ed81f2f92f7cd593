import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'node:test';
import assert from 'node:assert/strict';
import type { Lane, ConnectionPool } from '../ssh/connectionPool';
import { SluiceError } from '../errors';
import { advance, canAdvance, isFinalPhase, type FilePhase } from './fileState';
import { endpointsFor } from './direction';
import { TransferFile, type FileContext } from './transferFile';
import type { EngineEvent, TransferRequest } from './types';

const PHASES: FilePhase[] = ['planned', 'moving', 'verifying', 'committed', 'skipped', 'failed'];
const LEGAL = new Set([
  'planned>moving',
  'planned>skipped',
  'planned>failed',
  'moving>moving',
  'moving>verifying',
  'moving>failed',
  'verifying>verifying',
  'verifying>moving',
  'verifying>committed',
  'verifying>skipped',
  'verifying>failed',
]);

test('file states: exactly the documented transitions are legal, the final states lead nowhere', () => {
  for (const from of PHASES) {
    for (const to of PHASES) {
      const legal = LEGAL.has(`${from}>${to}`);
      assert.equal(canAdvance(from, to), legal, `${from} -> ${to}`);
      if (legal) assert.equal(advance(from, to), to);
      else assert.throws(() => advance(from, to), /internal error: a file cannot go from/);
    }
    assert.equal(isFinalPhase(from), ['committed', 'skipped', 'failed'].includes(from), from);
  }
});

/** A job over a fake connection that answers every worker call from `answers` and records the calls. */
function fakeJob(answers: Record<string, (args: Record<string, unknown>) => unknown>) {
  const calls: string[] = [];
  const events: EngineEvent[] = [];
  const conn = {
    call: async (op: string, args: Record<string, unknown>) => {
      calls.push(op);
      const answer = answers[op];
      if (!answer) throw new Error(`unexpected call ${op}`);
      return answer(args);
    },
  };
  const pool = {
    call: conn.call,
    connections: [],
    leftovers: { record: () => undefined },
  } as unknown as ConnectionPool;
  const req: TransferRequest = { id: 'j', direction: 'put', sources: ['/l/a'], dest: '/r/a', recursive: false };
  const job: FileContext = {
    ends: endpointsFor(pool, req, { events: (e) => events.push(e), server: {} }),
    req,
    aborted: () => null,
    count: () => undefined,
  };
  const lane = { conn, channel: 0 } as unknown as Lane;
  return { job, lane, calls, events };
}

/** A real 10-byte source dated the epoch: commit checks that an upload's source is still what was planned. */
const SOURCE = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-filestate-')), 'a');
fs.writeFileSync(SOURCE, '0123456789');
fs.utimesSync(SOURCE, 0, 0);
process.on('exit', () => fs.rmSync(path.dirname(SOURCE), { recursive: true, force: true }));
const ITEM = { src: SOURCE, dst: '/r/a', size: 10, mode: 0o644, mtimeMs: 0 };

test('a whole upload goes planned -> moving -> verifying -> committed, renaming its temporary file last', async () => {
  const { job, lane, calls } = fakeJob({
    putFile: () => ({ size: 10, fsynced: true }),
    rename: () => undefined,
    releaseFile: () => undefined,
  });
  const f = new TransferFile(ITEM, job.ends.dest.tempName(ITEM.dst), job);
  assert.equal(f.phase, 'planned');
  assert.match(f.temp, /^\/r\/\.a\.sluice-[0-9a-f]{8}\.part$/);
  const moving = f.moveWhole(lane);
  assert.equal(f.phase, 'moving');
  const size = await moving;
  assert.equal((await f.commit(lane, 'overwrite', size)).level, 'size');
  assert.equal(f.phase, 'committed');
  assert.ok(f.ended);
  assert.deepEqual(calls, ['putFile', 'rename']);
});

test('a size mismatch leaves the file verifying (the job fails it); commit never renames', async () => {
  const { job, lane, calls } = fakeJob({
    putFile: () => ({ size: 9, fsynced: true }),
    rename: () => undefined,
    finishUpload: () => ({ size: 9 }),
  });
  const f = new TransferFile(ITEM, job.ends.dest.tempName(ITEM.dst), job);
  const size = await f.moveWhole(lane);
  await assert.rejects(
    f.commit(lane, 'overwrite', size),
    (e: SluiceError) => e.code === 'VERIFY_FAILED' && /expected 10/.test(e.message),
  );
  assert.equal(f.phase, 'verifying');
  assert.ok(!calls.includes('rename'));
  const cleanup = f.abort('failed');
  assert.equal(f.phase, 'failed');
  await cleanup;
  assert.ok(calls.includes('remove'), 'the temporary file is removed');
  assert.throws(() => f.to('moving'), /internal error/);
});

test('an interrupted job commits nothing, even a file fully moved and verified', async () => {
  const { job, lane, calls } = fakeJob({
    putFile: () => ({ size: 10, fsynced: true }),
    rename: () => undefined,
    remove: () => undefined,
  });
  const aborted = new SluiceError('ABORTED', 'transfer interrupted');
  const f = new TransferFile(ITEM, '/r/.a.sluice-00000000.part', { ...job, aborted: () => aborted });
  await assert.rejects(f.commit(lane, 'overwrite', await f.moveWhole(lane)), (e: SluiceError) => e === aborted);
  assert.ok(!calls.includes('rename'));
  assert.equal(f.phase, 'verifying');
});

test('a connection lost while verifying lets the retried task move the file again', async () => {
  let renames = 0;
  const { job, lane } = fakeJob({
    putFile: () => ({ size: 10, fsynced: true }),
    rename: () => {
      if (renames++ === 0) throw new SluiceError('CONNECTION_LOST', 'gone');
    },
  });
  const f = new TransferFile(ITEM, job.ends.dest.tempName(ITEM.dst), job);
  await assert.rejects(f.commit(lane, 'overwrite', await f.moveWhole(lane)), /gone/);
  assert.equal(f.phase, 'verifying');
  const size = await f.moveWhole(lane);
  assert.equal(f.phase, 'moving');
  await f.commit(lane, 'overwrite', size);
  assert.equal(f.phase, 'committed');
});
