/**
 * Connecting: the socket (or the jump hosts' forwarding), the SSH handshake and login, then the connection's SFTP
 * channels (worker/channels.ts), the set-up's pipelined requests, and the watchers that fail every operation when
 * the connection is lost. {@link connect} runs these steps in order; each is its own function.
 */
import type { Duplex } from 'node:stream';
import type { Client, NegotiatedAlgorithms, SFTPWrapper } from 'ssh2';
import { SluiceError } from '../../errors';
import { InFlightBudget, RequestSlots } from '../../sftp/requestBudget';
import { RateBucket, RateGate } from '../../sftp/rateLimit';
import {
  assertSsh2Patched,
  serverIdent,
  serverSoftware,
  sftpLimits,
  ssh2ClientClass,
  type PatchedConnectConfig,
} from '../../ssh2x';
import { PacketTrace } from '../packetTrace';
import { SSH_IDENT_SOFTWARE, socketTo, tcpTimesOf } from '../preconnect';
import { ackPromptlyDuringSetup } from '../promptAck';
import { watchSetupRtt } from '../setupRtt';
import type { ConnectInfo, ConnectParams, Negotiated } from '../workerProtocol';
import { AuthTrace } from './authTrace';
import {
  measureRtt,
  openEarlyChannels,
  openSftp,
  prefetchOn,
  statAnswers,
  watchSftpReplies,
  type StatsInFlight,
} from './channels';
import { MAX_REQUEST_BYTES, type WorkerConn } from './conn';
import { connectionError, tooManyTries } from './connectErrors';
import { openJumpChain, type JumpChain } from './jump';
import { authHandlerFor, type SetupState } from './login';
import { startSignals } from './signals';

/**
 * A connection's upload bytes in flight ({@link InFlightBudget}): about 1 s of data at the rate the server answers,
 * at least 4 MiB; 32 MiB until measured, above 10 channels × sshd's 2 MiB window, so a fast link starts at full
 * speed. On a 4 MB/s link a cancel's cleanup then waits ~1 s behind the data already sent instead of ~5–10 s.
 */
export const UPLOAD_BUDGET = {
  initialBytes: 32 * 1024 * 1024,
  minBytes: 4 * 1024 * 1024,
  drainMs: 1000,
  periodMs: 250,
};

export function negotiatedOf(n: NegotiatedAlgorithms): Negotiated {
  return { kex: n.kex, serverHostKey: n.serverHostKey, cipher: n.cs.cipher, mac: n.cs.mac || '(implicit: AEAD)' };
}

/**
 * ssh2 writes every SSH packet to the socket on its own; with TCP_NODELAY each becomes a syscall and a
 * segment. Corking until the end of the current tick sends all packets produced in one burst (e.g. a
 * pump issuing K requests) with one writev, and still flushes before any wait (no Nagle-style stall).
 */
export function coalesceWritesPerTick(sock: Duplex): void {
  const write = sock.write.bind(sock) as (...args: unknown[]) => boolean;
  let corked = false;
  const uncork = () => {
    corked = false;
    sock.uncork();
  };
  sock.write = ((...args: unknown[]) => {
    if (!corked) {
      corked = true;
      sock.cork();
      process.nextTick(uncork);
    }
    return write(...args);
  }) as typeof sock.write;
}

/** The transport under the target's SSH connection, and how to end the jump hosts it runs through. */
interface Transport {
  sock: Duplex;
  /** Our identification string already left on `sock` (the preconnected socket). */
  identSent: boolean;
  chain: JumpChain | null;
  endHops(): void;
}

/**
 * What the target's SSH connection runs over: a TCP socket (the preconnected one when it goes there), or with jump
 * hosts the last hop's forwarding (worker/jump.ts), and how to end those hops.
 */
