import test from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { watchSetupRtt } from './setupRtt';
import { received, socketPair } from '../test/socketPair';

test('set-up RTT: timed from the handshake to the next read, reads before the handshake do not count, later ones do not change it', async () => {
  const { client: sock, server, close } = await socketPair();
  try {
    const client = new EventEmitter();
    // A clock the test moves (ns): the link's delays are stated, not waited for.
    let clock = 1_000_000_000n;
    const advanceMs = (ms: number): void => {
      clock += BigInt(ms) * 1_000_000n;
    };
    const sample = watchSetupRtt(sock, client, () => clock);

    advanceMs(500);
    let r = received(sock, 3);
    server.write('kex');
    await r;
    assert.equal(sample(), undefined, 'a read during the key exchange is not the sample');

    advanceMs(7);
    client.emit('handshake', {});
    advanceMs(30);
    assert.equal(sample(), undefined, 'no read since the handshake yet');
    r = received(sock, 6);
    server.write('accept');
    await r;
    assert.equal(sample(), 30, 'the time from the handshake to the next read');

    advanceMs(20);
    r = received(sock, 4);
    server.write('more');
    await r;
    assert.equal(sample(), 30, 'a later read does not change the sample');
  } finally {
    close();
  }
});
