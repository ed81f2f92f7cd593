/**
 * Prompt TCP ACKs while an SSH connection sets up (see {@link ackPromptlyDuringSetup}).
 */
import type { Duplex } from 'node:stream';
import type { EventEmitter } from 'node:events';
import { sendIgnore } from '../ssh2x';

/** The part of an ssh2 Client this needs: its 'handshake' event (SSH_MSG_IGNORE goes through ssh2x.sendIgnore). */
export type IgnoreCapableClient = EventEmitter;

/**
 * While set-up runs, answers every socket read after which ssh2 sent nothing with an SSH_MSG_IGNORE (patched
 * ssh2's `ignore()`), so the TCP ACK leaves at once. sshd leaves Nagle on for non-interactive sessions: when
 * pipelined requests make it answer twice in a row, the second answer waits for the ACK of the first, and a
 * delayed ACK costs ~40 ms (measured on loopback: connect + 1 B get 0.32 → 0.26 s). Starts after the key
 * exchange (strict KEX forbids extra messages during it, RFC 4253 §7.1 and OpenSSH PROTOCOL "kex-strict").
 * @returns stop(): call when set-up is over
 */
export function ackPromptlyDuringSetup(sock: Duplex, client: IgnoreCapableClient): () => void {
  let active = true;
  let wrote = false;
  const write = sock.write;
  const onData = () => {
    wrote = false;
    setImmediate(() => {
      if (active && !wrote && sock.writable) sendIgnore(client);
    });
  };
  // Listening from the handshake on: ssh2 reads the socket itself by then (an earlier 'data' listener would
  // start the flow before ssh2's), and the write wrapper stays off the transfer's path once stopped.
  const start = () => {
    if (!active) return;
    sock.write = ((...args: unknown[]) => {
      wrote = true;
      return (write as (...a: unknown[]) => boolean).apply(sock, args);
    }) as typeof sock.write;
    sock.on('data', onData);
  };
  client.once('handshake', start);
  return () => {
    if (!active) return;
    active = false;
    client.off('handshake', start);
    sock.off('data', onData);
    sock.write = write;
  };
}