async function transportFor(conn: WorkerConn, params: ConnectParams): Promise<Transport> {
  if (!params.jump?.length) {
    const direct = socketTo(params.host, params.port);
    coalesceWritesPerTick(direct.sock);
    return { ...direct, chain: null, endHops: () => undefined };
  }
  const chain = await openJumpChain(conn, params, coalesceWritesPerTick);
  const endHops = () => {
    for (const h of [...chain.hops].reverse()) h.end();
  };
  return { sock: chain.sock, identSent: false, chain, endHops };
}

/** An authenticated SSH connection, before its SFTP channels. */
interface Handshaken {
  client: Client;
  transport: Transport;
  setup: SetupState;
  negotiated?: Negotiated;
  /** The set-up exchange's round trip (ssh/setupRtt.ts), once measured. */
  setupRtt(): number | undefined;
  /** Ends the prompt acknowledgements of set-up (ssh/promptAck.ts). */
  stopAcking(): void;
}

/**
 * ssh2's options for the target: our identification (sent already on a preconnected socket), the patch's pipelined
 * OpenSSH set-up, keepalives and timeout, the host key asked of the coordinator, and the login.
 */
function clientConfig(
  conn: WorkerConn,
  params: ConnectParams,
  client: Client,
  t: Transport,
  setup: SetupState,
): PatchedConnectConfig {
  return {
    sock: t.sock,
    host: params.host,
    port: params.port,
    username: params.username,
    algorithms: params.algorithms,
    // Patched ssh2 (patches/ssh2+*.patch): with OpenSSH, Dropbear, ProFTPD or SFTPGo, a pipelined set-up
    // (docs/round-trips.md).
    pipelineOpenSSH: true,
    ident: SSH_IDENT_SOFTWARE,
    sluiceIdentSent: t.identSent,
    keepaliveInterval: params.keepaliveIntervalMs,
    keepaliveCountMax: params.keepaliveCountMax,
    readyTimeout: params.readyTimeoutMs,
    debug: debugOf(params, t),
    hostVerifier: (key: Buffer, verify: (ok: boolean) => void) => {
      void conn.link.ask({ kind: 'hostkey', key: new Uint8Array(key) }).then((answer) => {
        if (answer.kind === 'hostkey-answer' && answer.accept) {
          verify(true);
          return;
        }
        const error = answer.kind === 'hostkey-answer' ? answer.error : undefined;
        setup.refusal = error ? SluiceError.fromInfo(error) : new SluiceError('HOSTKEY_REJECTED', 'host key refused');
        verify(false);
      });
    },
    authHandler: authHandlerFor(conn.link, params, client, t.sock, setup),
  };
}

/**
 * ssh2's `debug` function: SLUICE_SSH_DEBUG=1 prints the SSH protocol (packet types only, never payloads or secrets)
 * on stderr; a trace file (ConnectParams.trace) records every packet with its time (ssh/packetTrace.ts).
 */
function debugOf(params: ConnectParams, t: Transport): ((m: string) => void) | undefined {
  const print = process.env.SLUICE_SSH_DEBUG
    ? (m: string) => process.stderr.write(`ssh[${params.host}:${params.port}] ${m}\n`)
    : undefined;
  if (!params.trace) return print;
  const trace = new PacketTrace(params.trace, `${params.host}:${params.port}`);
  trace.tcp(tcpTimesOf(t.sock));
  return trace.debug(print);
}

/** Resolves once `client` is authenticated; rejects with the set-up's error (a refusal of ours first). */
function readyOf(client: Client, params: ConnectParams, setup: SetupState): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    client.once('ready', () => {
      setup.trace.succeeded();
      resolve();
    });
    // An unreachable ssh-agent is reported as an 'error' with level 'agent'; ssh2 then tries the next method.
    client.on('error', (e: Error & { level?: string }) => {
      if (e.level !== 'agent') reject(setup.refusal ?? connectionError(e, params, setup.logins, setup.trace));
    });
    client.once('close', () =>
      reject(
        setup.refusal ??
          (setup.logins.refused > 0
            ? tooManyTries(params, setup.logins.tried)
            : new SluiceError('CONNECTION_LOST', `connection to ${params.host}:${params.port} closed during setup`)),
      ),
    );
  });
}

