/**
 * A first RTT sample taken during SSH set-up, before any request of ours (see {@link watchSetupRtt}).
 */
import type { Duplex } from 'node:stream';
import type { EventEmitter } from 'node:events';

/**
 * Times the first exchange after the key exchange: once NEWKEYS is sent (ssh2's 'handshake' event), the client
 * sends SSH_MSG_SERVICE_REQUEST (RFC 4253 §10) and the server's next bytes are its SERVICE_ACCEPT, which sshd
 * sends without any work of its own. Available before authentication ends, so a slow link is known while the
 * first channel is still to be opened, two round trips before a keepalive sample would be.
 *
 * It may read low (bytes the server sent before that exchange arriving late) or high (a busy server), so it
 * only says where to start; the keepalive RTT measured after authentication decides.
 *
 * @param sock the connection's socket (listened to from the 'handshake' event on, after ssh2's own listener)
 * @param client the ssh2 Client (its 'handshake' event)
 * @param now the clock, in nanoseconds (tests pass their own to time without waiting)
 * @returns a getter: the sample in ms, or undefined until the first read after the handshake
 */
export function watchSetupRtt(
  sock: Duplex,
  client: EventEmitter,
  now: () => bigint = process.hrtime.bigint,
): () => number | undefined {
  let sample: number | undefined;
  let t0 = 0n;
  const onData = () => {
    sample = Number(now() - t0) / 1e6;
  };
  client.once('handshake', () => {
    t0 = now();
    sock.once('data', onData);
  });
  return () => sample;
}
