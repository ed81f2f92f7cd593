/**
 * One worker thread = one SSH connection and its SFTP channels. Cipher work, SFTP framing and the
 * file I/O of every transfer run here, off the coordinating thread; only commands, results and
 * counters cross the thread boundary (see workerProtocol.ts).
 */
import { parentPort } from 'node:worker_threads';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Client, utils as ssh2Utils, type SFTPWrapper } from 'ssh2';
import { makeAuthHandler } from './auth';
import { SegmentHandles, type SegmentHandle } from '../sftp/segmentHandles';
import { HandlesAhead } from '../sftp/handlesAhead';
import { SluiceError, fromLocalError, fromSftpError, type SftpOperation } from '../errors';
import { remoteSha256, type HashMethod, type HashTraits } from './remoteHash';
import { LeftoverJournal } from '../stores/leftovers';
import {
  COUNTERS_PER_CHANNEL, COUNTER_BYTES, InFlightBudget, RequestSlots, ShortFileError, downloadRange, uploadRange, type RangeOptions, type TaggedSftpError,
} from '../sftp/pipeline';
import type {
  ConnectInfo, ConnectParams, FromWorker, GetFileTask, Negotiated, OpName, PutFileTask, RangeTask,
  RemoteEntry, RemoteStat, ToWorker, WorkerOps,
} from './workerProtocol';
import { ackPromptlyDuringSetup, type IgnoreCapableClient } from './promptAck';
import { watchSetupRtt } from './setupRtt';
import { SSH_IDENT_SOFTWARE, socketTo } from './preconnect';
import {
  assertSsh2Patched, awaitingReplies, onChannelData, sendPing, serverSoftware, setReceiveWindow, sftpLimits, withEarlyHook,
} from '../ssh2x';

/** Largest request we issue even when a server allows more: 255 KiB, OpenSSH's own limit. */
const MAX_REQUEST_BYTES = 261120;
const PROGRESS_INTERVAL_MS = 200;
const S_IFMT = 0o170000;

const port = parentPort;
if (!port) throw new Error('worker.ts must run in a worker thread');

function post(msg: FromWorker): void {
  port!.postMessage(msg);
}

interface Conn {
  client: Client;
  sock: net.Socket;
  sftp: SFTPWrapper[];
  slots: RequestSlots[];
  /** Upload bytes in flight on this connection, across its channels. */
  uploads: InFlightBudget;
  counters: Float64Array;
  info: ConnectInfo;
  params: ConnectParams;
  nextChannel: number;
  /** Which remote hash methods work on this server (learned on first use). */
  hashTraits: HashTraits;
}

let conn: Conn | null = null;
let closedError: SluiceError | null = null;
/** Rejecters of every in-flight operation, failed together when the connection drops. */
const pending = new Set<(e: SluiceError) => void>();
let askId = 0;
const asks = new Map<number, (msg: ToWorker) => void>();
/** Abort controllers of running range tasks, by task id (coordinator sends `cancel`). */
const taskAborts = new Map<number, AbortController>();
/** Cancels that arrived before their task started its pipeline (e.g. while opening the file). */
const cancelledEarly = new Set<number>();

function failAll(e: SluiceError): void {
  if (!closedError) closedError = e;
  for (const reject of [...pending]) reject(e);
  pending.clear();
}

/** Runs an operation so that a connection loss rejects it at once instead of leaving it waiting. */
function guarded<T>(run: () => Promise<T>): Promise<T> {
  if (closedError) return Promise.reject(closedError);
  return new Promise<T>((resolve, reject) => {
    const rejecter = (e: SluiceError) => reject(e);
    pending.add(rejecter);
    run().then(
      (v) => { pending.delete(rejecter); resolve(v); },
      (e) => { pending.delete(rejecter); reject(e); },
    );
  });
}

function ask(msg: { kind: 'hostkey'; key: Uint8Array } | { kind: 'password' }): Promise<ToWorker> {
  const id = ++askId;
  return new Promise((resolve) => {
    asks.set(id, resolve);
    post({ ...msg, id } as FromWorker);
  });
}

function sftpOf(channel?: number): SFTPWrapper {
  const c = requireConn();
  if (channel === undefined) {
    channel = c.nextChannel;
    c.nextChannel = (c.nextChannel + 1) % c.sftp.length;
  }
  const s = c.sftp[channel];
  if (!s) throw new SluiceError('REMOTE_FAILURE', `no SFTP channel ${channel}`);
  return s;
}

function requireConn(): Conn {
  if (closedError) throw closedError;
  if (!conn) throw new SluiceError('CONNECTION_LOST', 'not connected');
  return conn;
}

/** Promise form of one ssh2 SFTP request; a failure names the request (`what`) and the path. */
function call<T>(fn: (cb: (err: Error | null | undefined, v: T) => void) => void, remotePath: string, what?: SftpOperation | string): Promise<T> {
  const op = typeof what === 'string' ? { op: what } : what;
  return new Promise<T>((resolve, reject) => {
    fn((err, v) => (err ? reject(fromSftpError(err, remotePath, op)) : resolve(v)));
  });
}

function statToRemote(a: { mode: number; size: number; mtime: number }): RemoteStat {
  const fmt = a.mode & S_IFMT;
  const type = fmt === 0o040000 ? 'dir' : fmt === 0o100000 ? 'file' : fmt === 0o120000 ? 'symlink' : 'other';
  return { type, size: a.size, mtimeMs: a.mtime * 1000, mode: a.mode & 0o7777 };
}