/** The transport, the SSH handshake and the login: an authenticated client (the hops closed again on failure). */
async function handshake(conn: WorkerConn, params: ConnectParams): Promise<Handshaken> {
  assertSsh2Patched();
  const client = new (ssh2ClientClass())();
  const setup: SetupState = {
    refusal: null,
    authMethod: 'none',
    logins: { tried: 0, refused: 0 },
    trace: new AuthTrace((message) => conn.link.post({ kind: 'auth-note', message })),
  };
  const transport = await transportFor(conn, params);
  const out: Handshaken = {
    client,
    transport,
    setup,
    stopAcking: ackPromptlyDuringSetup(transport.sock, client),
    setupRtt: watchSetupRtt(transport.sock, client),
  };
  const ready = readyOf(client, params, setup);
  client.on('handshake', (n) => {
    out.negotiated = negotiatedOf(n);
  });
  client.on('hostkeys', (keys: Array<{ getPublicSSH(): Buffer }>) => {
    conn.link.post({ kind: 'hostkeys', keys: keys.map((k) => new Uint8Array(k.getPublicSSH())) });
  });
  client.connect(clientConfig(conn, params, client, transport, setup));
  try {
    await ready;
  } catch (e) {
    transport.endHops();
    throw e;
  }
  return out;
}

/** From now on a lost connection fails every operation at once, and the coordinator hears of it. */
function watchLoss(conn: WorkerConn, client: Client, params: ConnectParams, endHops: () => void): void {
  client.on('error', (e: Error & { level?: string }) => {
    if (e.level !== 'agent') conn.failAll(connectionError(e, params));
  });
  client.on('close', () => {
    endHops();
    conn.failAll(
      conn.closedError ?? new SluiceError('CONNECTION_LOST', `connection to ${params.host}:${params.port} was lost`),
    );
    conn.link.post({ kind: 'closed', code: conn.closedError!.code, message: conn.closedError!.message });
  });
}

/**
 * The connection's RTT: two keepalives in a row and the set-up exchange's round trip, the smallest kept: sshd may
 * answer any of them late while it is busy (after authentication, or on a loaded machine, where a loopback RTT read
 * over 5 ms once and sized the pool for a slow link).
 */
async function connectionRtt(client: Client, setupRtt: () => number | undefined): Promise<number | undefined> {
  const samples = [await measureRtt(client), await measureRtt(client), setupRtt()].filter(
    (x): x is number => x !== undefined,
  );
  return samples.length ? Math.min(...samples) : undefined;
}

/**
 * Opens the connection's first `params.channels` SFTP channels in parallel (each takes 2 round trips with OpenSSH:
 * CHANNEL_OPEN, then subsystem + INIT + limits pipelined by the ssh2 patch; 4 elsewhere), the set-up's requests
 * riding on them, and on a slow link starts the automatic extra ones, which connect does not wait for (a small job
 * starts at once; addChannels hands them out when the pool grows).
 */
function openFirstChannels(
  conn: WorkerConn,
  h: Handshaken,
  params: ConnectParams,
  rtt: Promise<number | undefined>,
  statsSent: StatsInFlight,
): Promise<SFTPWrapper[]> {
  const reads = params.prefetch?.read ?? [];
  const first = { stats: params.prefetch?.stat ?? [], statsSent, reads, probeDir: params.prefetch?.probeDir };
  const other = { stats: [], statsSent, reads };
  const auto = params.autoChannels;
  const awaited = channelsAwaited(params, h.setupRtt());
  const opening = Promise.all(
    Array.from({ length: awaited }, (_, i) =>
      openSftp(conn, h.client, (s) => prefetchOn(conn, s, i === 0 ? first : other)),
    ),
  );
  conn.earlyChannels =
    auto && auto.channels > awaited
      ? openEarlyChannels(conn, h.client, auto.channels - awaited, auto, h.setupRtt(), rtt, (s) => {
          prefetchOn(conn, s, other);
          conn.earlyAhead.channelReady(s);
        })
      : null;
  return opening;
}

