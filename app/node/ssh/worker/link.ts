/**
 * The worker's link to the coordinating thread: posting messages, asking questions (host key, password,
 * keyboard-interactive) and each call's context (cancel signal, progress, batched results). One per worker thread,
 * made by the dispatcher (ssh/worker.ts) over its port and handed to the connection (worker/conn.ts).
 */
import type { MessagePort } from 'node:worker_threads';
import type { KeyboardRound } from '../keyboardInteractive';
import { ITEMS_AHEAD, type CallContext, type FromWorker, type ToWorker } from '../workerProtocol';

/** Progress messages of one call to the coordinator are sent at most this often, ms. */
export const PROGRESS_INTERVAL_MS = 200;

/**
 * The coordinator's questions: a host key to verify (`hop`: a jump host's), the password, a keyboard-interactive
 * round.
 */
export type Question =
  | { kind: 'hostkey'; key: Uint8Array; hop?: number }
  | { kind: 'password'; again?: boolean; hop?: number }
  | { kind: 'keyboard'; round: KeyboardRound };

/** What a worker module may send to the coordinator and ask of it (a test passes its own). */
export interface Coordinator {
  post(msg: FromWorker): void;
  /** Asks the coordinator; resolves with its answer message. */
  ask(q: Question): Promise<ToWorker>;
}

/** The {@link Coordinator} over a worker thread's port, with the calls and questions in flight. */
export class CoordinatorLink implements Coordinator {
  private askId = 0;
  /** Questions awaiting their answer, by id. */
  private readonly asks = new Map<number, (msg: ToWorker) => void>();
  /** Abort controllers of running calls, by call id (the coordinator sends `cancel` with the id). */
  private readonly calls = new Map<number, AbortController>();
  /** What to do when the coordinator took a batch of a call's results (`items-taken`), by call id. */
  private readonly itemsTaken = new Map<number, () => void>();

  constructor(private readonly port: MessagePort) {}

  post(msg: FromWorker): void {
    this.port.postMessage(msg);
  }

  ask(q: Question): Promise<ToWorker> {
    const id = ++this.askId;
    return new Promise((resolve) => {
      this.asks.set(id, resolve);
      this.post({ ...q, id } as FromWorker);
    });
  }

  /**
   * Routes a message that is not a call: a cancel, a batch taken, an answer to a question.
   * @returns false for a `call` (the dispatcher runs those)
   */
  route(msg: ToWorker): boolean {
    if (msg.kind === 'call') return false;
    if (msg.kind === 'cancel') this.calls.get(msg.id)?.abort();
    else if (msg.kind === 'items-taken') this.itemsTaken.get(msg.id)?.();
    else {
      const resolve = this.asks.get(msg.id);
      this.asks.delete(msg.id);
      resolve?.(msg);
    }
    return true;
  }

  /**
   * The context of call `id`: an abort signal the coordinator's `cancel` fires, and progress posted at most every
   * PROGRESS_INTERVAL_MS. `end()` posts the remaining progress (before the call's result) and forgets the call.
   */
  callContext(id: number): CallContext & { end(): void } {
    const abort = new AbortController();
    this.calls.set(id, abort);
    let ahead = 0;
    let room: (() => void) | null = null;
    const wake = () => {
      const r = room;
      room = null;
      r?.();
    };
    abort.signal.addEventListener('abort', wake, { once: true });
    let unsent = 0;
    let last = Date.now();
    const flush = () => {
      if (unsent) this.post({ kind: 'progress', id, bytes: unsent });
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
        this.post({ kind: 'items', id, items: batch });
        ahead++;
        if (ahead === 1)
          this.itemsTaken.set(id, () => {
            ahead--;
            if (ahead < ITEMS_AHEAD) wake();
          });
        if (ahead < ITEMS_AHEAD || abort.signal.aborted) return Promise.resolve();
        return new Promise<void>((resolve) => {
          room = resolve;
        });
      },
      // Bytes first: the coordinator hears them before it hears they are durable.
      durable: (end) => {
        if (!this.calls.has(id)) return;
        flush();
        this.post({ kind: 'durable', id, end });
      },
      end: () => {
        flush();
        this.calls.delete(id);
        this.itemsTaken.delete(id);
        wake();
      },
    };
  }
}
