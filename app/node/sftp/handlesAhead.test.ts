import test from 'node:test';
import assert from 'node:assert/strict';
import { HandlesAhead } from './handlesAhead';

const turn = () => new Promise((r) => setImmediate(r));

test('handles opened ahead: taken once per channel and path, the rest closed on drop, failures reach the taker', async () => {
  const closed: string[] = [];
  const ahead = new HandlesAhead<number>(async (channel, handle, p) => {
    closed.push(`${channel}:${handle}:${p}`);
  });
  ahead.add(0, '/f', Promise.resolve(Buffer.from('h0')));
  ahead.add(1, '/f', Promise.resolve(Buffer.from('h1')));
  ahead.add(1, '/g', Promise.resolve(Buffer.from('g1')));
  ahead.add(2, '/f', Promise.reject(Object.assign(new Error('Permission denied'), { code: 3 })));
  assert.equal(ahead.size, 4);

  assert.equal(String(await ahead.take(0, '/f')), 'h0');
  assert.equal(ahead.take(0, '/f'), undefined, 'taken once');
  assert.equal(ahead.take(0, '/g'), undefined, "another channel's handle is not this one's");
  await assert.rejects(ahead.take(2, '/f')!, /Permission denied/);

  // A duplicate for channel 1 and /f is closed at once; the first one stays.
  ahead.add(1, '/f', Promise.resolve(Buffer.from('dup')));
  await turn();
  assert.deepEqual(closed, ['1:dup:/f']);

  ahead.drop('/f');
  await turn();
  assert.deepEqual(closed, ['1:dup:/f', '1:h1:/f']);
  assert.equal(ahead.size, 1, '/g is untouched');
  assert.equal(String(await ahead.take(1, '/g')), 'g1');
  assert.equal(ahead.size, 0);
});

test('handles opened ahead: a failed open that nobody takes is dropped without a close or an unhandled rejection', async () => {
  const closed: string[] = [];
  const ahead = new HandlesAhead<number>(async (channel, handle) => {
    closed.push(`${channel}:${handle}`);
  });
  ahead.add(0, '/x', Promise.reject(new Error('No such file')));
  ahead.drop('/x');
  await turn();
  assert.deepEqual(closed, []);
  assert.equal(ahead.size, 0);
});

test('handles opened ahead: drop resolves only once the dropped opens are answered (none can still create the file)', async () => {
  const closed: string[] = [];
  const ahead = new HandlesAhead<number>(async (channel, handle) => {
    closed.push(`${channel}:${handle}`);
  });
  let answer!: (h: Buffer) => void;
  ahead.add(
    3,
    '/tmp.part',
    new Promise<Buffer>((r) => {
      answer = r;
    }),
  );
  let dropped = false;
  const drop = ahead.drop('/tmp.part').then(() => {
    dropped = true;
  });
  await turn();
  assert.equal(dropped, false, 'the OPEN is still in flight');
  answer(Buffer.from('late'));
  await drop;
  await turn();
  assert.deepEqual(closed, ['3:late']);
});

test('handles opened ahead: an open that arrives after its path was dropped (a late channel) is closed at once', async () => {
  const closed: string[] = [];
  const ahead = new HandlesAhead<number>(async (channel, handle, p) => {
    closed.push(`${channel}:${handle}:${p}`);
  });
  ahead.add(0, '/dir', Promise.resolve(Buffer.from('h0')));
  await ahead.drop('/dir');
  ahead.add(5, '/dir', Promise.resolve(Buffer.from('late')));
  await turn();
  assert.deepEqual(closed, ['0:h0:/dir', '5:late:/dir']);
  assert.equal(ahead.size, 0, 'nothing kept for a dropped path');
  ahead.add(1, '/other', Promise.resolve(Buffer.from('o')));
  assert.equal(ahead.size, 1, 'other paths are kept as before');
});
