/**
 * Connecting: the socket, the SSH handshake and authentication, the RTT, the SFTP channels (set-up pipelined with the
 * job's first requests), their receive windows, and the stall watchdog.
 */
import type { Duplex } from 'node:stream';
import { Client, type SFTPWrapper } from 'ssh2';
import { SluiceError, displayText, hostNotFoundError } from '../../errors';
import { InFlightBudget, RequestSlots } from '../../sftp/pipeline';
import { RateBucket, RateGate } from '../../sftp/rateLimit';
import {
  assertSsh2Patched, awaitingReplies, holdReadyTimeout, onChannelData, sendPing, serverIdent, serverSoftware, setReceiveWindow, sftpLimits, withEarlyHook,
} from '../../ssh2x';
import { makeAuthHandler } from '../auth';
import { SSH_IDENT_SOFTWARE, socketTo } from '../preconnect';
import { ackPromptlyDuringSetup, type IgnoreCapableClient } from '../promptAck';
import { watchSetupRtt } from '../setupRtt';
import type { ConnectInfo, ConnectParams, Negotiated, ToWorker, WorkerOps } from '../workerProtocol';
import { AuthTrace } from './authTrace';
import { handlesAhead } from './handles';
import { openJumpChain, type JumpChain } from './jump';
import { probeIn } from './probe';
import { startSignals } from './signals';
import { openRemote, statOn } from './sftpCalls';
import { MAX_REQUEST_BYTES, ask, failAll, post, requireConn, state, type Question } from './state';

/**
 * A connection's upload bytes in flight ({@link InFlightBudget}): about 1 s of data at the rate the server answers,
 * at least 4 MiB; 32 MiB until measured, above 10 channels × sshd's 2 MiB window, so a fast link starts at full
 * speed. On a 4 MB/s link a cancel's cleanup then waits ~1 s behind the data already sent instead of ~5–10 s.
 */
export const UPLOAD_BUDGET = { initialBytes: 32 * 1024 * 1024, minBytes: 4 * 1024 * 1024, drainMs: 1000, periodMs: 250 };

export function negotiatedOf(n: { kex: string; serverHostKey: string; cs: { cipher: string; mac: string } }): Negotiated {
  return { kex: n.kex, serverHostKey: n.serverHostKey, cipher: n.cs.cipher, mac: n.cs.mac || '(implicit: AEAD)' };
}

/**
 * The error a connection failed with, as a SluiceError.
 * @param logins passwords or keyboard-interactive logins tried and refused so far during set-up: a server that closes
 *   the connection after refusing one reached its limit of tries (OpenSSH: MaxAuthTries, "Too many authentication
 *   failures")
 */
export function connectionError(e: Error & { level?: string }, params: ConnectParams, logins: LoginTally = { tried: 0, refused: 0 }, trace?: AuthTrace): SluiceError {
  const where = `${params.host}:${params.port}`;
  if (e instanceof SluiceError) return e;
  if (e.level === 'client-authentication') {
    return trace ? trace.failure(`${params.username}@${where}`)
      : new SluiceError('AUTH_FAILED', `authentication failed for ${params.username}@${where}: all offered methods were refused`);
  }
  const negotiation = negotiationError(e, where, params.algorithms);
  if (negotiation) return negotiation;
  if (/too many authentication failures/i.test(e.message) || (logins.refused > 0 && e.level !== 'client-timeout')) return tooManyTries(params, logins.tried, e.message);
  // ssh2 reports a keepalive timeout with level 'client-timeout' too: test for it first.
  if (/keepalive/i.test(e.message)) return new SluiceError('CONNECTION_STALLED', `connection to ${where} stalled: no keepalive reply after ${params.keepaliveCountMax} tries`);
  if (e.level === 'client-timeout') return new SluiceError('TIMEOUT', `timed out connecting to ${where} after ${params.readyTimeoutMs} ms`);
  // A connection never made is not lost: its own codes (a refusal stays transient: a server restarting refuses a while).
  if ((e as NodeJS.ErrnoException).code === 'ECONNREFUSED') return new SluiceError('CONNECTION_REFUSED', `connection refused by ${where}`);
  const notFound = hostNotFoundError(e, params.host);
  if (notFound) return notFound;
  return new SluiceError('CONNECTION_LOST', `connection to ${where} failed: ${e.message}`);
}

