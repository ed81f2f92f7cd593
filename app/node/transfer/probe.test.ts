/**
 * The out-of-order write probe that decides whether uploads are segmented: OpenSSH accepts (the file is
 * spread over connections), the scripted ssh2 server with `rejectOutOfOrderWrites` refuses (each upload goes
 * through one handle in order, still correct), and the answer is remembered for the session.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ConnectionPool } from '../ssh/connectionPool';
import type { EngineEvent } from './types';
import {
  SSHD_PATH,
  makeTempDir,
  removeDir,
  sha256File,
  startScriptedServer,
  startSshd,
  tempFilesUnder,
  within,
  writeRandomFile,
  type ScriptedServer,
  type SshServer,
  learnedOf,
  openTrusting,
} from '../test/helpers';
import { runTransfer } from './run';

const MiB = 1024 * 1024;
const hasSshd = fs.existsSync(SSHD_PATH);

type Progress = Extract<EngineEvent, { type: 'progress' }>;

let local: string;

before(async () => {
  local = await makeTempDir('sluice-probe-');
});

after(async () => {
  if (local) await removeDir(local);
});

function open(server: SshServer, events: EngineEvent[], segmentSize: number): Promise<ConnectionPool> {
  return openTrusting(server, local, { connections: 2, channels: 1, segmentSize, onEvent: (e) => events.push(e) });
}

/** Connection ids that moved bytes in the job, from its last progress sample. */
function busyConnections(events: EngineEvent[], jobId: string): number[] {
  const last = events.filter((e): e is Progress => e.type === 'progress' && e.jobId === jobId).at(-1);
  assert.ok(last, `a progress event for ${jobId}`);
  return last.connections.filter((c) => c.bytes > 0).map((c) => c.id);
}

function probeLogs(events: EngineEvent[]): string[] {
  return events
    .filter((e) => e.type === 'log' && /out-of-order writes/.test(e.message))
    .map((e) => (e as { message: string }).message);
}

/** Probe leftovers (`.sluice-probe-*`) and temporary files under `dir`. */
function leftovers(dir: string): string[] {
  return [...fs.readdirSync(dir).filter((n) => n.startsWith('.sluice-probe-')), ...tempFilesUnder(dir)];
}

describe('upload probe on OpenSSH', { skip: hasSshd ? false : `${SSHD_PATH} not installed` }, () => {
  let server: SshServer;
  before(async () => {
    server = await startSshd();
  });
  after(async () => {
    await server?.stop();
  });

  test(
    'accepts: uploads are segmented over both connections, the answer is cached for the session',
    { timeout: 60_000 },
    async () => {
      const src = path.join(local, 'os.src');
      writeRandomFile(src, 24 * MiB + 123);
      const want = await sha256File(src);
      const events: EngineEvent[] = [];
      const s = await open(server, events, 2 * MiB);
      try {
        assert.equal(learnedOf(s).outOfOrderWrites, undefined, 'not probed before the first upload');
        const dst = path.join(server.root, 'os.bin');
        const r1 = await within(
          'put',
          30_000,
          runTransfer(
            s,
            { id: 'p1', direction: 'put', sources: [src], dest: dst, recursive: false },
            { onEvent: (e) => events.push(e), server: learnedOf(s) },
          ),
        );
        assert.deepEqual(r1.failed, []);
        assert.equal(r1.segmentedUploads, true);
        assert.equal(learnedOf(s).outOfOrderWrites, true);
        assert.equal(await sha256File(dst), want);
        assert.deepEqual(busyConnections(events, 'p1'), [0, 1], 'segments went over both connections');
        const r2 = await within(
          'second put',
          30_000,
          runTransfer(
            s,
            { id: 'p2', direction: 'put', sources: [src], dest: `${dst}.2`, recursive: false },
            { onEvent: (e) => events.push(e), server: learnedOf(s) },
          ),
        );
        assert.equal(r2.segmentedUploads, true);
        assert.equal(await sha256File(`${dst}.2`), want);
        assert.deepEqual(
          probeLogs(events),
          ['server accepts out-of-order writes: uploads are segmented'],
          'probed once per session',
        );
        assert.deepEqual(leftovers(server.root), [], 'no probe file or temporary file left');
      } finally {
        await s.close();
      }
    },
  );
});

