/**
 * Coordinator-side handle of one connection worker: typed request/response over postMessage, host-key,
 * password and keyboard-interactive questions answered here, and the worker's shared channel counters.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { SluiceError, displayText, type ErrorCode } from '../errors';
import { COUNTERS_PER_CHANNEL } from '../sftp/pipeline';
import { SIGNAL_SLOTS } from '../sftp/pipeStats';
import type { KeyboardRound } from './keyboardInteractive';
import { TRACE_ENV } from './packetTrace';
import type { PreconnectResolver } from './preconnect';
import type {
  ConnectInfo,
  ConnectParams,
  FromWorker,
  OpName,
  PrefetchedStat,
  RemoteStat,
  ToWorker,
  WorkerOps,
} from './workerProtocol';

export interface ConnectionHooks {
  /**
   * Decides on a presented host key (SSH public key blob); `error` says why when refused (HOSTKEY_*).
   * @param hop the jump host that presented it (ConnectParams.jump index); undefined: the target
   */
  verifyHostKey(key: Buffer, hop?: number): Promise<{ accept: boolean; error?: SluiceError }>;
  /**
   * Asked when the server (or jump host `hop`) wants a password and none was given, or `again` after the target
   * refused one.
   */
  askPassword?(again: boolean, hop?: number): Promise<string | undefined>;
  /**
   * Answers a keyboard-interactive round (RFC 4256) the password did not answer; rejects to end the login with that
   * error. Absent: such a login fails AUTH_FAILED naming the prompt.
   */
  askKeyboard?(round: KeyboardRound): Promise<string[]>;
  /** Keys proven by the server (or jump host `hop`) through hostkeys-00@openssh.com (OpenSSH PROTOCOL §2.5). */
  onHostKeys?(keys: Buffer[], hop?: number): void;
  /** The connection is gone; every pending call has already failed with this error. */
  onClosed?(error: SluiceError): void;
  /** A `-v` note about the target's login (worker/authTrace.ts): a method tried, the server's answer. */
  onAuthNote?(message: string): void;
}

/**
 * Which compiled file runs the worker: dist/app/node/ssh/workerEntry.js, named from ssh/ so that it is found from the
 * CLI's bundle too (dist/app/node/bundle/, scripts/bundle-cli.js), one folder beside this module's.
 */
const WORKER_FILE = path.join(__dirname, '..', 'ssh', 'workerEntry.js');

/**
 * A worker started ahead of need: spawning it early lets it load ssh2 (≈100 ms of compile work) on the
 * other core while the coordinating thread is still starting up.
 */
let spare: Worker | null = null;

/**
 * A connection worker's heap (issue #28): with V8's default young generation (48 MiB) a worker's heap reached ~50 MiB
 * on a 10,000-file get while ~20 MiB of it was in use; 12 MiB keeps it near 37 MiB at the same CPU (6 MiB saves no
 * more: more objects are promoted). Payloads live in Buffers, outside the heap. The old generation keeps V8's
 * default: a hard limit would end a huge listing with an out-of-memory crash.
 */
export const WORKER_RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 12 };

/**
 * V8 flags every connection worker sets once it has loaded ({@link keepV8Flags}).
 */
let heapFlags: readonly string[] = [];

/**
 * V8 flags (`v8.setFlagsFromString`, e.g. bin/sluice.js HEAP_FLAGS) for the whole process, set by every connection
 * worker started after this call once it has loaded ssh2 and the worker's modules: not before, because Node resets
 * V8's flags when a worker thread starts (measured on Node 20: a `--semi-space-growth-factor` set before `new Worker`
 * no longer held, in either thread, once the worker ran), and not during start-up, whose compile work with the CLI's
 * 1 MiB semi-spaces cost ~0.05 CPU-s more on connect + 1 byte.
 * @param flags V8 options, each one `--name=value` string (V8 ignores an unknown flag)
 */
export function keepV8Flags(flags: readonly string[]): void {
  heapFlags = flags;
}

/** A connection worker on workerEntry.js with `data`, the kept V8 flags and the heap limits. */
function startWorker(data: object): Worker {
  return new Worker(WORKER_FILE, { workerData: { ...data, heapFlags }, resourceLimits: WORKER_RESOURCE_LIMITS });
}

/**
 * Starts one connection worker now, to be taken by the next {@link WorkerConnection}.
 * @param target where that connection will go: the worker opens the TCP connection and sends its identification at
 *   once (preconnect.ts), and uses them if the connection asks for the same host and port; or a resolver module the
 *   worker asks where that is (preconnect.ts PreconnectResolver)
 */
export function prewarmConnectionWorker(target?: { host: string; port: number } | PreconnectResolver): void {
  if (spare) return;
  spare = startWorker(target && 'module' in target ? { preconnectFrom: target } : { preconnect: target });
  spare.unref();
  // An unused spare must never crash the process or keep it alive.
  spare.on('error', () => undefined);
}

function takeWorker(): Worker {
  const w = spare ?? startWorker({});
  spare = null;
  w.ref();
  return w;
}