/**
 * How many of the first channels connect waits for: `params.channels`, except when the automatic extra channels
 * start opening with the first (the set-up exchange already took `earlyRttMs`): then only the first, whose
 * subsystem request rides behind its CHANNEL_OPEN (docs/round-trips.md). Every other channel takes one round trip
 * more (CHANNEL_OPEN, subsystem, then INIT once sshd opens its window), and a segmented put's second channel
 * (AUTO_TUNE.segmentedPutChannels) held its first byte back by that round trip at 50 ms; it comes up with the early
 * ones instead, as the other eight do.
 */
export function channelsAwaited(params: Pick<ConnectParams, 'channels' | 'autoChannels'>, setupRttMs?: number): number {
  const auto = params.autoChannels;
  const early = auto !== undefined && setupRttMs !== undefined && setupRttMs >= auto.earlyRttMs;
  return early && auto.channels > 1 ? 1 : params.channels;
}

/** What the coordinator learns of a new connection (see ConnectInfo). */
async function connectInfo(
  h: Handshaken,
  sftp: SFTPWrapper[],
  rtt: Promise<number | undefined>,
  statsSent: StatsInFlight,
): Promise<ConnectInfo> {
  const limits = sftpLimits(sftp[0]);
  return {
    negotiated: h.negotiated ?? { kex: '?', serverHostKey: '?', cipher: '?', mac: '?' },
    serverVersion: serverIdent(h.client),
    maxRead: Math.min(limits.maxReadLen, MAX_REQUEST_BYTES),
    maxWrite: Math.min(limits.maxWriteLen, MAX_REQUEST_BYTES),
    extensions: limits.extensions,
    authMethod: h.setup.authMethod,
    rttMs: await rtt,
    channels: sftp.length,
    ordersRequests: /^OpenSSH_/.test(serverSoftware(h.client)) && limits.extensions['limits@openssh.com'] !== undefined,
    prefetchedStats: await statAnswers(statsSent),
  };
}

/**
 * Connects `conn` (the `connect` operation): handshake and login, the loss watchers, the RTT, the SFTP channels
 * with the set-up's requests, then the connection's budgets, counters and signals.
 * @returns what the coordinator needs to know, with the answers of the set-up's STATs
 * @throws SluiceError the set-up's failure (see connectErrors.ts)
 */
export async function connect(conn: WorkerConn, params: ConnectParams): Promise<ConnectInfo> {
  const h = await handshake(conn, params);
  watchLoss(conn, h.client, params, h.transport.endHops);
  conn.channelWindow = params.channelWindow ?? 0;
  const rtt = connectionRtt(h.client, h.setupRtt);
  const statsSent: StatsInFlight = new Map();
  const sftp = await openFirstChannels(conn, h, params, rtt, statsSent);
  const info = await connectInfo(h, sftp, rtt, statsSent);
  void Promise.resolve(conn.earlyChannels).then(h.stopAcking, h.stopAcking);
  watchSftpReplies(conn, h.client, sftp, params);
  conn.open = {
    client: h.client,
    sock: h.transport.sock,
    hops: h.transport.chain?.hops ?? [],
    hopSock: h.transport.chain?.firstSock,
    sftp,
    slots: sftp.map(() => new RequestSlots(params.requests)),
    uploads: new InFlightBudget(UPLOAD_BUDGET),
    rate: new RateGate(params.rateLimits.map((buffer) => new RateBucket({ buffer }))),
    counters: new Float64Array(params.counters),
    info,
    params,
    nextChannel: 0,
    hashTraits: {},
  };
  if (params.signals) startSignals(conn, params.signals);
  return info;
}
