/**
 * patches/ssh2+*.patch cuts outgoing SSH packets of 4 KiB or more from shared 1 MiB slabs, reused once the socket
 * has written every packet cut from one (the callback encrypt() passes with each packet to onWrite). Checked on
 * ssh2's own cipher objects for every cipher family: a packet's bytes stay as encrypted until its write callback
 * has run, however many packets follow; slabs are reused once written; small packets carry no callback.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';

interface Cipher {
  allocPacket(payloadLen: number): Buffer;
  encrypt(packet: Buffer): void;
}
const ssh2Crypto = require('ssh2/lib/protocol/crypto') as {
  CIPHER_INFO: Record<string, { sslName: string; keyLen: number; ivLen: number }>;
  createCipher(config: unknown): Cipher;
};

interface Written {
  packet: Buffer;
  copy: Buffer;
  cb: (() => void) | undefined;
}

function cipherFor(name: string, written: Written[]): Cipher {
  const info = ssh2Crypto.CIPHER_INFO[name];
  return ssh2Crypto.createCipher({
    outbound: {
      onWrite: (packet: Buffer, cb?: () => void) => written.push({ packet, copy: Buffer.from(packet), cb }),
      cipherInfo: info,
      cipherKey: randomBytes(info.keyLen),
      cipherIV: info.ivLen ? randomBytes(info.ivLen) : undefined,
      seqno: 0,
      macInfo: { sslName: 'sha256', len: 32, actualLen: 32, isETM: true },
      macKey: randomBytes(32),
    },
  });
}

function send(cipher: Cipher, payloadLen: number, fill: number): void {
  const packet = cipher.allocPacket(payloadLen);
  packet.fill(fill, 5, 5 + payloadLen);
  cipher.encrypt(packet);
}

const CHANNEL_DATA_PAYLOAD = 1 + 4 + 4 + 32768; // a full 32 KiB CHANNEL_DATA, as OpenSSH's window sizes them

for (const name of ['aes128-gcm@openssh.com', 'chacha20-poly1305@openssh.com', 'aes128-ctr']) {
  test(`${name}: outgoing packets keep their bytes until written, slabs are reused after, small packets carry no callback`, () => {
    const written: Written[] = [];
    const cipher = cipherFor(name, written);
    // 100 × 32 KiB spans at least 3 slabs; none of it is written yet.
    for (let i = 0; i < 100; i++) send(cipher, CHANNEL_DATA_PAYLOAD, i);
    send(cipher, 100, 0xee);
    assert.equal(written.length, 101);
    assert.equal(written[100].cb, undefined, 'a small packet needs no write callback');
    assert.ok(
      written.slice(0, 100).every((w) => typeof w.cb === 'function'),
      'every large packet carries a write callback',
    );
    for (const [i, w] of written.entries())
      assert.ok(w.packet.equals(w.copy), `packet ${i} changed before it was written`);
    const firstBuffers = new Set(written.slice(0, 100).map((w) => w.packet.buffer));
    assert.ok(firstBuffers.size >= 3, `100 large packets in ${firstBuffers.size} slab(s)`);

    // The socket writes them; the next packets reuse those slabs and leave still unwritten ones alone.
    for (const w of written.splice(0)) w.cb?.();
    for (let i = 0; i < 100; i++) send(cipher, CHANNEL_DATA_PAYLOAD, 0x80 | (i & 0x7f));
    const reused = written.filter((w) => firstBuffers.has(w.packet.buffer)).length;
    assert.ok(reused > 0, 'no slab was reused after every packet cut from it was written');
    for (const [i, w] of written.entries())
      assert.ok(w.packet.equals(w.copy), `second round: packet ${i} changed before it was written`);
    for (const w of written.splice(0)) w.cb?.();
  });
}