/** How a caller follows one worker call: cancel it, hear its progress. */
export interface CallOptions {
  /** Aborting it cancels the call in the worker (a transfer then rejects with ABORTED). */
  signal?: AbortSignal;
  /** Bytes the call moved since its last report (range and whole-file transfers report; others do not). */
  onProgress?(bytes: number): void;
  /**
   * A batch of the call's results as they come (listEach); batches are handed over one at a time, in order, and the
   * call's result waits for the last one taken. A rejection cancels the call, which then fails with it.
   */
  onItems?(batch: unknown[]): Promise<void> | void;
  /** The call's range is durable from its start up to `end`, bytes (a range task with RangeTask.checkpointMs). */
  onDurable?(end: number): void;
}

interface PendingCall {
  resolve(v: unknown): void;
  reject(e: SluiceError): void;
  onProgress?(bytes: number): void;
  onItems?(batch: unknown[]): Promise<void> | void;
  /** The batches handed over so far, in order; `itemsError`: why one was refused. */
  items?: Promise<void>;
  itemsError?: SluiceError;
  onDurable?(end: number): void;
}

export class WorkerConnection {
  private readonly worker: Worker;
  private nextId = 0;
  private readonly calls = new Map<number, PendingCall>();
  private closedError: SluiceError | null = null;
  /** close() was called: the loss that follows is expected and not reported. */
  private closing = false;
  /** Float64 counters: COUNTERS_PER_CHANNEL slots per channel (bytes, in-flight bytes, outstanding). */
  readonly counters: Float64Array;
  /** Bottleneck signals (sftp/pipeStats.ts SIG), written by the worker's sampler (ssh/worker/signals.ts). */
  readonly signals = new Float64Array(new SharedArrayBuffer(SIGNAL_SLOTS * 8));
  info: ConnectInfo | null = null;
  /** The set-up's STAT answers not taken yet (ConnectInfo.prefetchedStats), by path. */
  private readonly prefetched = new Map<string, PrefetchedStat>();

  /**
   * @param id connection number within its pool (for progress and logs)
   * @param channels SFTP channels the worker will open (M)
   * @param capacity channels this connection may grow to with {@link addChannels} (default `channels`)
   */
  constructor(
    readonly id: number,
    public channels: number,
    private readonly hooks: ConnectionHooks,
    capacity = channels,
  ) {
    const sab = new SharedArrayBuffer(Math.max(capacity, channels) * COUNTERS_PER_CHANNEL * 8);
    this.counters = new Float64Array(sab);
    this.worker = takeWorker();
    this.worker.on('message', (m: FromWorker) => this.onMessage(m));
    this.worker.on('error', (e) =>
      this.fail(new SluiceError('CONNECTION_LOST', `connection worker crashed: ${e.message}`)),
    );
    this.worker.on('exit', () => this.fail(new SluiceError('CONNECTION_LOST', 'connection worker exited')));
  }

  get closed(): boolean {
    return this.closedError !== null;
  }

  /** Connects, verifies the host key and authenticates; rejects with a SluiceError. */
  async connect(params: Omit<ConnectParams, 'counters' | 'channels'>): Promise<ConnectInfo> {
    this.info = await this.call('connect', {
      trace: process.env[TRACE_ENV] || undefined,
      ...params,
      channels: this.channels,
      counters: this.counters.buffer as SharedArrayBuffer,
      signals: this.signals.buffer as SharedArrayBuffer,
    });
    this.channels = this.info.channels;
    for (const answer of this.info.prefetchedStats ?? []) this.prefetched.set(answer.path, answer);
    return this.info;
  }

  /**
   * The answer of the STAT of `path` sent during set-up (ConnectParams.prefetch.stat, following links), once: later
   * calls, and paths without one, get undefined (then ask the server).
   * @returns the attributes, null when the path does not exist; rejects with the STAT's error
   */
  takePrefetchedStat(path: string): Promise<RemoteStat | null> | undefined {
    const answer = this.prefetched.get(path);
    if (!answer) return undefined;
    this.prefetched.delete(path);
    return answer.error ? Promise.reject(SluiceError.fromInfo(answer.error)) : Promise.resolve(answer.stat ?? null);
  }

  /** Opens `count` more SFTP channels on this connection (within the capacity given at construction). */
  async addChannels(count: number): Promise<void> {
    if (this.channels + count > this.counters.length / COUNTERS_PER_CHANNEL)
      throw new SluiceError('USAGE', 'channel capacity exceeded');
    this.channels = await this.call('addChannels', { count });
  }

  /** Sets every SFTP channel's receive window (bytes), including channels opened later. */
  async setChannelWindow(bytes: number): Promise<void> {
    await this.call('setChannelWindow', { bytes });
  }

