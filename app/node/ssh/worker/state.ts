/**
 * The state of this worker's one connection, shared by its modules (one object instead of module-level variables), and the
 * helpers every operation uses: posting to the coordinator, failing in-flight operations when the connection drops,
 * asking the coordinator (host key, password, keyboard-interactive), picking an SFTP channel.
 */
import { parentPort, type MessagePort } from 'node:worker_threads';
import type { Client, SFTPWrapper } from 'ssh2';
import type { Duplex } from 'node:stream';
import { SluiceError } from '../../errors';
import type { InFlightBudget, RequestSlots } from '../../sftp/pipeline';
import type { RateGate } from '../../sftp/rateLimit';
import type { KeyboardRound } from '../keyboardInteractive';
import type { HashTraits } from '../remoteHash';
import {
  ITEMS_AHEAD, type CallContext, type ConnectInfo, type ConnectParams, type FromWorker, type RemoteStat, type ToWorker,
} from '../workerProtocol';

/** Largest request we issue even when a server allows more: 255 KiB, OpenSSH's own limit. */
export const MAX_REQUEST_BYTES = 261120;

/** Progress messages of one call to the coordinator are sent at most this often, ms. */
export const PROGRESS_INTERVAL_MS = 200;

if (!parentPort) throw new Error('worker.ts must run in a worker thread');
/** The channel to the coordinating thread. */
export const port: MessagePort = parentPort;

/** Sends a message to the coordinating thread. */
export function post(msg: FromWorker): void {
  port.postMessage(msg);
}

/** This worker's one SSH connection, once connected: its SFTP channels, request budgets and counters. */
export interface Conn {
  client: Client;
  /** The TCP socket, or the last jump host's direct-tcpip channel. */
  sock: Duplex;
  /** The jump hosts' connections, first hop first (closed after the target's). */
  hops: Client[];
  /** The first hop's TCP socket (ended last), when there are jump hosts. */
  hopSock?: Duplex;
  sftp: SFTPWrapper[];
  slots: RequestSlots[];
  /** Upload bytes in flight on this connection, across its channels. */
  uploads: InFlightBudget;
  /** The speed limits (process-wide and the site's) every request takes from. */
  rate: RateGate;
  counters: Float64Array;
  info: ConnectInfo;
  params: ConnectParams;
  nextChannel: number;
  /** Which remote hash methods work on this server (learned on first use). */
  hashTraits: HashTraits;
}

/** The connection and what the worker learned or holds for it. */
export const state = {
  conn: null as Conn | null,
  closedError: null as SluiceError | null,
  askId: 0,
  /** Last time any SFTP channel of this connection received data (ms since epoch). */
  lastSftpReply: Date.now(),
  /** Receive window for SFTP channels in bytes; 0 keeps ssh2's 2 MiB. */
  channelWindow: 0,
  /** SFTP channels connect started opening on a slow link (`autoChannels`), for the next addChannels. */
  earlyChannels: null as Promise<SFTPWrapper[]> | null,
  /** The probe sent with the first channel's set-up (`prefetch.probeDir`), until probeOutOfOrder takes it. */
  prefetchedProbe: null as Promise<boolean | null> | null,
  /** Answers of the SSH_FXP_STATs sent behind the first channel's INIT (`prefetch.stat`), each taken once. */
  prefetchedStats: new Map<string, Promise<RemoteStat | null>>(),
  /** Rejecters of every in-flight operation, failed together when the connection drops. */
  pending: new Set<(e: SluiceError) => void>(),
  /** Questions to the coordinator (host key, password, keyboard-interactive) awaiting their answer, by id. */
  asks: new Map<number, (msg: ToWorker) => void>(),
  /** Abort controllers of running calls, by call id (the coordinator sends `cancel` with the id). */
  calls: new Map<number, AbortController>(),
  /** What to do when the coordinator took a batch of a call's results (`items-taken`), by call id. */
  itemsTaken: new Map<number, () => void>(),
};


/**
 * The context of call `id`: an abort signal registered in `state.calls`, and progress posted at most every
 * PROGRESS_INTERVAL_MS. `end()` posts the remaining progress (before the call's result) and forgets the call.
 */
export function callContext(id: number): CallContext & { end(): void } {
  const abort = new AbortController();
  state.calls.set(id, abort);
  let ahead = 0;
  let room: (() => void) | null = null;
  const wake = () => { const r = room; room = null; r?.(); };
  abort.signal.addEventListener('abort', wake, { once: true });
  let unsent = 0;
  let last = Date.now();
  const flush = () => {
    if (unsent) post({ kind: 'progress', id, bytes: unsent });
    unsent = 0;
    last = Date.now();
  };
  return {
    signal: abort.signal,
    progress: (n) => {
      unsent += n;
      if (Date.now() - last >= PROGRESS_INTERVAL_MS) flush();
    },
    items: (batch) => {
      post({ kind: 'items', id, items: batch });
      ahead++;
      if (ahead === 1) state.itemsTaken.set(id, () => { ahead--; if (ahead < ITEMS_AHEAD) wake(); });
      if (ahead < ITEMS_AHEAD || abort.signal.aborted) return Promise.resolve();
      return new Promise<void>((resolve) => { room = resolve; });
    },
    // Bytes first: the coordinator hears them before it hears they are durable.
    durable: (end) => {
      if (!state.calls.has(id)) return;
      flush();
      post({ kind: 'durable', id, end });
    },
    end: () => {
      flush();
      state.calls.delete(id);
      state.itemsTaken.delete(id);
      wake();
    },
  };
}

export function failAll(e: SluiceError): void {
  if (!state.closedError) state.closedError = e;
  for (const reject of [...state.pending]) reject(e);
  state.pending.clear();
}

/** Runs an operation so that a connection loss rejects it at once instead of leaving it waiting. */
export function guarded<T>(run: () => Promise<T>): Promise<T> {
  if (state.closedError) return Promise.reject(state.closedError);
  return new Promise<T>((resolve, reject) => {
    const rejecter = (e: SluiceError) => reject(e);
    state.pending.add(rejecter);
    run().then(
      (v) => { state.pending.delete(rejecter); resolve(v); },
      (e) => { state.pending.delete(rejecter); reject(e); },
    );
  });
}

/** The coordinator's questions: a host key to verify (`hop`: a jump host's), the password, a keyboard-interactive round. */
export type Question =
  | { kind: 'hostkey'; key: Uint8Array; hop?: number }
  | { kind: 'password'; again?: boolean; hop?: number }
  | { kind: 'keyboard'; round: KeyboardRound };

/** Asks the coordinator; resolves with its answer message. */
export function ask(msg: Question): Promise<ToWorker> {
  const id = ++state.askId;
  return new Promise((resolve) => {
    state.asks.set(id, resolve);
    post({ ...msg, id } as FromWorker);
  });
}

export function sftpOf(channel?: number): SFTPWrapper {
  const c = requireConn();
  if (channel === undefined) {
    channel = c.nextChannel;
    c.nextChannel = (c.nextChannel + 1) % c.sftp.length;
  }
  const s = c.sftp[channel];
  if (!s) throw new SluiceError('REMOTE_FAILURE', `no SFTP channel ${channel}`);
  return s;
}

export function requireConn(): Conn {
  if (state.closedError) throw state.closedError;
  if (!state.conn) throw new SluiceError('CONNECTION_LOST', 'not connected');
  return state.conn;
}

export function hasExt(name: string): boolean {
  return requireConn().info.extensions[name] !== undefined;
}