function negotiatedOf(n: { kex: string; serverHostKey: string; cs: { cipher: string; mac: string } }): Negotiated {
  return { kex: n.kex, serverHostKey: n.serverHostKey, cipher: n.cs.cipher, mac: n.cs.mac || '(implicit: AEAD)' };
}

function connectionError(e: Error & { level?: string }, params: ConnectParams): SluiceError {
  const where = `${params.host}:${params.port}`;
  if (e instanceof SluiceError) return e;
  if (e.level === 'client-authentication') return new SluiceError('AUTH_FAILED', `authentication failed for ${params.username}@${where}: all offered methods were refused`);
  // ssh2 reports a keepalive timeout with level 'client-timeout' too: test for it first.
  if (/keepalive/i.test(e.message)) return new SluiceError('CONNECTION_STALLED', `connection to ${where} stalled: no keepalive reply after ${params.keepaliveCountMax} tries`);
  if (e.level === 'client-timeout') return new SluiceError('TIMEOUT', `timed out connecting to ${where} after ${params.readyTimeoutMs} ms`);
  if ((e as NodeJS.ErrnoException).code === 'ECONNREFUSED') return new SluiceError('CONNECTION_LOST', `connection refused by ${where}`);
  return new SluiceError('CONNECTION_LOST', `connection to ${where} failed: ${e.message}`);
}

/**
 * ssh2 writes every SSH packet to the socket on its own; with TCP_NODELAY each becomes a syscall and a
 * segment. Corking until the end of the current tick sends all packets produced in one burst (e.g. a
 * pump issuing K requests) with one writev, and still flushes before any wait (no Nagle-style stall).
 */
function coalesceWritesPerTick(sock: net.Socket): void {
  const write = sock.write.bind(sock) as (...args: unknown[]) => boolean;
  let corked = false;
  const uncork = () => { corked = false; sock.uncork(); };
  sock.write = ((...args: unknown[]) => {
    if (!corked) { corked = true; sock.cork(); process.nextTick(uncork); }
    return write(...args);
  }) as typeof sock.write;
}

async function connect(params: ConnectParams): Promise<ConnectInfo> {
  assertSsh2Patched();
  const client = new Client();
  let negotiated: Negotiated | undefined;
  let hostKeyRefusal: SluiceError | null = null;
  let authMethod = 'none';
  const { sock, identSent } = socketTo(params.host, params.port);
  coalesceWritesPerTick(sock);
  const stopAcking = ackPromptlyDuringSetup(sock, client as unknown as IgnoreCapableClient);
  const setupRtt = watchSetupRtt(sock, client);

  const ready = new Promise<void>((resolve, reject) => {
    client.once('ready', resolve);
    // An unreachable ssh-agent is reported as an 'error' with level 'agent'; ssh2 then tries the next method.
    client.on('error', (e: Error & { level?: string }) => { if (e.level !== 'agent') reject(hostKeyRefusal ?? connectionError(e, params)); });
    client.once('close', () => reject(hostKeyRefusal ?? new SluiceError('CONNECTION_LOST', `connection to ${params.host}:${params.port} closed during setup`)));
  });
  client.on('handshake', (n) => { negotiated = negotiatedOf(n as never); });
  client.on('hostkeys', (keys: Array<{ getPublicSSH(): Buffer }>) => {
    post({ kind: 'hostkeys', keys: keys.map((k) => new Uint8Array(k.getPublicSSH())) });
  });

  // Buffers arrive as plain Uint8Arrays after postMessage's structured clone; ssh2 wants Buffers.
  const auth = { ...params.auth, keys: params.auth.keys.map((k) => ({ ...k, privateKey: Buffer.from(k.privateKey) })) };
  const baseAuth = makeAuthHandler(auth, async () => {
    const answer = await ask({ kind: 'password' });
    return answer.kind === 'password-answer' ? answer.password : undefined;
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
          const reason = answer.kind === 'hostkey-answer' && answer.reason ? answer.reason : 'HOSTKEY_REJECTED:host key refused';
          const sep = reason.indexOf(':');
          hostKeyRefusal = new SluiceError(reason.slice(0, sep) as 'HOSTKEY_REJECTED', reason.slice(sep + 1));
          verify(false);
        }
      });
    },
    authHandler: ((methodsLeft: string[] | null, partial: boolean | null, next: (m: unknown) => void) =>
      (baseAuth as unknown as (a: unknown, b: unknown, c: (m: unknown) => void) => void)(methodsLeft, partial, (m) => {
        if (m && typeof m === 'object' && 'type' in m) authMethod = String((m as { type: string }).type);
        else if (typeof m === 'string') authMethod = m;
        next(m);
      })) as never,
  } as never);
  await ready;

  client.on('error', (e: Error & { level?: string }) => { if (e.level !== 'agent') failAll(connectionError(e, params)); });
  client.on('close', () => {
    failAll(closedError ?? new SluiceError('CONNECTION_LOST', `connection to ${params.host}:${params.port} was lost`));
    post({ kind: 'closed', code: closedError!.code, message: closedError!.message });
  });

  channelWindow = params.channelWindow ?? 0;
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
  earlyChannels = auto && auto.channels > params.channels
    ? openEarlyChannels(client, auto.channels - params.channels, auto, setupRtt(), rtt, (s) => prefetchOn(s, [], reads))
    : null;
  const sftp = await opening;
  const limits = sftpLimits(sftp[0]);
  const software = serverSoftware(client);
  const info: ConnectInfo = {
    negotiated: negotiated ?? { kex: '?', serverHostKey: '?', cipher: '?', mac: '?' },
    maxRead: Math.min(limits.maxReadLen, MAX_REQUEST_BYTES),
    maxWrite: Math.min(limits.maxWriteLen, MAX_REQUEST_BYTES),
    extensions: limits.extensions,
    authMethod,
    rttMs: await rtt,
    channels: sftp.length,
    ordersRequests: /^OpenSSH_/.test(software) && limits.extensions['limits@openssh.com'] !== undefined,
  };
  void Promise.resolve(earlyChannels).then(stopAcking, stopAcking);
  watchSftpReplies(client, sftp, params);
  conn = {
    client,
    sock,
    sftp,
    slots: sftp.map(() => new RequestSlots(params.requests)),
    uploads: new InFlightBudget(UPLOAD_BUDGET),
    counters: new Float64Array(params.counters),
    info,
    params,
    nextChannel: 0,
    hashTraits: {},
  };
  return info;
}

