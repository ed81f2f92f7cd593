/**
 * The packet trace (`sluice get|put --trace FILE`, or `SLUICE_TRACE=FILE` for every connection of the process): one
 * line per SSH packet sent or received, per SFTP request and reply, and per TCP event, with a wall-clock timestamp,
 * written by the connection's worker thread as it happens. Names only, never payloads or secrets. The format and how
 * to count round trips from it: docs/round-trips.md; the parser: ssh/roundTrips.ts.
 *
 * Line: `<ms since the Unix epoch, 3 decimals> <host:port>#<thread> <dir> <what>`, dir `>` sent, `<` received,
 * `=` a local event (TCP connect, host key accepted, handshake completed).
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { threadId } from 'node:worker_threads';

/** The environment variable naming the trace file (appended to); `--trace FILE` sets it for its own run. */
export const TRACE_ENV = 'SLUICE_TRACE';

/**
 * Starts a trace of this run in `file` (emptied first): every connection opened from now on appends to it, in
 * worker threads too (ConnectParams.trace, from {@link TRACE_ENV}).
 * @throws Error when the file cannot be written, naming it
 */
export function traceTo(file: string): void {
  const abs = path.resolve(file);
  try {
    fs.writeFileSync(abs, '');
  } catch (e) {
    throw new Error(`cannot write the trace file ${abs}: ${(e as Error).message}`);
  }
  process.env[TRACE_ENV] = abs;
}

/** Milliseconds since the Unix epoch with sub-millisecond precision, comparable across threads. */
export function traceNow(): number {
  return performance.timeOrigin + performance.now();
}

/** The TCP connection's own times ({@link traceNow} ms), kept for a trace that starts after them (preconnect.ts). */
export interface TcpTimes {
  connectAt: number;
  connectedAt?: number;
  identAt?: number;
}

type Dir = '>' | '<' | '=';

/** ssh2 debug lines (lib/protocol/*.js, lib/client.js) that are packets, as [pattern, direction, name or group]. */
const PACKET_LINES: Array<[RegExp, Dir]> = [
  [/^SFTP: Outbound: (?:Sending|Buffered) (.+)$/, '>'],
  [/^SFTP: Inbound: Received (.+)$/, '<'],
  [/^Outbound: Sending ping \(GLOBAL_REQUEST: (.+)\)$/, '>'],
  [/^Outbound: Sending (.+)$/, '>'],
  [/^Inbound: Received (.+)$/, '<'],
  [/^Inbound: (?!Handshake in progress|Skipping)(.+)$/, '<'],
];

/** Names ssh2 prints differently from RFC 4253/4254 and the SFTP draft. */
function packetName(what: string, sftp: boolean): string {
  if (sftp) return /^[A-Z_]+$/.test(what.split(' ')[0]) ? `SSH_FXP_${what}` : `SSH_FXP_EXTENDED ${what}`;
  if (what === 'KEXECDH_INIT') return 'KEX_ECDH_INIT';
  if (what.startsWith('keepalive@')) return `GLOBAL_REQUEST (${what})`;
  return what;
}

/** One connection's trace writer: lines go to the file at once (O_APPEND: threads and processes may share it). */
export class PacketTrace {
  private fd: number | null;
  private connectedSeen = false;
  private identSeen = false;

  constructor(
    file: string,
    private readonly tag: string,
  ) {
    try {
      this.fd = fs.openSync(file, 'a');
    } catch {
      this.fd = null; // an unwritable trace file must not stop the transfer
    }
  }

  /** Records one event (`at`: its {@link traceNow} time, default now). */
  event(dir: Dir, what: string, at = traceNow()): void {
    if (this.fd === null) return;
    // Server strings (the identification) may hold anything: keep one line, printable ASCII.
    const safe = what.replace(/[^\x20-\x7e]/g, '?');
    try {
      fs.writeSync(this.fd, `${at.toFixed(3)} ${this.tag}#${threadId} ${dir} ${safe}\n`);
    } catch {
      this.close();
    }
  }

  /** The TCP connect (and our identification, when it left before ssh2 started) at the times they happened. */
  tcp(times: TcpTimes | undefined): void {
    if (!times) return;
    this.event('=', 'TCP connect (SYN)', times.connectAt);
    if (times.connectedAt !== undefined) {
      this.connectedSeen = true;
      this.event('=', 'TCP connected', times.connectedAt);
    }
    if (times.identAt !== undefined) {
      this.identSeen = true;
      this.event('>', 'ident', times.identAt);
    }
  }

  /**
   * An ssh2 `debug` function recording its packet lines (and the few local events that matter for the order of
   * trust decisions), then passing every line to `next`.
   */
  debug(next?: (m: string) => void): (m: string) => void {
    return (m: string) => {
      this.fromDebug(m);
      next?.(m);
    };
  }

  private fromDebug(m: string): void {
    if (m === 'Socket connected') {
      if (!this.connectedSeen) this.event('=', 'TCP connected');
      // A preconnected socket's identification left with its 'connect' (preconnect.ts), ssh2's on this one.
      if (!this.identSeen) this.event('>', 'ident');
      this.connectedSeen = this.identSeen = true;
    } else if (m.startsWith('Remote ident: ')) this.event('<', `ident ${m.slice(14)}`);
    else if (m === 'Inbound: Handshake in progress') this.event('<', 'KEXINIT');
    else if (m === 'Received DH Reply') this.event('<', 'KEX_ECDH_REPLY');
    else if (/^Host accepted|^Handshake completed$/.test(m)) this.event('=', m);
    else {
      for (const [re, dir] of PACKET_LINES) {
        const hit = re.exec(m);
        if (hit) {
          this.event(dir, packetName(hit[1], m.startsWith('SFTP: ')));
          return;
        }
      }
    }
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}
