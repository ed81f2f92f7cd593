import test from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { ackPromptlyDuringSetup, type IgnoreCapableClient } from './promptAck';
import { received, socketPair } from '../test/socketPair';

const turn = () => new Promise((r) => setImmediate(r));

test('set-up ACKs: an IGNORE after a read only once the key exchange is over, none when ssh2 answered itself, none after stop', async () => {
  const { client: sock, server, close } = await socketPair();
  try {
    let ignores = 0;
    const client = Object.assign(new EventEmitter(), {
      _protocol: {
        ignore: () => {
          ignores++;
        },
      },
    }) as IgnoreCapableClient;
    const original = sock.write;
    const stop = ackPromptlyDuringSetup(sock, client);

    // During the key exchange (strict KEX): nothing extra.
    let r = received(sock, 3);
    server.write('kex');
    await r;
    await turn();
    await turn();
    assert.equal(ignores, 0);

    client.emit('handshake', {});
    // A read after which nothing was written: one IGNORE.
    r = received(sock, 3);
    server.write('one');
    await r;
    await turn();
    await turn();
    assert.equal(ignores, 1);

    // A read that ssh2 answers in the same turn carries the ACK itself: no IGNORE.
    const answer = (b: Buffer) => {
      if (String(b) === 'two') sock.write('reply');
    };
    sock.on('data', answer);
    r = received(sock, 3);
    server.write('two');
    await r;
    await turn();
    await turn();
    sock.off('data', answer);
    assert.equal(ignores, 1);

    stop();
    r = received(sock, 5);
    server.write('three');
    await r;
    await turn();
    await turn();
    assert.equal(ignores, 1);
    // The transfer's writes do not go through the set-up wrapper.
    assert.equal(sock.write, original);
  } finally {
    close();
  }
});