/** ssh2's handshake text `no matching C->S cipher` -> the family of ssh2's `algorithms` option it is about. */
const NEGOTIATED_FAMILIES: ReadonlyArray<[RegExp, string, string]> = [
  [/no matching key exchange/i, 'kex', 'key exchange method'],
  [/no matching host key/i, 'serverHostKey', 'host-key algorithm'],
  [/no matching .*cipher/i, 'cipher', 'cipher'],
  [/no matching .*MAC/i, 'hmac', 'MAC'],
];

/**
 * NEGOTIATION_FAILED for a key exchange that found no algorithm both sides accept (RFC 4253 §7.1), naming the family
 * and what Sluice offered (the server's own list is not reported by ssh2); undefined for any other error.
 * @param offered the connection's ssh2 `algorithms` option (each family's names, most preferred first)
 */
export function negotiationError(e: Error & { level?: string }, where: string, offered?: ConnectParams['algorithms']): SluiceError | undefined {
  if (e.level !== 'handshake' || !/no matching/i.test(e.message)) return undefined;
  const found = NEGOTIATED_FAMILIES.find(([re]) => re.test(e.message));
  const list = found ? (offered as Record<string, unknown> | undefined)?.[found[1]] : undefined;
  const names = Array.isArray(list) ? ` (offered: ${list.join(', ')})` : '';
  const what = found ? `the server accepts no ${found[2]} Sluice offered${names}` : 'no algorithm both sides accept';
  return new SluiceError('NEGOTIATION_FAILED', `cannot agree on algorithms with ${where}: ${what} [${e.message.replace(/^Handshake failed: /, '')}]`);
}

/** Password and keyboard-interactive logins of a connection's set-up: sent, and refused by the server. */
export interface LoginTally {
  tried: number;
  refused: number;
}

/** AUTH_FAILED for a server that closed the connection after refusing passwords or codes: its limit of tries. */
function tooManyTries(params: ConnectParams, tried: number, serverText?: string): SluiceError {
  const tries = tried > 0 ? ` after ${tried} password or keyboard-interactive tries` : '';
  return new SluiceError('AUTH_FAILED', `authentication failed for ${params.username}@${params.host}:${params.port}: the server closed the connection${tries}`
    + ` (its limit of tries, e.g. OpenSSH's MaxAuthTries)${serverText ? `: ${displayText(serverText, 200)}` : ''}`);
}

/**
 * ssh2 writes every SSH packet to the socket on its own; with TCP_NODELAY each becomes a syscall and a
 * segment. Corking until the end of the current tick sends all packets produced in one burst (e.g. a
 * pump issuing K requests) with one writev, and still flushes before any wait (no Nagle-style stall).
 */
export function coalesceWritesPerTick(sock: Duplex): void {
  const write = sock.write.bind(sock) as (...args: unknown[]) => boolean;
  let corked = false;
  const uncork = () => { corked = false; sock.uncork(); };
  sock.write = ((...args: unknown[]) => {
    if (!corked) { corked = true; sock.cork(); process.nextTick(uncork); }
    return write(...args);
  }) as typeof sock.write;
}

/** What set-up learns while it runs: why it was ended on our side, the login method sent last, the logins tried. */
interface SetupState {
  /** A refused host key, or a login prompt no one can answer. */
  refusal: SluiceError | null;
  authMethod: string;
  logins: LoginTally;
  /** Each method offered and the server's answers, for `-v` and the failure message. */
  trace: AuthTrace;
}

/**
 * The ssh2 `authHandler` of a connection: {@link makeAuthHandler} over the posted material, its questions asked of the
 * coordinator, and the set-up state kept up to date (the method sent, password and keyboard-interactive logins tried
 * and refused; a prompt no one can answer ends the connection with its error).
 */
