/**
 * Round trips in a packet trace (ssh/packetTrace.ts) from the TCP connect to the first SSH_FXP_DATA reply: how many
 * times the client had to wait for a server packet before its next packet on the way to that reply could leave.
 * How the count is made and what the minimum is: docs/round-trips.md.
 */

/** One trace line. */
export interface TraceEvent {
  /** ms since the Unix epoch */
  t: number;
  /** `host:port#thread`: one connection */
  conn: string;
  dir: '>' | '<' | '=';
  what: string;
}

/** The lines of a trace file; other lines are skipped. */
export function parseTrace(text: string): TraceEvent[] {
  const out: TraceEvent[] = [];
  for (const line of text.split('\n')) {
    const m = /^(\d+(?:\.\d+)?) (\S+) ([<>=]) (.*)$/.exec(line);
    if (m) out.push({ t: Number(m[1]), conn: m[2], dir: m[3] as TraceEvent['dir'], what: m[4] });
  }
  return out;
}

/** One wait: what the client sent, then what it received before it could send on. */
export interface Round {
  sent: string[];
  received: string[];
  /** ms from the first packet sent in this round to the last one received */
  ms: number;
}

export interface RoundTrips {
  /** Round trips from the TCP connect (counted as one) to the first SSH_FXP_DATA reply. */
  count: number;
  rounds: Round[];
  /** ms from the TCP connect to that reply */
  ms: number;
}

/**
 * Packets that are never on the way to the first byte: keepalives and their replies, the hostkeys-00 exchange,
 * SSH_MSG_IGNORE and DEBUG, EXT_INFO (which only tells), our window adjustments, and the identification lines
 * (OpenSSH sends its own without waiting for ours; ours is answered by the server's KEXINIT).
 */
const BACKGROUND = /^(IGNORE|DEBUG|EXT_INFO|ident|GLOBAL_REQUEST|REQUEST_SUCCESS|REQUEST_FAILURE|SSH_FXP_)/;

/** The channel an SSH packet line names: inbound and CHANNEL_OPEN give our number, other outbound ones the server's. */
function channelOf(e: TraceEvent): number | undefined {
  const m = /^CHANNEL_\w+ \(r:(\d+)/.exec(e.what);
  return m ? Number(m[1]) : undefined;
}

/** ` [SSH_FXP_READ, …]`: the SFTP packets logged right after the CHANNEL_DATA at `i` (what it carried), or ''. */
function sftpAfter(events: TraceEvent[], i: number): string {
  if (!events[i].what.startsWith('CHANNEL_DATA')) return '';
  const names: string[] = [];
  for (let j = i + 1; j < events.length && events[j].what.startsWith('SSH_FXP_'); j++)
    names.push(events[j].what.split(' (')[0]);
  return names.length ? ` [${names.join(', ')}]` : '';
}

/**
 * Counts the round trips of the first connection in `events` up to its first SSH_FXP_DATA reply, following only the
 * channel that reply came on (other channels open alongside and are not waited for).
 * @returns undefined when the trace has no SSH_FXP_DATA reply
 */
export function countRoundTrips(events: TraceEvent[]): RoundTrips | undefined {
  const conn = events.find((e) => e.what.startsWith('TCP connect'))?.conn ?? events[0]?.conn;
  const own = events.filter((e) => e.conn === conn);
  const end = own.findIndex((e) => e.dir === '<' && e.what.startsWith('SSH_FXP_DATA'));
  if (end < 0) return undefined;
  const carrier = [...own.slice(0, end)].reverse().find((e) => e.dir === '<' && e.what.startsWith('CHANNEL_DATA'));
  const local = carrier ? channelOf(carrier) : undefined;
  let remote: number | undefined;
  for (const e of own.slice(0, end)) {
    const m = /^CHANNEL_OPEN_CONFIRMATION \(r:(\d+), s:(\d+)\)/.exec(e.what);
    if (m && Number(m[1]) === local) remote = Number(m[2]);
  }
  const onPath = (e: TraceEvent): boolean => {
    if (e.dir === '=' || BACKGROUND.test(e.what)) return false;
    if (e.dir === '>' && e.what.startsWith('CHANNEL_WINDOW_ADJUST')) return false;
    const ch = channelOf(e);
    if (ch === undefined) return true;
    const ours = e.dir === '<' || e.what.startsWith('CHANNEL_OPEN ') ? local : remote;
    return ch === ours;
  };
  const path = own
    .slice(0, end + 1)
    .map((e, i) => ({ ...e, what: e.what + sftpAfter(own, i) }))
    .filter((e, i) => i === end || onPath(e));
  const rounds: Round[] = [];
  let cur: Round | null = null;
  let firstSentAt = 0;
  for (const e of path) {
    if (e.dir === '>') {
      if (!cur || cur.received.length) {
        cur = { sent: [], received: [], ms: 0 };
        rounds.push(cur);
        firstSentAt = e.t;
      }
      cur.sent.push(e.what);
    } else if (cur) {
      cur.received.push(e.what);
      cur.ms = e.t - firstSentAt;
    }
  }
  const tcp = own.find((e) => e.what.startsWith('TCP connect'));
  const connected = own.find((e) => e.what === 'TCP connected');
  if (tcp) rounds.unshift({ sent: ['SYN'], received: ['SYN-ACK'], ms: (connected?.t ?? tcp.t) - tcp.t });
  return { count: rounds.length, rounds, ms: own[end].t - (tcp?.t ?? own[0].t) };
}