/**
 * The automatic extra SFTP channels of a slow link. They start opening with the first channel when the set-up
 * exchange already took `earlyRttMs` or more (two round trips sooner than the keepalive RTT would allow), and are
 * closed again if the keepalive RTT then says the link is fast (under `minRttMs`); otherwise they start once it
 * says slow.
 * @returns the channels that opened; [] on a fast link
 */
async function openEarlyChannels(client: Client, count: number, auto: { minRttMs: number; earlyRttMs: number },
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
function measureRtt(client: Client): Promise<number | undefined> {
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

/** Last time any SFTP channel of this connection received data (ms since epoch). */
let lastSftpReply = Date.now();


/**
 * SSH keepalives prove the connection, not the SFTP server: a hung sftp-server behind a live sshd would
 * leave requests waiting forever. When requests are outstanding and no SFTP reply has arrived for
 * keepaliveInterval × keepaliveCountMax (60 s with keepalives off), the connection counts as stalled.
 */
function watchSftpReplies(client: Client, channels: SFTPWrapper[], params: ConnectParams): void {
  const limitMs = params.keepaliveIntervalMs > 0 ? params.keepaliveIntervalMs * params.keepaliveCountMax : 60_000;
  const mark = () => { lastSftpReply = Date.now(); };
  for (const ch of channels) watchChannel(ch, mark);
  const timer = setInterval(() => {
    if (!conn || closedError) { clearInterval(timer); return; }
    // While nothing is outstanding the clock restarts, so an idle spell never counts as silence.
    if (!conn.sftp.some(awaitingReplies)) { lastSftpReply = Date.now(); return; }
    if (Date.now() - lastSftpReply <= limitMs) return;
    clearInterval(timer);
    failAll(new SluiceError('CONNECTION_STALLED', `SFTP server at ${params.host}:${params.port} stopped answering: no reply for ${Math.round(limitMs / 1000)} s`));
    client.destroy();
  }, Math.min(1000, Math.max(100, limitMs / 4)));
  timer.unref();
}

function watchChannel(ch: SFTPWrapper, mark: () => void): void {
  onChannelData(ch, mark);
}

/** Receive window for SFTP channels in bytes; 0 keeps ssh2's 2 MiB. */
let channelWindow = 0;

/**
 * Raises a channel's receive window (RFC 4254 §5.2). ssh2 fixes it at 2 MiB; patches/ssh2+*.patch makes
 * its window adjustments top up to `incoming.maxWindow` instead, so the next data packet sends the larger
 * SSH_MSG_CHANNEL_WINDOW_ADJUST.
 */
function applyWindow(ch: SFTPWrapper): void {
  if (channelWindow > 0) setReceiveWindow(ch, channelWindow);
}

/**
 * Opens an SFTP channel. `early` runs when the patched ssh2 pipelines the set-up (OpenSSH server): right after
 * SSH_FXP_INIT is queued, before VERSION, so requests it sends share the set-up's round trips.
 */
function openSftp(client: Client, early?: (s: SFTPWrapper) => void): Promise<SFTPWrapper> {
  return new Promise<SFTPWrapper>((resolve, reject) => {
    const done = (e: Error | undefined, s: SFTPWrapper) => {
      if (e) { reject(new SluiceError('REMOTE_FAILURE', `cannot open SFTP channel: ${e.message}`)); return; }
      applyWindow(s);
      resolve(s);
    };
    client.sftp(early ? withEarlyHook(done, early) : done);
  });
}

async function setChannelWindow(a: WorkerOps['setChannelWindow'][0]): Promise<number> {
  const c = requireConn();
  channelWindow = a.bytes;
  for (const ch of c.sftp) applyWindow(ch);
  return channelWindow;
}

/** SFTP channels connect started opening on a slow link (`autoChannels`), for the next addChannels. */
let earlyChannels: Promise<SFTPWrapper[]> | null = null;

async function addChannels(a: WorkerOps['addChannels'][0]): Promise<number> {
  const c = requireConn();
  const early = earlyChannels ? await earlyChannels : [];
  earlyChannels = null;
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
    watchChannel(ch, () => { lastSftpReply = Date.now(); });
    c.sftp.push(ch);
    c.slots.push(new RequestSlots(c.params.requests));
  }
  return c.sftp.length;
}

/**
 * Pipeline options for one task: its channel's request budget and counters, an abort signal the
 * coordinator can fire (`cancel`), and progress posted at most every PROGRESS_INTERVAL_MS.
 * Call `done()` when the task ends: it posts the remaining progress and forgets the abort controller.
 */
function rangeOptions(channel: number, chunkSize: number, taskId: number): RangeOptions & { done(): void } {
  const c = requireConn();
  let unsent = 0;
  let last = Date.now();
  const abort = new AbortController();
  if (cancelledEarly.delete(taskId)) abort.abort();
  taskAborts.set(taskId, abort);
  const flush = () => {
    if (unsent) post({ kind: 'task-progress', taskId, bytes: unsent });
    unsent = 0;
    last = Date.now();
  };
  return {
    signal: abort.signal,
    chunkSize,
    slots: c.slots[channel],
    counters: c.counters.subarray(channel * COUNTERS_PER_CHANNEL, (channel + 1) * COUNTERS_PER_CHANNEL),
    onBytes: (n) => {
      unsent += n;
      if (Date.now() - last >= PROGRESS_INTERVAL_MS) flush();
    },
    done: () => {
      flush();
      taskAborts.delete(taskId);
    },
  };
}

async function openRemote(s: SFTPWrapper, p: string, flags: string | number, mode?: number, op = 'OPEN'): Promise<Buffer> {
  return call<Buffer>((cb) => s.open(p, flags as never, mode === undefined ? {} : { mode }, cb), p, op);
}

async function closeRemote(s: SFTPWrapper, h: Buffer, p: string): Promise<void> {
  await call<void>((cb) => s.close(h, cb as never), p, 'CLOSE');
}

async function openLocal(p: string, flags: string, mode?: number): Promise<fs.promises.FileHandle> {
  try {
    return await fs.promises.open(p, flags, mode);
  } catch (e) {
    throw fromLocalError(e, p);
  }
}

/** Maps an error from a range copy to a SluiceError naming the side it came from. */
function rangeError(e: unknown, remotePath: string, localPath: string): SluiceError {
  if (e instanceof SluiceError) return e;
  const err = e as NodeJS.ErrnoException & { name?: string };
  if (err?.name === 'AbortError') return new SluiceError('ABORTED', 'transfer aborted');
  if (typeof err?.code === 'string') return fromLocalError(e, localPath);
  if (typeof err?.code === 'number') return fromSftpError(e, remotePath, { op: (e as TaggedSftpError).sftpOp, offset: (e as TaggedSftpError).offset });
  return new SluiceError('REMOTE_FAILURE', `${remotePath}: ${err?.message ?? String(e)}`);
}

/**
 * SSH_FXP_WRITEs one upload task keeps outstanding: 8 × 255 KiB fills the 2 MiB channel window sshd opens
 * (OpenSSH CHAN_SES_WINDOW_DEFAULT) on its own. More only wait in ssh2's channel buffer, where an abort's cleanup
 * would queue behind them, and cost memory and page faults up front: 20 segments at 24 each read ~120 MiB
 * before the first write left (measured 45–80 ms at 50 ms RTT). 4 to 24 measured alike, on loopback and at 50 ms.
 */
const UPLOAD_MAX_IN_FLIGHT = 8;

/**
 * A connection's upload bytes in flight ({@link InFlightBudget}): about 1 s of data at the rate the server answers,
 * at least 4 MiB; 32 MiB until measured, above 10 channels × sshd's 2 MiB window, so a fast link starts at full
 * speed. On a 4 MB/s link a cancel's cleanup then waits ~1 s behind the data already sent instead of ~5–10 s.
 */
const UPLOAD_BUDGET = { initialBytes: 32 * 1024 * 1024, minBytes: 4 * 1024 * 1024, drainMs: 1000, periodMs: 250 };

/** Handles kept open between segments of a file on a channel; closed by `releaseFile` or `finishUpload`. */
const segmentHandles = new SegmentHandles<fs.promises.FileHandle>();

/**
 * Runs one segment: copies [start, end) with the pipeline through the handle pair this channel kept for the file
 * (else opens both sides), and keeps the pair for the file's next segment unless the segment failed.
 */
async function rangeTask(t: RangeTask, direction: 'download' | 'upload'): Promise<number> {
  const c = requireConn();
  const s = sftpOf(t.channel);
  const down = direction === 'download';
  let h = segmentHandles.take(t.channel, direction, t.remotePath, t.localPath);
  if (!h) {
    const remote = await (handlesAhead.take(s, t.remotePath) ?? openRemote(s, t.remotePath, down ? 'r' : SEGMENT_FLAGS, down ? undefined : t.mode));
    try {
      h = { channel: t.channel, remote, local: await openLocal(t.localPath, down ? 'r+' : 'r') };
    } catch (e) {
      await closeRemote(s, remote, t.remotePath).catch(() => undefined);
      throw e;
    }
  }
  const o = rangeOptions(t.channel, down ? c.info.maxRead : c.info.maxWrite, t.taskId);
  if (!down) { o.maxInFlight = UPLOAD_MAX_IN_FLIGHT; o.budget = c.uploads; }
  let ok = false;
  try {
    const n = await (down ? downloadRange : uploadRange)(s, h.remote, h.local.fd, t.start, t.end, o);
    ok = true;
    return n;
  } catch (e) {
    throw rangeError(e, t.remotePath, t.localPath);
  } finally {
    o.done();
    // After an abort the CLOSE may queue behind replies still on their way: not waited for (see closeUnlessAborted).
    if (ok && !closedError) segmentHandles.put(direction, t.remotePath, t.localPath, h);
    else await closeSegmentHandles([h], t.remotePath, !o.signal?.aborted);
  }
}

/**
 * Closes a remote handle, waiting for the reply unless the task was aborted: then the SSH_FXP_CLOSE may queue
 * behind replies still on their way (seconds on a slow link), and the user asked to stop.
 */
async function closeUnlessAborted(s: SFTPWrapper, h: Buffer, remotePath: string, signal?: AbortSignal): Promise<void> {
  const closing = closeRemote(s, h, remotePath).catch(() => undefined);
  if (!signal?.aborted) await closing;
}

/**
 * Closes kept handle pairs: the SSH_FXP_CLOSEs go out together (one round trip); errors are ignored.
 * `awaitRemote: false` returns once the local handles are closed (read handles of a finished download: every
 * byte is here, and later requests on the channel queue behind the CLOSE).
 */
async function closeSegmentHandles(list: Array<SegmentHandle<fs.promises.FileHandle>>, remotePath: string,
  awaitRemote = true): Promise<void> {
  await Promise.all(list.map(async (h) => {
    await h.local.close().catch(() => undefined);
    if (closedError) return;
    const closing = closeRemote(sftpOf(h.channel), h.remote, remotePath).catch(() => undefined);
    if (awaitRemote) await closing;
  }));
}

function hasExt(name: string): boolean {
  return requireConn().info.extensions[name] !== undefined;
}

async function fsyncRemote(s: SFTPWrapper, h: Buffer, p: string): Promise<boolean> {
  if (!hasExt('fsync@openssh.com')) return false;
  await call<void>((cb) => s.ext_openssh_fsync(h, cb as never), p, 'fsync@openssh.com');
  return true;
}

/**
 * Uploads a whole file through one handle, in order, then fsyncs, reads back the size and closes
 * ({@link finishHandle}: one round trip for the tail, and for a file that fits one request the SSH_FXP_WRITE too,
 * on a server that answers in order; the replies each step depends on are awaited elsewhere).
 * @returns the remote size after writing (from the fstat)
 */
async function putFile(t: PutFileTask): Promise<number> {
  const c = requireConn();
  const s = sftpOf(t.channel);
  const local = await openLocal(t.localPath, 'r');
  let h: Buffer | null = null;
  const o = rangeOptions(t.channel, c.info.maxWrite, t.taskId);
  o.maxInFlight = UPLOAD_MAX_IN_FLIGHT;
  o.budget = c.uploads;
  try {
    h = await openRemote(s, t.remoteTemp, 'w', t.mode, 'OPEN (create)');
    const handle = h;
    let small: Buffer | null = null;
    if (t.size > 0 && t.size <= c.info.maxWrite) {
      small = Buffer.allocUnsafe(t.size);
      const { bytesRead } = await local.read(small, 0, t.size, 0);
      if (bytesRead !== t.size) throw new ShortFileError(bytesRead);
    } else if (t.size > 0) {
      await uploadRange(s, handle, local.fd, 0, t.size, o);
    }
    h = null;
    const { size } = await finishHandle(s, handle, t.remoteTemp, small ?? undefined);
    if (small) {
      o.counters![COUNTER_BYTES] += small.length;
      o.onBytes!(small.length);
    }
    return size;
  } catch (e) {
    throw rangeError(e, t.remoteTemp, t.localPath);
  } finally {
    o.done();
    await local.close().catch(() => undefined);
    if (h) await closeUnlessAborted(s, h, t.remoteTemp, o.signal);
  }
}

async function getFile(t: GetFileTask): Promise<number> {
  const c = requireConn();
  const s = sftpOf(t.channel);
  let h: Buffer | null = await (handlesAhead.take(s, t.remotePath) ?? openRemote(s, t.remotePath, 'r'));
  void handlesAhead.drop(t.remotePath);
  const o = rangeOptions(t.channel, c.info.maxRead, t.taskId);
  let local: fs.promises.FileHandle | null = null;
  try {
    local = await openLocal(t.localTemp, 'w', t.mode ?? 0o644);
    const n = t.size > 0 ? await downloadRange(s, h, local.fd, 0, t.size, o) : 0;
    // Every byte is here: the SSH_FXP_CLOSE is not waited for (a round trip per file, a third of a small
    // file's time at high RTT); later requests on this channel queue behind it.
    void closeRemote(s, h, t.remotePath).catch(() => undefined);
    h = null;
    await local.sync();
    return n;
  } catch (e) {
    throw rangeError(e, t.remotePath, t.localTemp);
  } finally {
    o.done();
    await local?.close().catch(() => undefined);
    if (h) await closeUnlessAborted(s, h, t.remotePath, o.signal);
  }
}

/** SSH_FXP_STAT (or LSTAT when `follow` is false); null when the path does not exist. */
async function statOn(s: SFTPWrapper, p: string, follow: boolean): Promise<RemoteStat | null> {
  try {
    const st = await call<{ mode: number; size: number; mtime: number }>(
      (cb) => (follow ? s.stat(p, cb as never) : s.lstat(p, cb as never)), p);
    return statToRemote(st);
  } catch (e) {
    if (e instanceof SluiceError && e.code === 'NO_SUCH_FILE') return null;
    throw e;
  }
}

/** Answers of the SSH_FXP_STATs sent behind the first channel's INIT (`prefetch.stat`), each taken once. */
const prefetchedStats = new Map<string, Promise<RemoteStat | null>>();

/**
 * Handles opened before their task: a single download's read handle behind each channel's INIT (`prefetch.read`),
 * an upload's write handles while the probe runs (`openAhead`). A segment or getFile on that channel takes its
 * handle; the rest are closed once the path turns out not to be a file, or its transfer is over (getFile,
 * releaseFile). A file the job skips keeps them until the connection closes.
 */
const handlesAhead = new HandlesAhead<SFTPWrapper>((s, h, p) => closeRemote(s, h, p));

/** Sends the set-up's requests (ConnectParams.prefetch) on a channel whose INIT was just queued. */
function prefetchOn(s: SFTPWrapper, stats: string[], reads: string[], probeDir?: string): void {
  if (probeDir !== undefined) {
    // VERSION has not arrived yet: the SSH software alone says whether replies come in order. Wrong, it only makes
    // the probe answer "no" (the read overtook the writes), and uploads go through one handle.
    prefetchedProbe = probeIn(s, probeDir, /^OpenSSH_/.test(serverSoftware(s)));
    prefetchedProbe.catch(() => undefined);
  }
  for (const p of stats) {
    const answer = statOn(s, p, true);
    answer.catch(() => undefined);
    prefetchedStats.set(p, answer);
  }
  for (const p of reads) handlesAhead.add(s, p, openRemote(s, p, 'r'));
}

const { OPEN_MODE, STATUS_CODE } = ssh2Utils.sftp;
const SSH_FX_EOF = STATUS_CODE.EOF;
/**
 * SSH_FXP_OPEN flags of every handle a segmented upload writes through, and of the probe that decides whether it may:
 * write-only, created if missing (the temporary name is new), never truncated, no append.
 */
const SEGMENT_FLAGS = OPEN_MODE.WRITE | OPEN_MODE.CREAT;

async function openAhead(a: WorkerOps['openAhead'][0]): Promise<void> {
  for (const channel of a.channels) {
    const s = sftpOf(channel);
    handlesAhead.add(s, a.remotePath, openRemote(s, a.remotePath, SEGMENT_FLAGS, a.mode));
  }
}

async function stat(a: WorkerOps['stat'][0]): Promise<RemoteStat | null> {
  const follow = a.follow !== false;
  const early = follow && (a.channel ?? 0) === 0 ? prefetchedStats.get(a.path) : undefined;
  if (!early) return statOn(sftpOf(a.channel), a.path, follow);
  prefetchedStats.delete(a.path);
  const st = await early.catch((e: unknown) => { void handlesAhead.drop(a.path); throw e; });
  if (st?.type !== 'file') void handlesAhead.drop(a.path);
  return st;
}

type DirEntry = { filename: string; attrs: { mode: number; size: number; mtime: number } };

/** One SSH_FXP_READDIR on an open folder handle: its names, or null at end of folder (SSH_FX_EOF). */
function readdirOnce(s: SFTPWrapper, h: Buffer, p: string): Promise<DirEntry[] | null> {
  return new Promise((resolve, reject) => {
    s.readdir(h, ((err: (Error & { code?: number }) | undefined, list: DirEntry[]) => {
      if (err?.code === SSH_FX_EOF) resolve(null);
      else if (err) reject(fromSftpError(err, p));
      else resolve(list);
    }) as never);
  });
}

/**
 * Lists a folder: SSH_FXP_OPENDIR, then SSH_FXP_READDIRs two at a time on its handle (answered in order,
 * draft-ietf-secsh-filexfer-02 §6.7; OpenSSH sends up to 100 names per answer, so the second usually says EOF),
 * and an SSH_FXP_CLOSE that is not waited for: two round trips for most folders, where ssh2's readdir(path)
 * takes four. An answer after the end of the folder is ignored, error or not.
 */
async function list(a: WorkerOps['list'][0]): Promise<RemoteEntry[]> {
  const s = sftpOf(a.channel);
  const h = await call<Buffer>((cb) => s.opendir(a.path, cb as never), a.path);
  const entries: DirEntry[] = [];
  try {
    for (;;) {
      const answers = [readdirOnce(s, h, a.path), readdirOnce(s, h, a.path)];
      // Marked handled up front: after an error or the end, the other answer is not awaited.
      answers.forEach((answer) => answer.catch(() => undefined));
      for (const answer of answers) {
        const names = await answer;
        if (names === null) {
          return entries
            .filter((e) => e.filename !== '.' && e.filename !== '..')
            .map((e) => ({ name: e.filename, ...statToRemote(e.attrs) }));
        }
        entries.push(...names);
      }
    }
  } finally {
    void closeRemote(s, h, a.path).catch(() => undefined);
  }
}

async function mkdir(a: WorkerOps['mkdir'][0]): Promise<'created' | 'exists'> {
  const s = sftpOf(a.channel);
  try {
    await call<void>((cb) => s.mkdir(a.path, a.mode === undefined ? {} : { mode: a.mode }, cb as never), a.path);
    return 'created';
  } catch (e) {
    const st = await stat({ channel: a.channel, path: a.path });
    if (st?.type === 'dir') return 'exists';
    throw e;
  }
}

function tempSibling(p: string, tag: string): string {
  return path.posix.join(path.posix.dirname(p), `.${path.posix.basename(p)}.sluice-${randomBytes(4).toString('hex')}.${tag}`);
}

/**
 * Renames `from` onto `to`. Overwrite: posix-rename@openssh.com (atomic replace, OpenSSH PROTOCOL §4.3);
 * where it is missing, SSH_FXP_RENAME (SFTPGo replaces the target with it), and where that fails onto an existing
 * target, a sequence that never deletes the target first: move the target aside (recorded in the leftovers journal
 * first, so a kill between the renames is repaired on the next connection), rename, then remove the old copy
 * (restoring it if the second rename fails). No-clobber: SSH_FXP_RENAME after checking the target.
 */
async function rename(a: WorkerOps['rename'][0]): Promise<void> {
  const s = sftpOf(a.channel);
  const plain = (from: string, to: string) => call<void>((cb) => s.rename(from, to, cb as never), from === a.from ? a.to : to, 'RENAME');
  if (a.mode === 'no-clobber') {
    if (await stat({ channel: a.channel, path: a.to, follow: false })) throw new SluiceError('EXISTS', `${a.to} exists (--no-clobber)`);
    return plain(a.from, a.to);
  }
  if (hasExt('posix-rename@openssh.com')) {
    return call<void>((cb) => s.ext_openssh_rename(a.from, a.to, cb as never), a.to, 'posix-rename@openssh.com');
  }
  try {
    return await plain(a.from, a.to);
  } catch (e) {
    if (!(await stat({ channel: a.channel, path: a.to, follow: false }))) throw e;
  }
  const c = requireConn();
  const journal = new LeftoverJournal(c.params.dataDir, { host: c.params.host, port: c.params.port, user: c.params.username });
  const aside = tempSibling(a.to, 'old');
  const entry = journal.record({ kind: 'aside', path: aside, target: a.to });
  await plain(a.to, aside).catch((e: unknown) => { journal.forget(entry); throw e; });
  try {
    await plain(a.from, a.to);
  } catch (e) {
    await plain(aside, a.to).then(() => journal.forget(entry), () => undefined);
    throw e;
  }
  await call<void>((cb) => s.unlink(aside, cb as never), aside, 'REMOVE').then(() => journal.forget(entry), () => undefined);
}

/**
 * The end of an upload on one handle whose data the server has acknowledged: fsync@openssh.com (where offered),
 * SSH_FXP_FSTAT for the size check, and SSH_FXP_CLOSE. A server that answers in order takes the three in one round
 * trip; elsewhere the CLOSE waits for the fsync and fstat replies (it could overtake them, and a concurrent server
 * may commit the file on CLOSE), and the caller's rename waits for the CLOSE.
 * @param data a last SSH_FXP_WRITE at offset 0 (a file that fits one request), sent first; on a server that does
 *   not order requests its reply is awaited before the fsync and fstat
 * @returns the size the server reports after the writes, and whether it fsynced
 */
async function finishHandle(s: SFTPWrapper, h: Buffer, p: string, data?: Buffer): Promise<{ size: number; fsynced: boolean }> {
  const ordered = requireConn().info.ordersRequests;
  const written = data ? call<void>((cb) => s.write(h, data, 0, data.length, 0, cb as never), p, { op: 'WRITE', offset: 0 }) : Promise.resolve();
  if (!ordered) {
    try {
      await written;
    } catch (e) {
      await closeRemote(s, h, p).catch(() => undefined);
      throw e;
    }
  }
  const synced = fsyncRemote(s, h, p);
  const stated = call<{ size: number }>((cb) => s.fstat(h, cb as never), p, 'FSTAT');
  const closed = ordered ? closeRemote(s, h, p) : Promise.allSettled([synced, stated]).then(() => closeRemote(s, h, p));
  try {
    const [, fsynced, st] = await Promise.all([written, synced, stated, closed]);
    return { size: st.size, fsynced };
  } finally {
    await Promise.allSettled([written, synced, stated, closed]);
  }
}

/**
 * Ends a segmented upload on this connection: {@link finishHandle} on the handle this channel kept from a segment
 * (else one it opens), while the SSH_FXP_CLOSEs of every other handle this connection kept for the file go out.
 */
async function finishUpload(a: WorkerOps['finishUpload'][0]): Promise<{ size: number; fsynced: boolean }> {
  const channel = a.channel ?? 0;
  const s = sftpOf(channel);
  const kept = segmentHandles.takeAll(a.path);
  const own = kept.find((h) => h.channel === channel);
  const closingOthers = closeSegmentHandles(kept.filter((h) => h !== own), a.path);
  try {
    const h = own?.remote ?? await openRemote(s, a.path, OPEN_MODE.WRITE);
    return await finishHandle(s, h, a.path);
  } finally {
    await Promise.all([closingOthers, own?.local.close().catch(() => undefined)]);
  }
}

/** Closes the handles this connection kept for `remotePath` (segments done, or the file given up). */
async function releaseFile(a: WorkerOps['releaseFile'][0]): Promise<void> {
  await handlesAhead.drop(a.remotePath);
  await closeSegmentHandles(segmentHandles.takeAll(a.remotePath, a.localPath), a.remotePath, a.direction === 'upload');
}

async function hashRemote(a: WorkerOps['hashRemote'][0]): Promise<{ sha256: string; method: HashMethod }> {
  const c = requireConn();
  const software = serverSoftware(c.client);
  return remoteSha256({ client: c.client, sftp: sftpOf(a.channel), extensions: c.info.extensions, maxRead: c.info.maxRead, traits: c.hashTraits, software },
    a.path, a.size, a.allowExec);
}

async function hashLocal(a: WorkerOps['hashLocal'][0]): Promise<string> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of fs.createReadStream(a.path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  } catch (e) {
    throw fromLocalError(e, a.path);
  }
  return hash.digest('hex');
}