function authHandlerFor(params: ConnectParams, client: Client, sock: Duplex, setup: SetupState): unknown {
  /** A question to the coordinator that waits for a person: ssh2's ready timer is held meanwhile. */
  const askPerson = async (q: Question): Promise<ToWorker> => {
    const resume = holdReadyTimeout(client, sock, params.readyTimeoutMs);
    try {
      return await ask(q);
    } finally {
      resume();
    }
  };
  // Buffers arrive as plain Uint8Arrays after postMessage's structured clone; ssh2 wants Buffers.
  const auth = { ...params.auth, keys: params.auth.keys.map((k) => ({ ...k, privateKey: Buffer.from(k.privateKey) })) };
  const base = makeAuthHandler(auth, {
    password: params.canAskPassword ? async (again) => {
      const answer = await askPerson({ kind: 'password', again });
      return answer.kind === 'password-answer' ? answer.password : undefined;
    } : undefined,
    keyboard: async (round) => {
      const answer = await askPerson({ kind: 'keyboard', round });
      if (answer.kind !== 'keyboard-answer' || answer.error || !answer.answers) {
        throw answer.kind === 'keyboard-answer' && answer.error ? SluiceError.fromInfo(answer.error) : new SluiceError('AUTH_FAILED', 'keyboard-interactive: no answers');
      }
      return answer.answers;
    },
    fail: (e) => {
      setup.refusal ??= e;
      client.end();
    },
    offered: (what) => setup.trace.offered(what),
    agentKeys: (keys) => setup.trace.listedAgentKeys(keys),
  }) as unknown as (a: unknown, b: unknown, c: (m: unknown) => void) => void;
  const login = (t: string): boolean => t === 'password' || t === 'keyboard-interactive';
  return (methodsLeft: string[] | null, partial: boolean | null, next: (m: unknown) => void) => {
    setup.trace.answered(methodsLeft, partial);
    base(methodsLeft, partial, (m) => {
      // Called again after an attempt: a password or keyboard-interactive login just refused counts towards the
      // server's limit (a close that follows is "too many tries", not a lost connection).
      if (methodsLeft !== null && partial !== true && login(setup.authMethod)) setup.logins.refused++;
      if (m && typeof m === 'object' && 'type' in m) setup.authMethod = String((m as { type: string }).type);
      else if (typeof m === 'string') setup.authMethod = m;
      if (m && login(setup.authMethod)) setup.logins.tried++;
      next(m);
    });
  };
}

/**
 * What the target's SSH connection runs over: a TCP socket (the preconnected one when it goes there), or with jump
 * hosts the last hop's forwarding (worker/jump.ts), and how to end those hops.
 */
async function transportFor(params: ConnectParams): Promise<{ sock: Duplex; identSent: boolean; chain: JumpChain | null; endHops(): void }> {
  if (!params.jump?.length) {
    const direct = socketTo(params.host, params.port);
    coalesceWritesPerTick(direct.sock);
    return { ...direct, chain: null, endHops: () => undefined };
  }
  const chain = await openJumpChain(params, coalesceWritesPerTick);
  return { sock: chain.sock, identSent: false, chain, endHops: () => { for (const h of [...chain.hops].reverse()) h.end(); } };
}

