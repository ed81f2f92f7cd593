import test from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { once } from 'node:events';
import { SSH_IDENT_SOFTWARE, preconnect, socketTo } from './preconnect';

/** A TCP listener on loopback that records what each accepted connection sends. */
async function listener(): Promise<{
  port: number;
  accepted: net.Socket[];
  firstLine(i: number): Promise<string>;
  close(): void;
}> {
  const accepted: net.Socket[] = [];
  const srv = net.createServer((s) => {
    accepted.push(s);
  });
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  /** The i-th accepted connection, once the server's 'connection' event brought it (at most 2 s). */
  const nth = (i: number): Promise<net.Socket> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        if (!accepted[i]) return;
        clearTimeout(timer);
        srv.off('connection', check);
        resolve(accepted[i]);
      };
      const timer = setTimeout(() => {
        srv.off('connection', check);
        reject(new Error(`connection ${i} not accepted within 2 s`));
      }, 2_000);
      srv.on('connection', check);
      check();
    });
  const firstLine = async (i: number) => {
    const s = await nth(i);
    let text = '';
    for await (const chunk of s) {
      text += String(chunk);
      if (text.includes('\n')) break;
    }
    return text;
  };
  return {
    port: (srv.address() as net.AddressInfo).port,
    accepted,
    firstLine,
    close: () => {
      for (const s of accepted) s.destroy();
      srv.close();
    },
  };
}

test('preconnect: the identification string leaves before ssh2 starts, and the same socket is handed over once', async () => {
  const l = await listener();
  try {
    const early = preconnect('127.0.0.1', l.port);
    assert.equal(await l.firstLine(0), `SSH-2.0-${SSH_IDENT_SOFTWARE}\r\n`);
    assert.match(SSH_IDENT_SOFTWARE, /^ssh2js\d+\.\d+\.\d+$/);
    const got = socketTo('127.0.0.1', l.port);
    assert.equal(got.sock, early);
    assert.equal(got.identSent, true);
    // Taken once: the next connection is a new one, and says nothing was sent on it.
    const next = socketTo('127.0.0.1', l.port);
    assert.notEqual(next.sock, early);
    assert.equal(next.identSent, false);
    next.sock.destroy();
    early.destroy();
  } finally {
    l.close();
  }
});

test('preconnect: another address gets a fresh socket and the early one is closed; a refused early connection is not fatal', async () => {
  const a = await listener();
  const b = await listener();
  try {
    const early = preconnect('127.0.0.1', a.port);
    await once(early, 'connect');
    const got = socketTo('127.0.0.1', b.port);
    assert.notEqual(got.sock, early);
    assert.equal(got.identSent, false);
    assert.equal(early.destroyed, true);
    got.sock.destroy();

    // Nothing listens on the port once b is closed: the early socket fails quietly, connect gets a fresh one.
    const port = b.port;
    b.close();
    const refused = preconnect('127.0.0.1', port);
    await new Promise((r) => refused.once('close', r));
    const fresh = socketTo('127.0.0.1', port);
    assert.notEqual(fresh.sock, refused);
    assert.equal(fresh.identSent, false);
    fresh.sock.on('error', () => undefined);
    fresh.sock.destroy();
  } finally {
    a.close();
    b.close();
  }
});
