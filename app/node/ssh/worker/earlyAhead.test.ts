import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SFTPWrapper } from 'ssh2';
import type { Coordinator } from './link';
import { WorkerConn } from './conn';
import { EARLY_AHEAD_PATHS } from './earlyAhead';
import { openAhead } from './remoteOps';

/** An SFTP channel that answers every SSH_FXP_OPEN with a handle naming its path, and records the opens. */
function fakeChannel(name: string): { s: SFTPWrapper; opens: string[] } {
  const opens: string[] = [];
  const s = {
    open(p: string, _flags: unknown, _attrs: unknown, cb: (e: Error | null, h: Buffer) => void) {
      opens.push(p);
      setImmediate(() => cb(null, Buffer.from(`${name}:${p}`)));
    },
    close(_h: Buffer, cb: (e: Error | null) => void) {
      setImmediate(() => cb(null));
    },
  };
  return { s: s as unknown as SFTPWrapper, opens };
}

test("an upload's temporary file opens on each early channel as its INIT is queued, and no more once they joined", async () => {
  const conn = new WorkerConn({} as Coordinator);
  const before = fakeChannel('a');
  const after = fakeChannel('b');
  // Channel a's INIT left before the job planned the file; b's after it.
  conn.earlyAhead.channelReady(before.s);
  await openAhead(conn, { channels: [], remotePath: '/up/.f.sluice-1.part', mode: 0o600 });
  conn.earlyAhead.channelReady(after.s);
  assert.deepEqual(before.opens, ['/up/.f.sluice-1.part']);
  assert.deepEqual(after.opens, ['/up/.f.sluice-1.part']);
  // The channel's first segment of the file takes the handle instead of opening the file again.
  assert.equal((await conn.handlesAhead.take(after.s, '/up/.f.sluice-1.part'))?.toString(), 'b:/up/.f.sluice-1.part');

  // Only a job's first files: a long queue of big files must not hold a handle each on every early channel.
  for (let i = 2; i <= EARLY_AHEAD_PATHS + 2; i++)
    await openAhead(conn, { channels: [], remotePath: `/up/.f.sluice-${i}.part` });
  assert.equal(before.opens.length, EARLY_AHEAD_PATHS);

  // Once addChannels took the early channels they are lanes, opened ahead by their channel numbers.
  conn.earlyAhead.end();
  const late = fakeChannel('c');
  conn.earlyAhead.channelReady(late.s);
  await openAhead(conn, { channels: [], remotePath: '/up/.g.sluice-9.part' });
  assert.deepEqual(late.opens, []);
  assert.equal(before.opens.length, EARLY_AHEAD_PATHS);
});