export async function connect(params: ConnectParams): Promise<ConnectInfo> {
  assertSsh2Patched();
  const client = new Client();
  let negotiated: Negotiated | undefined;
  const setup: SetupState = {
    refusal: null, authMethod: 'none', logins: { tried: 0, refused: 0 }, trace: new AuthTrace((message) => post({ kind: 'auth-note', message })),
  };
  const { sock, identSent, chain, endHops } = await transportFor(params);
  const stopAcking = ackPromptlyDuringSetup(sock, client as unknown as IgnoreCapableClient);
  const setupRtt = watchSetupRtt(sock, client);

  const ready = new Promise<void>((resolve, reject) => {
    client.once('ready', () => { setup.trace.succeeded(); resolve(); });
    // An unreachable ssh-agent is reported as an 'error' with level 'agent'; ssh2 then tries the next method.
    client.on('error', (e: Error & { level?: string }) => { if (e.level !== 'agent') reject(setup.refusal ?? connectionError(e, params, setup.logins, setup.trace)); });
    client.once('close', () => reject(setup.refusal ?? (setup.logins.refused > 0 ? tooManyTries(params, setup.logins.tried)
      : new SluiceError('CONNECTION_LOST', `connection to ${params.host}:${params.port} closed during setup`))));
  });
  client.on('handshake', (n) => { negotiated = negotiatedOf(n as never); });
  client.on('hostkeys', (keys: Array<{ getPublicSSH(): Buffer }>) => {
    post({ kind: 'hostkeys', keys: keys.map((k) => new Uint8Array(k.getPublicSSH())) });
  });

  client.connect({
    sock,
    host: params.host,
    port: params.port,
    username: params.username,
    algorithms: params.algorithms,
    // Patched ssh2 (patches/ssh2+*.patch): with an OpenSSH server, save four setup round trips.
    pipelineOpenSSH: true,
    ident: SSH_IDENT_SOFTWARE,
    sluiceIdentSent: identSent,
    keepaliveInterval: params.keepaliveIntervalMs,
    keepaliveCountMax: params.keepaliveCountMax,
    readyTimeout: params.readyTimeoutMs,
    // SLUICE_SSH_DEBUG=1 traces the SSH protocol (packet types only, never payloads or secrets).
    debug: process.env.SLUICE_SSH_DEBUG ? (m: string) => process.stderr.write(`ssh[${params.host}:${params.port}] ${m}\n`) : undefined,
    hostVerifier: (key: Buffer, verify: (ok: boolean) => void) => {
      ask({ kind: 'hostkey', key: new Uint8Array(key) }).then((answer) => {
        if (answer.kind === 'hostkey-answer' && answer.accept) verify(true);
        else {
          const error = answer.kind === 'hostkey-answer' ? answer.error : undefined;
          setup.refusal = error ? SluiceError.fromInfo(error) : new SluiceError('HOSTKEY_REJECTED', 'host key refused');
          verify(false);
        }
      });
    },
    authHandler: authHandlerFor(params, client, sock, setup) as never,
  } as never);
  try {
    await ready;
  } catch (e) {
    endHops();
    throw e;
  }

  client.on('error', (e: Error & { level?: string }) => { if (e.level !== 'agent') failAll(connectionError(e, params)); });
  client.on('close', () => {
    endHops();
    failAll(state.closedError ?? new SluiceError('CONNECTION_LOST', `connection to ${params.host}:${params.port} was lost`));
    post({ kind: 'closed', code: state.closedError!.code, message: state.closedError!.message });
  });

  state.channelWindow = params.channelWindow ?? 0;
  // Two keepalives in a row and the set-up exchange's round trip, the smallest kept: sshd may answer any of them
  // late while it is busy (after authentication, or on a loaded machine, where a loopback RTT read over 5 ms once
  // and sized the pool for a slow link).
  const rtt = measureRtt(client).then(async (a) => {
    const samples = [a, await measureRtt(client), setupRtt()].filter((x): x is number => x !== undefined);
    return samples.length ? Math.min(...samples) : undefined;
  });
  // Channels open in parallel (each takes 2 round trips with OpenSSH: CHANNEL_OPEN, then subsystem + INIT +
  // limits pipelined by the ssh2 patch; 4 elsewhere). connect does not wait for the automatic extra ones (a small
  // job starts at once) and addChannels hands them out when the pool grows.
  const stats = params.prefetch?.stat ?? [];
  const reads = params.prefetch?.read ?? [];
  const opening = Promise.all(Array.from({ length: params.channels },
    (_, i) => openSftp(client, (s) => (i === 0 ? prefetchOn(s, stats, reads, params.prefetch?.probeDir) : prefetchOn(s, [], reads)))));
  const auto = params.autoChannels;
  state.earlyChannels = auto && auto.channels > params.channels
    ? openEarlyChannels(client, auto.channels - params.channels, auto, setupRtt(), rtt, (s) => prefetchOn(s, [], reads))
    : null;
  const sftp = await opening;
  const limits = sftpLimits(sftp[0]);
  const software = serverSoftware(client);
  const info: ConnectInfo = {
    negotiated: negotiated ?? { kex: '?', serverHostKey: '?', cipher: '?', mac: '?' },
    serverVersion: serverIdent(client),
    maxRead: Math.min(limits.maxReadLen, MAX_REQUEST_BYTES),
    maxWrite: Math.min(limits.maxWriteLen, MAX_REQUEST_BYTES),
    extensions: limits.extensions,
    authMethod: setup.authMethod,
    rttMs: await rtt,
    channels: sftp.length,
    ordersRequests: /^OpenSSH_/.test(software) && limits.extensions['limits@openssh.com'] !== undefined,
  };
  void Promise.resolve(state.earlyChannels).then(stopAcking, stopAcking);
  watchSftpReplies(client, sftp, params);
  state.conn = {
    client,
    sock,
    hops: chain?.hops ?? [],
    hopSock: chain?.firstSock,
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
  if (params.signals) startSignals(params.signals);
  return info;
}

/**
 * The automatic extra SFTP channels of a slow link. They start opening with the first channel when the set-up
 * exchange already took `earlyRttMs` or more (two round trips sooner than the keepalive RTT would allow), and are
 * closed again if the keepalive RTT then says the link is fast (under `minRttMs`); otherwise they start once it
 * says slow.
 * @returns the channels that opened; [] on a fast link
 */
export async function openEarlyChannels(client: Client, count: number, auto: { minRttMs: number; earlyRttMs: number },
  setupRttMs: number | undefined, rtt: Promise<number | undefined>, early: (s: SFTPWrapper) => void): Promise<SFTPWrapper[]> {
  const slow = (ms: number | undefined) => ms !== undefined && ms >= auto.minRttMs;
  const openAll = () => Promise.allSettled(Array.from({ length: count }, () => openSftp(client, early)))
    .then((rs) => rs.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])));
  if (!(setupRttMs !== undefined && setupRttMs >= auto.earlyRttMs)) return slow(await rtt) ? openAll() : [];
  const opened = openAll();
  if (slow(await rtt)) return opened;
  for (const ch of await opened) ch.end();
  return [];
}

