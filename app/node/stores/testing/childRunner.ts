/**
 * Runs testing/queueChild.ts as a separate process for the queue store's tests: its stdout lines as they come,
 * bounded waits for a line or for its exit (never a fixed sleep), and kill.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { SluiceError } from '../../errors';

/** The compiled child script. */
export const QUEUE_CHILD = path.join(__dirname, 'queueChild.js');

/** One running queueChild process. */
export class QueueChild {
  readonly proc: ChildProcess;
  readonly lines: string[] = [];
  private stderr = '';
  private waiters: Array<() => void> = [];
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  /** @param args the child's mode and arguments (see queueChild.ts) */
  constructor(args: readonly string[]) {
    this.proc = spawn(process.execPath, [QUEUE_CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    readline.createInterface({ input: this.proc.stdout! }).on('line', (line) => {
      this.lines.push(line);
      this.wake();
    });
    this.proc.stderr!.on('data', (d: Buffer) => {
      this.stderr += d.toString();
    });
    this.exited = new Promise((resolve) => {
      this.proc.on('close', (code, signal) => {
        this.exit = { code, signal };
        this.wake();
        resolve(this.exit);
      });
    });
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const fn of w) fn();
  }

  /**
   * The first stdout line (already printed or to come) for which `pred` holds.
   * @throws SluiceError TIMEOUT after `timeoutMs` ms, or INTERNAL when the child ends without printing it (with its
   *   stderr)
   */
  async waitForLine(pred: (line: string) => boolean, timeoutMs = 30_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.find(pred);
      if (found !== undefined) return found;
      if (this.exit)
        throw new SluiceError(
          'INTERNAL',
          `queueChild exited (${JSON.stringify(this.exit)}) without the line; stderr: ${this.stderr}`,
        );
      const left = deadline - Date.now();
      if (left <= 0)
        throw new SluiceError(
          'TIMEOUT',
          `queueChild printed no such line in ${timeoutMs} ms; got ${this.lines.slice(-5).join(' | ')}; stderr: ${this.stderr}`,
        );
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Sends a signal and waits for the process to end. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (!this.exit) this.proc.kill(signal);
    return this.exited;
  }

  /**
   * Waits for the child to end by itself.
   * @throws SluiceError TIMEOUT after `timeoutMs` ms (the child is killed)
   */
  async done(timeoutMs = 60_000): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.proc.kill('SIGKILL');
        reject(new SluiceError('TIMEOUT', `queueChild still running after ${timeoutMs} ms`));
      }, timeoutMs);
    });
    try {
      return { ...(await Promise.race([this.exited, timeout])), stderr: this.stderr };
    } finally {
      clearTimeout(timer);
    }
  }
}
