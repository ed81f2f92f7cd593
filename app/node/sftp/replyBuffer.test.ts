/**
 * patches/ssh2+*.patch reuses one buffer per SFTP channel to reassemble SSH_FXP_DATA replies that span several
 * channel packets (up to 255 KiB each from OpenSSH). Driven here through ssh2's own SFTP parser with a fake
 * transport: every reply arrives in fragments, and a handle received in between must not be overwritten by the
 * DATA replies that follow (only DATA replies may share the buffer).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';

const { SFTP } = require('ssh2/lib/protocol/SFTP') as {
  SFTP: new (client: unknown, chanInfo: unknown, cfg?: unknown) => {
    push(data: Buffer): void;
    open(p: string, flags: string, cb: (err: Error | undefined, handle: Buffer) => void): void;
    read(handle: Buffer, buf: Buffer, off: number, len: number, pos: number, cb: (err: Error | undefined, nb: number, data: Buffer) => void): void;
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

test('SFTP reply reassembly: DATA replies share a reused buffer, a HANDLE received in between stays intact', () => {
  const sent: Buffer[] = [];
  const client = { _protocol: { _remoteIdentRaw: 'SSH-2.0-OpenSSH_9.2', channelData: (_id: number, d: Buffer) => { sent.push(Buffer.from(d)); } } };
  const chanInfo = {
    type: 'sftp',
    incoming: { id: 0, window: 2 ** 30, packetSize: 32768, state: 'open' },
    outgoing: { id: 0, window: 2 ** 30, packetSize: 32768, state: 'open' },
  };
  const sftp = new SFTP(client, chanInfo);
  sftp._version = 3;
  const reqId = () => sent[sent.length - 1].readUInt32BE(5);

  const handles: Buffer[] = [];
  const handleBytes = [Buffer.from('handle-one'), Buffer.from('handle-two')];
  for (const hb of handleBytes) {
    sftp.open('/f', 'r', (err, h) => { assert.ifError(err); handles.push(h); });
    feed(sftp, reply(FXP_HANDLE, reqId(), hb), 5);
  }
  assert.deepEqual(handles.map(String), ['handle-one', 'handle-two']);

  const chunks = [randomBytes(200_000), randomBytes(250_000), randomBytes(70_000)];
  const got: Buffer[] = [];
  for (const data of chunks) {
    const buf = Buffer.alloc(data.length);
    sftp.read(handles[0], buf, 0, data.length, 0, (err, nb, out) => { assert.ifError(err); got.push(Buffer.from(out.subarray(0, nb))); });
    feed(sftp, reply(FXP_DATA, reqId(), data), 32_768);
  }
  assert.equal(got.length, chunks.length);
  chunks.forEach((c, i) => assert.ok(got[i].equals(c), `DATA reply ${i} differs`));
  // The handles were parsed from their own buffers, not the reused one.
  assert.deepEqual(handles.map(String), ['handle-one', 'handle-two']);
});
