/**
 * A connected loopback TCP socket pair for tests of code that watches a socket's reads and writes.
 */
import net from 'node:net';
import { once } from 'node:events';

/** `client` is the socket under test; `server` feeds it data. `close()` destroys both and the listener. */
export async function socketPair(): Promise<{ client: net.Socket; server: net.Socket; close: () => void }> {
  const srv = net.createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const accepted = once(srv, 'connection');
  const client = net.connect((srv.address() as net.AddressInfo).port, '127.0.0.1');
  const [server] = (await accepted) as [net.Socket];
  await once(client, 'connect').catch(() => undefined);
  return {
    client,
    server,
    close: () => {
      client.destroy();
      server.destroy();
      srv.close();
    },
  };
}

/** Resolves once `sock` has received `n` more bytes. */
export function received(sock: net.Socket, n: number): Promise<void> {
  return new Promise((resolve) => {
    let got = 0;
    const on = (b: Buffer) => {
      got += b.length;
      if (got >= n) {
        sock.off('data', on);
        resolve();
      }
    };
    sock.on('data', on);
  });
}