/**
 * Writes two ranges of a temporary file in `dir` out of order through two handles opened exactly as a segmented
 * upload opens its handles ({@link SEGMENT_FLAGS}), reads it back through a third and compares, then removes it.
 * True when the server keeps both ranges (needed for segmented uploads); null when the probe file could not be
 * created there (no answer).
 * The three opens go out together, then the writes with the read-back: two round trips on a server that answers in
 * order (`ordered`). Elsewhere the read waits for the writes' replies, and a read handle that could not be opened
 * before the file existed is opened again. Closing and removing the probe file continue in the background.
 */
async function probeIn(s: SFTPWrapper, dir: string, ordered: boolean): Promise<boolean | null> {
  const p = path.posix.join(dir, `.sluice-probe-${randomBytes(6).toString('hex')}`);
  const first = randomBytes(4096);
  const second = randomBytes(4096);
  const writers = Promise.allSettled([openRemote(s, p, SEGMENT_FLAGS, 0o600), openRemote(s, p, SEGMENT_FLAGS, 0o600)]);
  let reader = openRemote(s, p, 'r');
  reader.catch(() => undefined);
  const opened = await writers;
  const handles = opened.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  try {
    if (handles.length === 0) return null;
    if (handles.length < 2) return false;
    const [h1, h2] = handles;
    const writes = Promise.all([
      call<void>((cb) => s.write(h2, second, 0, second.length, 8192, cb as never), p, { op: 'WRITE', offset: 8192 }),
      call<void>((cb) => s.write(h1, first, 0, first.length, 0, cb as never), p, { op: 'WRITE', offset: 0 }),
    ]);
    writes.catch(() => undefined);
    reader = reader.catch(() => openRemote(s, p, 'r'));
    handles.push(await reader);
    if (!ordered) await writes;
    const back = Buffer.alloc(12288);
    const [, got] = await Promise.all([writes, call<number>((cb) => s.read(handles[2], back, 0, back.length, 0, cb as never), p, 'READ')]);
    return got === 12288 && back.subarray(0, 4096).equals(first) && back.subarray(8192).equals(second)
      && back.subarray(4096, 8192).every((b) => b === 0);
  } catch {
    return false;
  } finally {
    void reader.then((h) => { if (!handles.includes(h)) handles.push(h); }, () => undefined)
      .then(() => Promise.all(handles.map((h) => closeRemote(s, h, p).catch(() => undefined))))
      .then(() => call<void>((cb) => s.unlink(p, cb as never), p, 'REMOVE').catch(() => undefined));
  }
}