/**
 * Round-trip time of a `keepalive@openssh.com` global request (OpenSSH PROTOCOL §2.2's
 * keepalive, answered by sshd itself with SSH_MSG_REQUEST_FAILURE or SUCCESS), sent as soon as the connection
 * is authenticated so it overlaps opening the SFTP channels. ssh2 matches global replies to its `_callbacks`
 * queue in order (RFC 4254 §4), as its own keepalive does. Undefined when the internals are missing or no
 * reply comes within 10 s.
 */
export function measureRtt(client: Client): Promise<number | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 10_000);
    timer.unref();
    const t0 = process.hrtime.bigint();
    const sent = sendPing(client, () => {
      clearTimeout(timer);
      resolve(Number(process.hrtime.bigint() - t0) / 1e6);
    });
    if (!sent) { clearTimeout(timer); resolve(undefined); }
  });
}

/**
 * SSH keepalives prove the connection, not the SFTP server: a hung sftp-server behind a live sshd would
 * leave requests waiting forever. When requests are outstanding and no SFTP reply has arrived for
 * keepaliveInterval × keepaliveCountMax (60 s with keepalives off), the connection counts as stalled.
 */
export function watchSftpReplies(client: Client, channels: SFTPWrapper[], params: ConnectParams): void {
  const limitMs = params.keepaliveIntervalMs > 0 ? params.keepaliveIntervalMs * params.keepaliveCountMax : 60_000;
  const mark = () => { state.lastSftpReply = Date.now(); };
  for (const ch of channels) watchChannel(ch, mark);
  const timer = setInterval(() => {
    if (!state.conn || state.closedError) { clearInterval(timer); return; }
    // While nothing is outstanding the clock restarts, so an idle spell never counts as silence.
    if (!state.conn.sftp.some(awaitingReplies)) { state.lastSftpReply = Date.now(); return; }
    if (Date.now() - state.lastSftpReply <= limitMs) return;
    clearInterval(timer);
    failAll(new SluiceError('CONNECTION_STALLED', `SFTP server at ${params.host}:${params.port} stopped answering: no reply for ${Math.round(limitMs / 1000)} s`));
    client.destroy();
  }, Math.min(1000, Math.max(100, limitMs / 4)));
  timer.unref();
}