  /**
   * Sends one operation to the worker.
   * @param options the call's own cancel signal and progress listener
   * @throws SluiceError the operation's error, or the connection's when it is gone
   */
  call<K extends OpName>(op: K, arg: WorkerOps[K][0], options: CallOptions = {}): Promise<WorkerOps[K][1]> {
    if (this.closedError) return Promise.reject(this.closedError);
    const id = ++this.nextId;
    const { signal, onProgress, onItems, onDurable } = options;
    const cancel = () => {
      if (!this.closedError && this.calls.has(id)) this.worker.postMessage({ kind: 'cancel', id } satisfies ToWorker);
    };
    return new Promise<WorkerOps[K][1]>((resolve, reject) => {
      this.calls.set(id, { resolve: resolve as (v: unknown) => void, reject, onProgress, onItems, onDurable });
      this.worker.postMessage({ kind: 'call', id, op, arg } satisfies ToWorker);
      if (signal?.aborted) cancel();
      else signal?.addEventListener('abort', cancel, { once: true });
    }).finally(() => signal?.removeEventListener('abort', cancel));
  }

  /** Closes the SSH connection and ends the worker thread. */
  async close(): Promise<void> {
    this.closing = true;
    if (!this.closedError) await this.call('close', {}).catch(() => undefined);
    this.fail(new SluiceError('CONNECTION_LOST', 'connection closed'));
    await this.worker.terminate();
  }

  private fail(e: SluiceError): void {
    if (this.closedError) return;
    this.closedError = e;
    for (const c of this.calls.values()) c.reject(e);
    this.calls.clear();
    if (!this.closing) this.hooks.onClosed?.(e);
  }

  /** Answers a keyboard-interactive round through the hook; a rejection (or no hook) carries the error back. */
  private answerKeyboard(id: number, round: KeyboardRound): void {
    const prompt = round.prompts[0]?.prompt.trim() ?? '';
    const asking =
      this.hooks.askKeyboard?.(round) ??
      (round.prompts.length === 0
        ? Promise.resolve([])
        : Promise.reject(
            new SluiceError(
              'AUTH_FAILED',
              `the server asks "${displayText(prompt, 100)}" (keyboard-interactive) and no one can answer it here`,
            ),
          ));
    asking.then(
      (answers) => this.worker.postMessage({ kind: 'keyboard-answer', id, answers } satisfies ToWorker),
      (e: unknown) =>
        this.worker.postMessage({
          kind: 'keyboard-answer',
          id,
          error: SluiceError.from(e).toInfo(),
        } satisfies ToWorker),
    );
  }

  /** Hands a batch of call `id`'s results to its onItems after the batches before it, then tells the worker. */
  private takeItems(id: number, batch: unknown[]): void {
    const c = this.calls.get(id);
    if (!c) return;
    c.items = (c.items ?? Promise.resolve()).then(async () => {
      if (c.itemsError) return;
      try {
        await c.onItems?.(batch);
      } catch (e) {
        c.itemsError = SluiceError.from(e);
        if (!this.closedError) this.worker.postMessage({ kind: 'cancel', id } satisfies ToWorker);
        return;
      }
      if (!this.closedError) this.worker.postMessage({ kind: 'items-taken', id } satisfies ToWorker);
    });
  }

  private onMessage(m: FromWorker): void {
    switch (m.kind) {
      case 'result': {
        const c = this.calls.get(m.id);
        if (!c) return;
        const settle = () => {
          this.calls.delete(m.id);
          if (c.itemsError) c.reject(c.itemsError);
          else if (m.ok) c.resolve(m.value);
          else c.reject(SluiceError.fromInfo(m.error));
        };
        if (c.items) void c.items.then(settle);
        else settle();
        return;
      }
      case 'items':
        this.takeItems(m.id, m.items);
        return;
      case 'hostkey':
        this.hooks.verifyHostKey(Buffer.from(m.key), m.hop).then(
          (a) =>
            this.worker.postMessage({
              kind: 'hostkey-answer',
              id: m.id,
              accept: a.accept,
              error: a.error?.toInfo(),
            } satisfies ToWorker),
          (e: Error) =>
            this.worker.postMessage({
              kind: 'hostkey-answer',
              id: m.id,
              accept: false,
              error: { code: 'HOSTKEY_REJECTED', message: e.message },
            } satisfies ToWorker),
        );
        return;
      case 'password':
        (this.hooks.askPassword?.(m.again === true, m.hop) ?? Promise.resolve(undefined)).then(
          (password) => this.worker.postMessage({ kind: 'password-answer', id: m.id, password } satisfies ToWorker),
          () => this.worker.postMessage({ kind: 'password-answer', id: m.id } satisfies ToWorker),
        );
        return;
      case 'keyboard':
        this.answerKeyboard(m.id, m.round);
        return;
      case 'progress':
        this.calls.get(m.id)?.onProgress?.(m.bytes);
        return;
      case 'durable':
        this.calls.get(m.id)?.onDurable?.(m.end);
        return;
      case 'hostkeys':
        this.hooks.onHostKeys?.(
          m.keys.map((k) => Buffer.from(k)),
          m.hop,
        );
        return;
      case 'auth-note':
        this.hooks.onAuthNote?.(m.message);
        return;
      case 'closed':
        this.fail(new SluiceError(m.code as ErrorCode, m.message));
        return;
    }
  }
}
