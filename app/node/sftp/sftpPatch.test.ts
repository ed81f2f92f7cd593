/**
 * The SFTP parts of patches/ssh2+*.patch, driven through ssh2's own SFTP client with a fake transport:
 * - one buffer per SFTP channel reassembles SSH_FXP_DATA replies that span several channel packets (up to 255 KiB
 *   each from OpenSSH); every reply arrives in fragments, and a handle received in between must not be overwritten
 *   by the DATA replies that follow (only DATA replies may share the buffer);
 * - `sluiceReadInto` takes its destination buffer only when the DATA reply arrives, and reassembles the reply in it
 *   when it has room;
 * - `sluiceWriteBuffer` + `sluiceSendWrite` put the same bytes on the wire as `write`.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';

const { SFTP } = require('ssh2/lib/protocol/SFTP') as {
  SFTP: new (
    client: unknown,
    chanInfo: unknown,
    cfg?: unknown,
  ) => {
    push(data: Buffer): void;
    open(p: string, flags: string, cb: (err: Error | undefined, handle: Buffer) => void): void;
    read(
      handle: Buffer,
      buf: Buffer,
      off: number,
      len: number,
      pos: number,
      cb: (err: Error | undefined, nb: number, data: Buffer) => void,
    ): void;
    sluiceReadInto(
      handle: Buffer,
      len: number,
      pos: number,
      alloc: (len: number) => Buffer,
      cb: (err: Error | undefined, nb: number, data: Buffer | undefined) => void,
    ): void;
    write(
      handle: Buffer,
      buf: Buffer,
      off: number,
      len: number,
      pos: number,
      cb: (err: Error | undefined) => void,
    ): void;
    sluiceWriteBuffer(handle: Buffer, len: number): Buffer;
    sluiceSendWrite(out: Buffer, pos: number, cb: (err: Error | undefined) => void): boolean;
    _version: number;
  };
};

const FXP_HANDLE = 102;
const FXP_DATA = 103;

/** An SFTP reply packet: uint32 length, byte type, uint32 request id, string body. */
function reply(type: number, id: number, body: Buffer): Buffer {
  const b = Buffer.alloc(4 + 1 + 4 + 4 + body.length);
  b.writeUInt32BE(b.length - 4, 0);
  b[4] = type;
  b.writeUInt32BE(id, 5);
  b.writeUInt32BE(body.length, 9);
  body.copy(b, 13);
  return b;
}

/** Feeds `packet` to the parser in pieces of `size` bytes (the first piece only 3: the length field split too). */
function feed(sftp: { push(d: Buffer): void }, packet: Buffer, size: number): void {
  sftp.push(packet.subarray(0, 3));
  for (let p = 3; p < packet.length; p += size) sftp.push(Buffer.from(packet.subarray(p, p + size)));
}

/** ssh2's SFTP client over a fake transport; `reqId()` is the id of the last request sent. */
function parser() {
  const sent: Buffer[] = [];
  const client = {
    _protocol: {
      _remoteIdentRaw: 'SSH-2.0-OpenSSH_9.2',
      channelData: (_id: number, d: Buffer) => {
        sent.push(Buffer.from(d));
      },
    },
  };
  const chanInfo = {
    type: 'sftp',
    incoming: { id: 0, window: 2 ** 30, packetSize: 32768, state: 'open' },
    outgoing: { id: 0, window: 2 ** 30, packetSize: 32768, state: 'open' },
  };
  const sftp = new SFTP(client, chanInfo);
  sftp._version = 3;
  return { sftp, sent, reqId: () => sent[sent.length - 1].readUInt32BE(5) };
}

test('SFTP reply reassembly: DATA replies share a reused buffer, a HANDLE received in between stays intact', () => {
  const { sftp, reqId } = parser();

  const handles: Buffer[] = [];
  const handleBytes = [Buffer.from('handle-one'), Buffer.from('handle-two')];
  for (const hb of handleBytes) {
    sftp.open('/f', 'r', (err, h) => {
      assert.ifError(err);
      handles.push(h);
    });
    feed(sftp, reply(FXP_HANDLE, reqId(), hb), 5);
  }
  assert.deepEqual(handles.map(String), ['handle-one', 'handle-two']);

  const chunks = [randomBytes(200_000), randomBytes(250_000), randomBytes(70_000)];
  const got: Buffer[] = [];
  for (const data of chunks) {
    const buf = Buffer.alloc(data.length);
    sftp.read(handles[0], buf, 0, data.length, 0, (err, nb, out) => {
      assert.ifError(err);
      got.push(Buffer.from(out.subarray(0, nb)));
    });
    feed(sftp, reply(FXP_DATA, reqId(), data), 32_768);
  }
  assert.equal(got.length, chunks.length);
  chunks.forEach((c, i) => assert.ok(got[i].equals(c), `DATA reply ${i} differs`));
  // The handles were parsed from their own buffers, not the reused one.
  assert.deepEqual(handles.map(String), ['handle-one', 'handle-two']);
});

