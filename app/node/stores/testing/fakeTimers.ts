/** {@link StoreTimers} driven by hand: tests fire the armed timers instead of waiting for them. */
import type { StoreTimers } from '../storeTimers';

export class FakeTimers implements StoreTimers {
  private readonly armed = new Map<number, { fn: () => void; ms: number }>();
  private nextId = 1;

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.armed.set(id, { fn, ms });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.armed.delete(handle as number);
  }

  /** The delays (ms) of the timers armed now. */
  delays(): number[] {
    return [...this.armed.values()].map((t) => t.ms);
  }

  /** Runs every timer armed now (timers they arm stay armed); returns how many ran. */
  fire(): number {
    const due = [...this.armed.values()];
    this.armed.clear();
    for (const t of due) t.fn();
    return due.length;
  }
}