/** The probe sent with the first channel's set-up (`prefetch.probeDir`), until probeOutOfOrder takes it. */
let prefetchedProbe: Promise<boolean | null> | null = null;

/**
 * Whether the server accepts out-of-order writes: the answer of the probe sent during set-up when it had one
 * (the answer is per server, whatever folder it ran in), else a probe in `a.dir`; false when neither could run.
 */
async function probeOutOfOrder(a: WorkerOps['probeOutOfOrder'][0]): Promise<boolean> {
  const early = prefetchedProbe;
  prefetchedProbe = null;
  return (early ? await early : null) ?? (await probeIn(sftpOf(0), a.dir, requireConn().info.ordersRequests)) ?? false;
}

const ops: { [K in OpName]: (arg: WorkerOps[K][0]) => Promise<WorkerOps[K][1]> } = {
  connect,
  addChannels,
  setChannelWindow,
  stat,
  list,
  realpath: (a) => call<string>((cb) => sftpOf(a.channel).realpath(a.path, cb as never), a.path),
  mkdir,
  remove: (a) => call<void>((cb) => sftpOf(a.channel).unlink(a.path, cb as never), a.path),
  rmdir: (a) => call<void>((cb) => sftpOf(a.channel).rmdir(a.path, cb as never), a.path),
  rename,
  download: (t) => rangeTask(t, 'download'),
  upload: (t) => rangeTask(t, 'upload'),
  putFile,
  getFile,
  finishUpload,
  releaseFile,
  openAhead,
  hashRemote,
  hashLocal,
  probeOutOfOrder,
  close: async () => {
    if (conn) {
      const c = conn;
      await new Promise<void>((resolve) => {
        c.client.once('close', () => resolve());
        // SSH_MSG_DISCONNECT (RFC 4253 §11.1) and our FIN leave the socket: nothing more is owed either way, so the
        // server's FIN is not waited for (half a round trip, at the end of every CLI run).
        c.sock.once('finish', () => resolve());
        c.client.end();
        setTimeout(resolve, 2000).unref();
      });
    }
  },
};

port.on('message', (msg: ToWorker) => {
  if (msg.kind === 'cancel') {
    for (const id of msg.taskIds) {
      const a = taskAborts.get(id);
      if (a) a.abort();
      else if (cancelledEarly.size < 10_000) cancelledEarly.add(id);
    }
    return;
  }
  if (msg.kind !== 'call') {
    const resolve = asks.get(msg.id);
    asks.delete(msg.id);
    resolve?.(msg);
    return;
  }
  const run = ops[msg.op] as (a: unknown) => Promise<unknown>;
  const exec = msg.op === 'connect' || msg.op === 'close' || msg.op === 'hashLocal' ? run(msg.arg) : guarded(() => run(msg.arg));
  exec.then(
    (value) => post({ kind: 'result', id: msg.id, ok: true, value }),
    (e: unknown) => {
      const se = SluiceError.from(e);
      post({ kind: 'result', id: msg.id, ok: false, error: se.toInfo() });
    },
  );
});
