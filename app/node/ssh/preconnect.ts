/**
 * The first connection's TCP connection and SSH identification exchange, started as the worker thread starts and
 * before it loads ssh2 (see workerEntry.ts), so they overlap the CLI's own start-up.
 */
import fs from 'node:fs';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { traceNow, type TcpTimes } from './packetTrace';

/**
 * The software version part of our identification string: ssh2's own default (`ssh2js` + its version), so servers
 * see the same client either way. Passed to ssh2 as `ident` on every connection.
 */
export const SSH_IDENT_SOFTWARE = `ssh2js${(JSON.parse(fs.readFileSync(require.resolve('ssh2/package.json'), 'utf8')) as { version: string }).version}`;

/**
 * Older than this, a preconnected socket is not used: the server may have given up on it (OpenSSH LoginGraceTime,
 * 120 s by default; a paused socket does not show the server's FIN), for instance while the user typed a key's
 * passphrase.
 */
const PRECONNECT_MAX_AGE_MS = 10_000;

interface Early {
  host: string;
  port: number;
  sock: net.Socket;
  at: number;
  identSent: boolean;
}

let early: Early | null = null;

/**
 * A module that tells a new connection worker where to preconnect: its `preconnectTarget(args)` runs in the worker
 * (so resolving, e.g. through ~/.ssh/config, costs the coordinating thread nothing) and returns a host and port or
 * undefined.
 */
export interface PreconnectResolver {
  /** Absolute path of the module. */
  module: string;
  args: string[];
}

const tcpTimes = new WeakMap<Duplex, TcpTimes>();

/** When `sock`'s TCP connect started and ended, and our identification left on it, for the packet trace. */
export function tcpTimesOf(sock: Duplex): TcpTimes | undefined {
  return tcpTimes.get(sock);
}

/** A TCP socket to host:port with TCP_NODELAY (set before connecting) and keepalive. */
export function newSocket(host: string, port: number): net.Socket {
  const sock = new net.Socket();
  sock.setNoDelay(true);
  sock.setKeepAlive(true, 15_000);
  const times: TcpTimes = { connectAt: traceNow() };
  tcpTimes.set(sock, times);
  sock.once('connect', () => {
    times.connectedAt = traceNow();
  });
  sock.connect({ host, port });
  return sock;
}

/**
 * Opens the TCP connection now and, once it is up, sends our identification string (RFC 4253 §4.2). OpenSSH sends
 * its KEXINIT only after it has read ours, so when ssh2 starts, the server's identification and KEXINIT already
 * wait in the socket (it stays paused): the key exchange starts a round trip sooner.
 */
export function preconnect(host: string, port: number): net.Socket {
  early?.sock.destroy();
  const sock = newSocket(host, port);
  const e: Early = { host, port, sock, at: Date.now(), identSent: false };
  // A refused or failed early connection must not crash the worker: connect opens a fresh socket instead.
  sock.on('error', () => undefined);
  sock.once('connect', () => {
    sock.write(`SSH-2.0-${SSH_IDENT_SOFTWARE}\r\n`);
    e.identSent = true;
    const times = tcpTimes.get(sock);
    if (times) times.identAt = traceNow();
  });
  early = e;
  return sock;
}

/**
 * The preconnected socket when it goes to host:port, is still open and young enough; `identSent` then says
 * whether our identification string already left on it (tell ssh2 not to send it again). Else a new connection.
 */
export function socketTo(host: string, port: number): { sock: net.Socket; identSent: boolean } {
  const e = early;
  early = null;
  if (e && e.host === host && e.port === port && !e.sock.destroyed && Date.now() - e.at < PRECONNECT_MAX_AGE_MS) {
    // Still connecting: the ident goes out on 'connect' (this listener runs before ssh2's), so count it as sent.
    return { sock: e.sock, identSent: e.identSent || e.sock.connecting };
  }
  e?.sock.destroy();
  return { sock: newSocket(host, port), identSent: false };
}
