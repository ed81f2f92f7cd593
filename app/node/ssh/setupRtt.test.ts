import test from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { watchSetupRtt } from './setupRtt';
import { received, socketPair } from '../test/socketPair';

test('set-up RTT: timed from the handshake to the next read, reads before the handshake do not count, later ones do not change it', async () => {
  const { client: sock, server, close } = await socketPair();
  try {
    const client = new EventEmitter();
    const sample = watchSetupRtt(sock, client);

    let r = received(sock, 3); server.write('kex'); await r;
    assert.equal(sample(), undefined, 'a read during the key exchange is not the sample');

    client.emit('handshake', {});
    await sleep(30);
    assert.equal(sample(), undefined, 'no read since the handshake yet');
    r = received(sock, 6); server.write('accept'); await r;
    const ms = sample();
    assert.ok(ms !== undefined && ms >= 29 && ms < 5_000, `sample ${ms} ms`);

    await sleep(20);
    r = received(sock, 4); server.write('more'); await r;
    assert.equal(sample(), ms);
  } finally {
    close();
  }
});