describe('upload probe on a server that rejects out-of-order writes', () => {
  let rejecting: ScriptedServer;
  let accepting: ScriptedServer;
  before(async () => {
    rejecting = await startScriptedServer({ overrides: { rejectOutOfOrderWrites: true } });
    accepting = await startScriptedServer();
  });
  after(async () => {
    await rejecting?.stop();
    await accepting?.stop();
  });

  test(
    'refuses: segmentedUploads false, the file goes up through one handle, downloads are still segmented',
    { timeout: 60_000 },
    async () => {
      // 200 KiB fits one SSH_FXP_WRITE, so this test does not depend on the write order within a handle (below).
      const src = path.join(local, 'rej-small.src');
      writeRandomFile(src, 200 * 1024 + 5);
      const want = await sha256File(src);
      const events: EngineEvent[] = [];
      const s = await open(rejecting, events, 64 * 1024);
      try {
        const dst = path.join(rejecting.root, 'rej-small.bin');
        const r = await within(
          'put',
          40_000,
          runTransfer(
            s,
            { id: 'up', direction: 'put', sources: [src], dest: dst, recursive: false, verify: 'sha256' },
            { onEvent: (e) => events.push(e), server: learnedOf(s) },
          ),
        );
        assert.deepEqual(r.failed, []);
        assert.equal(r.files, 1);
        assert.equal(r.segmentedUploads, false);
        assert.equal(learnedOf(s).outOfOrderWrites, false);
        assert.equal(await sha256File(dst), want, 'uploaded bytes equal the source');
        assert.equal(busyConnections(events, 'up').length, 1, 'one handle on one connection carried the whole file');
        assert.deepEqual(probeLogs(events), [
          'server rejects out-of-order writes: each upload goes through one handle in order',
        ]);
        assert.deepEqual(leftovers(rejecting.root), []);

        // The server serves reads at any offset: downloads are still cut into segments over both connections.
        const back = path.join(local, 'rej-small.back');
        const g = await within(
          'get',
          40_000,
          runTransfer(
            s,
            { id: 'down', direction: 'get', sources: [dst], dest: back, recursive: false },
            { onEvent: (e) => events.push(e), server: learnedOf(s) },
          ),
        );
        assert.deepEqual(g.failed, []);
        assert.equal(await sha256File(back), want);
        assert.deepEqual(busyConnections(events, 'down'), [0, 1]);
        assert.equal(probeLogs(events).length, 1, 'downloads do not probe');
      } finally {
        await s.close();
      }
    },
  );

  // A sequential-only server sees every SSH_FXP_WRITE of the fallback upload in offset order (the pipeline
  // sends them in order although local reads complete in any order).
  test(
    'refuses: a multi-request upload through one handle stays in offset order and arrives intact',
    {
      timeout: 60_000,
    },
    async () => {
      const src = path.join(local, 'rej.src');
      writeRandomFile(src, 16 * MiB + 777);
      const want = await sha256File(src);
      const events: EngineEvent[] = [];
      const s = await open(rejecting, events, 1 * MiB);
      try {
        const dst = path.join(rejecting.root, 'rej.bin');
        const r = await within(
          'put',
          40_000,
          runTransfer(
            s,
            { id: 'up', direction: 'put', sources: [src], dest: dst, recursive: false },
            { onEvent: (e) => events.push(e), server: learnedOf(s) },
          ),
        );
        assert.deepEqual(r.failed, []);
        assert.equal(r.segmentedUploads, false);
        assert.equal(await sha256File(dst), want, 'uploaded bytes equal the source');
        assert.deepEqual(leftovers(rejecting.root), []);
      } finally {
        await s.close();
      }
    },
  );

  test('the same server without the override accepts: the probe tells them apart', { timeout: 60_000 }, async () => {
    const src = path.join(local, 'acc.src');
    writeRandomFile(src, 6 * MiB + 777);
    const want = await sha256File(src);
    const events: EngineEvent[] = [];
    const s = await open(accepting, events, 1 * MiB);
    try {
      const dst = path.join(accepting.root, 'acc.bin');
      const r = await within(
        'put',
        40_000,
        runTransfer(
          s,
          { id: 'up', direction: 'put', sources: [src], dest: dst, recursive: false },
          { onEvent: (e) => events.push(e), server: learnedOf(s) },
        ),
      );
      assert.deepEqual(r.failed, []);
      assert.equal(r.segmentedUploads, true);
      assert.equal(await sha256File(dst), want);
      assert.deepEqual(busyConnections(events, 'up'), [0, 1]);
    } finally {
      await s.close();
    }
  });
});
