/**
 * The worker's bottleneck signals (issue #16): what this connection's requests, channels, thread and socket are
 * doing, sampled every {@link TICK_MS} (every {@link IDLE_TICK_MS} while idle) into the connection's shared signal
 * slots (sftp/pipeStats.ts `SIG`), which the coordinator reads once a second (transfer/bottleneckSampler.ts) and
 * app/common/stats/bottleneck.ts classifies.
 *
 * Sampling instead of timing every request keeps the data path as it was: the pipelines only bump counters, and
 * this timer reads them (time-weighted means by sampling, mean reply time by Little's law from them). While requests
 * are outstanding it also times a keepalive@openssh.com round trip (OpenSSH PROTOCOL §2.2; sshd answers it itself,
 * not the SFTP subsystem) once a second: a keepalive that queues behind our data says the link is full, one that
 * comes back fast while SFTP replies do not says the server is slow.
 */
import type net from 'node:net';
import { performance } from 'node:perf_hooks';
import { COUNTERS_PER_CHANNEL, COUNTER_OUTSTANDING } from '../../sftp/pipeline';
import { SIG, pipeStats } from '../../sftp/pipeStats';
import { channelWindows, sendPing } from '../../ssh2x';
import { readTcpInfo, type TcpInfo } from '../../sys/tcpInfo';
import type { OpenConn, WorkerConn } from './conn';

/** Sampling period while requests are outstanding, ms: 40 samples per one-second verdict, a few µs of work each. */
export const TICK_MS = 25;
/** Sampling period of an idle connection, ms (an app keeps idle connections for hours: 4 wake-ups a second, not 40). */
export const IDLE_TICK_MS = 250;
/**
 * TCP_INFO is read every this many ticks (1 s while busy, once per verdict): its reader may fall back to something
 * slower than a getsockopt (sys/tcpInfo.ts), which must not run 40 times a second per connection.
 */
const TCP_TICKS = 40;
/** A keepalive is timed at most this often while requests are outstanding, ms. */
const PING_EVERY_MS = 1000;

/** Requests of the connection awaiting a reply or their local I/O (the channels' `outstanding` counters). */
function outstanding(c: OpenConn): number {
  let n = 0;
  for (let ch = 0; ch < c.sftp.length; ch++) n += c.counters[ch * COUNTERS_PER_CHANNEL + COUNTER_OUTSTANDING] || 0;
  return n;
}

/** Writes TCP_INFO into the slots (NaN when the platform reports nothing). */
function writeTcp(sig: Float64Array, t: TcpInfo | undefined): void {
  sig[SIG.tcpRttUs] = t ? t.rttUs : NaN;
  sig[SIG.tcpMinRttUs] = t?.minRttUs ?? NaN;
  sig[SIG.tcpCwndBytes] = t ? t.sndCwnd * t.sndMss : NaN;
  sig[SIG.tcpRetrans] = t ? t.totalRetrans : NaN;
  sig[SIG.tcpRwndLimitedUs] = t?.rwndLimitedUs ?? NaN;
  sig[SIG.tcpBusyUs] = t?.busyTimeUs ?? NaN;
}

/** The TCP socket under the connection: the first hop's with jump hosts, else the connection's own. */
function tcpSocket(c: OpenConn): net.Socket | undefined {
  const s = (c.hopSock ?? c.sock) as Partial<net.Socket>;
  return typeof s.remoteAddress === 'string' || typeof s.setNoDelay === 'function' ? (s as net.Socket) : undefined;
}

/**
 * Starts sampling `conn` into `buffer` until it closes.
 * @param buffer the connection's signal memory (SIGNAL_SLOTS float64s), shared with the coordinator
 * @returns stop(), for tests; the timer is unref'd and also stops by itself when the connection is gone
 */
export function startSignals(conn: WorkerConn, buffer: SharedArrayBuffer): () => void {
  const sig = new Float64Array(buffer);
  const elu0 = performance.eventLoopUtilization();
  const ping = { sentAt: 0, pending: false, lastMs: 0, lastSent: 0 };
  let tick = 0;
  let tcpPending = false;
  let last = performance.now();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const sample = (): void => {
    const c = conn.open;
    if (!c || conn.closedError || stopped) return;
    const now = performance.now();
    // Each sample stands for the time since the previous one (in TICK_MS units): idle ticks are sparse, and a tick
    // delayed by a busy loop counts for the time it was held.
    const weight = Math.min(now - last, 1000) / TICK_MS;
    last = now;
    const waiting = outstanding(c);
    const local = pipeStats.localOps;
    sig[SIG.samples] += weight;
    sig[SIG.remoteSum] += Math.max(0, waiting - local) * weight;
    sig[SIG.localSum] += local * weight;
    sig[SIG.readsDone] = pipeStats.readsDone;
    sig[SIG.writesDone] = pipeStats.writesDone;
    const windows = channelWindows(c.sftp);
    if (windows.some((w) => w.waitingForWindow)) sig[SIG.windowWaitTicks] += weight;
    if (waiting > 0 && !ping.pending && now - ping.lastSent >= PING_EVERY_MS) {
      ping.pending = sendPing(c.client, () => {
        ping.pending = false;
        ping.lastMs = performance.now() - ping.sentAt;
      });
      ping.sentAt = ping.lastSent = now;
    }
    sig[SIG.pingMs] = ping.pending ? Math.max(ping.lastMs, now - ping.sentAt) : ping.lastMs;
    const elu = performance.eventLoopUtilization(elu0);
    sig[SIG.eluActiveMs] = elu.active;
    sig[SIG.eluIdleMs] = elu.idle;
    sig[SIG.baseRttMs] = c.info.rttMs ?? 0;
    sig[SIG.requestLimit] = c.slots.reduce((a, s) => a + s.limit, 0);
    sig[SIG.receiveWindow] = windows.reduce((a, w) => a + w.incomingMax, 0);
    if (tick++ % TCP_TICKS === 0 && !tcpPending) {
      const sock = tcpSocket(c);
      tcpPending = true;
      void (sock ? readTcpInfo(sock) : Promise.resolve(undefined)).then((t) => {
        tcpPending = false;
        if (!stopped) writeTcp(sig, t);
      });
    }
    timer = setTimeout(sample, waiting > 0 || local > 0 ? TICK_MS : IDLE_TICK_MS);
    timer.unref();
  };
  timer = setTimeout(sample, TICK_MS);
  timer.unref();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
