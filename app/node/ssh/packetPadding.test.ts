/**
 * patches/ssh2+*.patch draws SSH packet padding (RFC 4253 §6) from a pooled CSPRNG buffer instead of calling
 * randomFillSync per packet. Checked on ssh2's own cipher objects, before encryption: padding is never all zeros
 * and never repeats between packets, across pool refills (a pool that stopped advancing would repeat it). That
 * servers accept the packets is what every test against sshd shows.
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

function paddingOf(packet: Buffer, payloadLen: number): Buffer {
  const padLen = packet[4];
  return Buffer.from(packet.subarray(5 + payloadLen, 5 + payloadLen + padLen));
}

test('SSH packet padding: never all zeros, different for every packet across pool refills, for every cipher family', () => {
  for (const name of ['aes128-gcm@openssh.com', 'chacha20-poly1305@openssh.com', 'aes128-ctr']) {
    const info = ssh2Crypto.CIPHER_INFO[name];
    const key = randomBytes(info.keyLen);
    const iv = info.ivLen ? randomBytes(info.ivLen) : undefined;
    const written: Buffer[] = [];
    const cipher = ssh2Crypto.createCipher({
      outbound: {
        onWrite: (b: Buffer) => written.push(Buffer.from(b)),
        cipherInfo: info,
        cipherKey: key,
        cipherIV: iv,
        seqno: 0,
        macInfo: { sslName: 'sha256', len: 32, actualLen: 32, isETM: true },
        macKey: randomBytes(32),
      },
    });
    const seen = new Set<string>();
    // 4000 packets × ≥ 4 padding bytes crosses the 64 KiB pool at least once for every cipher.
    let allZero = 0;
    for (let i = 0; i < 4000; i++) {
      const payloadLen = 1 + (i % 97);
      const packet = cipher.allocPacket(payloadLen);
      packet.fill(i & 0xff, 5, 5 + payloadLen);
      const pad = paddingOf(packet, payloadLen);
      assert.ok(pad.length >= 4, `${name}: padding ${pad.length} bytes`);
      if (pad.every((b) => b === 0)) allZero++;
      seen.add(pad.toString('hex'));
      cipher.encrypt(packet);
    }
    assert.equal(allZero, 0, `${name}: all-zero padding`);
    assert.ok(seen.size >= 3990, `${name}: only ${seen.size} distinct paddings in 4000 packets`);
    assert.equal(written.length, 4000);
  }
});
