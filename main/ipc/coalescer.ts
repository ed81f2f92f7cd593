/**
 * Coalesces engine events for the window (ARCHITECTURE.md "high-frequency progress is a hot path"):
 * queue deltas, progress samples and log lines are buffered and flushed at most every `intervalMs`
 * (100 ms = ~10 batches/s); prompts, session status and snapshots go out at once, after whatever was
 * buffered before them, so ordering is preserved.
 */
import type { EventName, EventPayloads, LogLine, ProgressSample } from '../../app/common/ipc/contract';
import { compactQueueEvents, type QueueEvent } from '../../app/common/queue/reducer';

export type Send = <E extends EventName>(event: E, payload: EventPayloads[E]) => void;

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Progress samples kept per flush (the graph needs a few per site per 100 ms, not a backlog). */
const MAX_SAMPLES = 64;
/** Log lines kept per flush; older ones are summarised. */
const MAX_LOG_LINES = 500;

export class EventCoalescer {
  private deltas: QueueEvent[] = [];
  private samples: ProgressSample[] = [];
  private logs: LogLine[] = [];
  private droppedLogs = 0;
  private timer: unknown;

  constructor(
    private readonly send: Send,
    private readonly intervalMs = 100,
    private readonly timers: Timers = {
      setTimeout: (fn, ms) => setTimeout(fn, ms),
      clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
    },
  ) {}

  /** Takes one service event. */
  push<E extends EventName>(event: E, payload: EventPayloads[E]): void {
    switch (event) {
      case 'queue.delta':
        this.deltas.push(...(payload as EventPayloads['queue.delta']).events);
        return this.schedule();
      case 'progress':
        this.samples.push(...(payload as EventPayloads['progress']).samples);
        if (this.samples.length > MAX_SAMPLES) this.samples.splice(0, this.samples.length - MAX_SAMPLES);
        return this.schedule();
      case 'log':
        this.logs.push(...(payload as EventPayloads['log']).lines);
        if (this.logs.length > MAX_LOG_LINES) {
          this.droppedLogs += this.logs.length - MAX_LOG_LINES;
          this.logs.splice(0, this.logs.length - MAX_LOG_LINES);
        }
        return this.schedule();
      case 'queue.snapshot':
        // A snapshot supersedes every buffered delta.
        this.deltas = [];
        this.flush();
        this.send(event, payload);
        return;
      default:
        this.flush();
        this.send(event, payload);
    }
  }

  /** Sends everything buffered now. */
  flush(): void {
    if (this.timer !== undefined) {
      this.timers.clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.deltas.length) {
      const events = compactQueueEvents(this.deltas);
      this.deltas = [];
      this.send('queue.delta', { events });
    }
    if (this.samples.length) {
      const samples = this.samples;
      this.samples = [];
      this.send('progress', { samples });
    }
    if (this.logs.length) {
      const lines = this.logs;
      if (this.droppedLogs)
        lines.unshift({ t: lines[0].t, level: 'warn', message: `${this.droppedLogs} log lines skipped` });
      this.logs = [];
      this.droppedLogs = 0;
      this.send('log', { lines });
    }
  }

  /** Drops the pending timer (window closed). */
  dispose(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    this.deltas = [];
    this.samples = [];
    this.logs = [];
  }

  private schedule(): void {
    if (this.timer === undefined)
      this.timer = this.timers.setTimeout(() => {
        this.timer = undefined;
        this.flush();
      }, this.intervalMs);
  }
}