test('sluiceReadInto: the buffer is allocated when the DATA reply arrives; EOF gives none; oversized data is refused', () => {
  const { sftp, reqId } = parser();
  const h = Buffer.from('h');
  const allocs: number[] = [];
  const alloc = (len: number) => {
    allocs.push(len);
    return Buffer.alloc(len + 100);
  };
  const results: Array<{ err?: string; nb: number; data?: Buffer }> = [];
  const cb = (err: Error | undefined, nb: number, data: Buffer | undefined) => {
    results.push({ err: err?.message, nb, data });
  };

  const data = randomBytes(200_000);
  sftp.sluiceReadInto(h, 200_000, 0, alloc, cb);
  const dataId = reqId();
  sftp.sluiceReadInto(h, 1000, 200_000, alloc, cb);
  const eofId = reqId();
  sftp.sluiceReadInto(h, 10, 0, alloc, cb);
  const bigId = reqId();
  assert.deepEqual(allocs, [], 'nothing allocated while the requests are outstanding');

  feed(sftp, reply(FXP_DATA, dataId, data), 32_768);
  assert.deepEqual(allocs, [200_000]);
  assert.equal(results[0].nb, 200_000);
  assert.ok(results[0].data!.subarray(0, 200_000).equals(data));

  const eof = Buffer.alloc(4 + 1 + 4 + 4 + 4 + 4);
  eof.writeUInt32BE(eof.length - 4, 0);
  eof[4] = 101; // SSH_FXP_STATUS
  eof.writeUInt32BE(eofId, 5);
  eof.writeUInt32BE(1, 9); // SSH_FX_EOF
  feed(sftp, eof, 8);
  assert.deepEqual(results[1], { err: undefined, nb: 0, data: undefined });

  feed(sftp, reply(FXP_DATA, bigId, randomBytes(50)), 32_768);
  assert.match(results[2].err ?? '', /more data than requested/);
  assert.ok(results[2].data, 'the allocated buffer is handed back with the error, so the caller can reuse it');
  assert.equal(allocs.length, 2);
});

test('sluiceReadInto: a reply is reassembled in the buffer alloc gives when it has room for the whole packet', () => {
  const { sftp, reqId } = parser();
  const h = Buffer.from('h');
  // [data length, piece size fed, extra room in the buffer]: fragmented with room (reassembled in place, the data
  // from byte 9), whole in one piece, without room, and with the reply's header split between two pieces.
  const cases: Array<[number, number, number]> = [
    [200_000, 32_768, 9],
    [1000, 100_000, 9],
    [200_000, 32_768, 0],
    [50_000, 6, 9],
  ];
  const got: string[] = [];
  for (const [size, piece, room] of cases) {
    const data = randomBytes(size);
    let given: Buffer | undefined;
    const alloc = (len: number) => (given = Buffer.alloc(len + room));
    sftp.sluiceReadInto(h, size, 0, alloc, (err, nb, buf) => {
      assert.ifError(err);
      assert.ok(buf && given && buf.buffer === given.buffer, 'the data is in the buffer alloc gave');
      assert.ok(buf.subarray(0, nb).equals(data), 'the data arrived whole');
      got.push(`${nb} at ${buf.byteOffset - given.byteOffset}`);
    });
    feed(sftp, reply(FXP_DATA, reqId(), data), piece);
  }
  assert.deepEqual(got, ['200000 at 9', '1000 at 0', '200000 at 0', '50000 at 0']);
});

test('sluiceWriteBuffer + sluiceSendWrite: the same SSH_FXP_WRITE bytes as write(), offsets above 4 GiB included', () => {
  const { sftp, sent } = parser();
  const handle = Buffer.from('a-handle-of-some-length');
  const data = randomBytes(100_000);
  const results: string[] = [];
  const ids: number[] = [];
  for (const pos of [0, 12345, 5 * 2 ** 32 + 7]) {
    sftp.write(handle, data, 0, data.length, pos, (err) => results.push(`write ${err?.message ?? 'ok'}`));
    const viaWrite = Buffer.concat(sent.splice(0));
    const out = sftp.sluiceWriteBuffer(handle, data.length);
    data.copy(out, out.length - data.length);
    assert.equal(
      sftp.sluiceSendWrite(out, pos, (err) => results.push(`in place ${err?.message ?? 'ok'}`)),
      true,
      'sent whole',
    );
    const inPlace = Buffer.concat(sent.splice(0));
    // Request ids differ by one; everything else is equal.
    ids.push(viaWrite.readUInt32BE(5), inPlace.readUInt32BE(5));
    assert.equal(inPlace.readUInt32BE(5), viaWrite.readUInt32BE(5) + 1);
    inPlace.writeUInt32BE(viaWrite.readUInt32BE(5), 5);
    assert.ok(inPlace.equals(viaWrite), `packets differ at offset ${pos}`);
  }
  assert.throws(() => sftp.sluiceWriteBuffer(handle, 10 * 1024 * 1024), /maximum write length/);
  // Each request's STATUS OK reaches its own callback.
  const status = (id: number) => {
    const b = Buffer.alloc(4 + 1 + 4 + 4 + 4 + 4);
    b.writeUInt32BE(b.length - 4, 0);
    b[4] = 101; // SSH_FXP_STATUS
    b.writeUInt32BE(id, 5);
    return b;
  };
  for (const id of ids) feed(sftp, status(id), 7);
  assert.deepEqual(results, ['write ok', 'in place ok', 'write ok', 'in place ok', 'write ok', 'in place ok']);
});