export function watchChannel(ch: SFTPWrapper, mark: () => void): void {
  onChannelData(ch, mark);
}

/**
 * Raises a channel's receive window (RFC 4254 §5.2). ssh2 fixes it at 2 MiB; patches/ssh2+*.patch makes
 * its window adjustments top up to `incoming.maxWindow` instead, so the next data packet sends the larger
 * SSH_MSG_CHANNEL_WINDOW_ADJUST.
 */
export function applyWindow(ch: SFTPWrapper): void {
  if (state.channelWindow > 0) setReceiveWindow(ch, state.channelWindow);
}

/**
 * Opens an SFTP channel. `early` runs when the patched ssh2 pipelines the set-up (OpenSSH server): right after
 * SSH_FXP_INIT is queued, before VERSION, so requests it sends share the set-up's round trips.
 */
export function openSftp(client: Client, early?: (s: SFTPWrapper) => void): Promise<SFTPWrapper> {
  return new Promise<SFTPWrapper>((resolve, reject) => {
    const done = (e: Error | undefined, s: SFTPWrapper) => {
      if (e) { reject(new SluiceError('REMOTE_FAILURE', `cannot open SFTP channel: ${e.message}`)); return; }
      applyWindow(s);
      resolve(s);
    };
    client.sftp(early ? withEarlyHook(done, early) : done);
  });
}

export async function setChannelWindow(a: WorkerOps['setChannelWindow'][0]): Promise<number> {
  const c = requireConn();
  state.channelWindow = a.bytes;
  for (const ch of c.sftp) applyWindow(ch);
  return state.channelWindow;
}

export async function addChannels(a: WorkerOps['addChannels'][0]): Promise<number> {
  const c = requireConn();
  const early = state.earlyChannels ? await state.earlyChannels : [];
  state.earlyChannels = null;
  for (const ch of early.slice(a.count)) ch.end();
  const reused = early.slice(0, a.count);
  // Opened together: each costs 2–4 round trips (CHANNEL_OPEN, subsystem, INIT/VERSION, limits). A server
  // may refuse some (OpenSSH MaxSessions, default 10 per connection): those that opened are used.
  const results = await Promise.allSettled(Array.from({ length: a.count - reused.length }, () => openSftp(c.client)));
  const opened = [...reused, ...results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))];
  const refused = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (refused && opened.length === 0) throw refused.reason;
  for (const ch of opened) {
    applyWindow(ch);
    watchChannel(ch, () => { state.lastSftpReply = Date.now(); });
    c.sftp.push(ch);
    c.slots.push(new RequestSlots(c.params.requests));
  }
  return c.sftp.length;
}

/** Sends the set-up's requests (ConnectParams.prefetch) on a channel whose INIT was just queued. */
export function prefetchOn(s: SFTPWrapper, stats: string[], reads: string[], probeDir?: string): void {
  if (probeDir !== undefined) {
    // VERSION has not arrived yet: the SSH software alone says whether replies come in order. Wrong, it only makes
    // the probe answer "no" (the read overtook the writes), and uploads go through one handle.
    state.prefetchedProbe = probeIn(s, probeDir, /^OpenSSH_/.test(serverSoftware(s)));
    state.prefetchedProbe.catch(() => undefined);
  }
  for (const p of stats) {
    const answer = statOn(s, p, true);
    answer.catch(() => undefined);
    state.prefetchedStats.set(p, answer);
  }
  for (const p of reads) handlesAhead.add(s, p, openRemote(s, p, 'r'));
}

