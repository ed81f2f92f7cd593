/**
 * The CLI's progress bar on a terminal (stderr): bytes, files, rate and ETA in the units of ./units.ts, fitted to the
 * terminal's width (./barLayout.ts) and redrawn at once when the terminal is resized (SIGWINCH). cli-progress
 * draws it (throttled redraws, the cursor hidden while it runs, line wrapping off) through {@link BarTerminal}.
 */
import readline from 'node:readline';
import type cliProgress from 'cli-progress';
import type { EngineEvent } from '../transfer/types';
import { fitBar, type BarFields } from './barLayout';
import { formatBytes, formatEta, formatRate } from './units';

/** An engine `progress` event. */
export type ProgressEvent = Extract<EngineEvent, { type: 'progress' }>;

/**
 * The fields of the line for one progress event (pure). Files the conflict rule skipped and files an earlier run
 * committed count as done (a resumed tree reaches 100 %); the file count shows when the job has more than one file.
 * In the verifying phase (`e.verifying`) the line is about the bytes hashed instead.
 * @param label `'down'`, `'up  '`
 * @param verifyingMs how long the verifying phase has lasted, ms (its hashing rate)
 */
export function progressFields(e: ProgressEvent, label: string, verifyingMs = 0): BarFields {
  if (e.verifying) return verifyFields(e, e.verifying, verifyingMs);
  const done = e.bytesDone + (e.bytesSkipped ?? 0);
  const filesDone = e.filesDone + (e.filesSkipped ?? 0);
  const total = Math.max(e.bytesTotal, done);
  const eta = e.scanning ? undefined : formatEta(total - done, e.rate);
  return {
    label,
    fraction: total > 0 ? done / total : filesDone >= e.filesTotal && !e.scanning ? 1 : 0,
    sizeDone: formatBytes(done),
    sizeTotal: formatBytes(total) + (e.scanning ? '+' : ''),
    files: e.filesTotal > 1 || e.scanning ? `${filesDone}/${e.filesTotal} files` : undefined,
    speed: formatRate(e.rate),
    eta,
  };
}

/**
 * The verifying phase (`--verify sha256`, every file in flight having its hashes compared): `verify [...] 37% |
 * 12.0 MiB/32.0 MiB | 10.7 MiB/s | ETA 0:02` over the bytes hashed of those files, the rate since the phase began.
 * @param ms how long the phase has lasted
 */
function verifyFields(e: ProgressEvent, v: NonNullable<ProgressEvent['verifying']>, ms: number): BarFields {
  const filesDone = e.filesDone + (e.filesSkipped ?? 0);
  const rate = ms > 0 ? v.hashedBytes / (ms / 1000) : 0;
  return {
    label: 'verify',
    fraction: v.bytes > 0 ? v.hashedBytes / v.bytes : 0,
    sizeDone: formatBytes(v.hashedBytes),
    sizeTotal: formatBytes(v.bytes),
    files: e.filesTotal > 1 ? `${filesDone}/${e.filesTotal} files` : undefined,
    speed: formatRate(rate),
    eta: formatEta(v.bytes - v.hashedBytes, rate),
  };
}

/** A stream the bar draws on: a terminal (`isTTY`, `columns`, `resize` events), e.g. process.stderr. */
export type BarStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/**
 * What cli-progress draws through (its `terminal` option): the library's own terminal saves the cursor when the bar
 * starts and restores it when it stops, which puts the cursor back on the wrong line once anything has scrolled the
 * screen meanwhile (the shell's next prompt then lands on the bar). This one draws at column 0 of the current line
 * and ends it with a newline, nothing else.
 */
export class BarTerminal {
  constructor(private readonly stream: BarStream) {}
  cursorSave(): void {
    /* never: see the class comment */
  }
  cursorRestore(): void {
    /* never: see the class comment */
  }
  cursor(enabled: boolean): void {
    this.stream.write(enabled ? '\x1b[?25h' : '\x1b[?25l');
  }
  lineWrapping(enabled: boolean): void {
    this.stream.write(enabled ? '\x1b[?7h' : '\x1b[?7l');
  }
  cursorTo(x: number | null, y: number | null): void {
    readline.cursorTo(this.stream, x ?? 0, y ?? undefined);
  }
  write(s: string): void {
    this.stream.write(s);
  }
  clearRight(): void {
    readline.clearLine(this.stream, 1);
  }
  clearLine(): void {
    readline.clearLine(this.stream, 0);
  }
  newline(): void {
    this.stream.write('\n');
  }
  isTTY(): boolean {
    return this.stream.isTTY === true;
  }
  /** Columns now (they change on SIGWINCH); 80 when the stream does not say. */
  getWidth(): number {
    return this.stream.columns || 80;
  }
}

/** A single progress bar, started by the first progress event and redrawn at most 4 times a second. */
export class ProgressBar {
  private bar: cliProgress.SingleBar | null = null;
  private fields: BarFields | null = null;
  /** When the verifying phase began (ms since epoch), while it lasts. */
  private verifyingSince: number | undefined;
  private readonly onResize = (): void => this.bar?.render();

  /**
   * @param label text before the bar (`'up  '` or `'down'`)
   * @param stream where to draw (default process.stderr); cli-progress draws nothing unless it is a TTY
   */
  constructor(
    private readonly label: string,
    private readonly stream: BarStream = process.stderr,
  ) {}

  /** Whether a bar is on the screen now. */
  get active(): boolean {
    return this.bar !== null;
  }

  /** Shows `e`: starts the bar on the first event, then moves it. */
  update(e: ProgressEvent): void {
    this.verifyingSince = e.verifying ? (this.verifyingSince ?? Date.now()) : undefined;
    this.fields = progressFields(
      e,
      this.label,
      this.verifyingSince === undefined ? 0 : Date.now() - this.verifyingSince,
    );
    const value = Math.round(this.fields.fraction * 1000);
    if (!this.bar) {
      const options: cliProgress.Options & { terminal: BarTerminal } = {
        format: (_o, params) => (this.fields ? fitBar(this.fields, params.maxWidth) : ''),
        hideCursor: true,
        stream: this.stream,
        fps: 4,
        forceRedraw: true,
        terminal: new BarTerminal(this.stream),
      };
      // Loaded with the first bar: a run without one (--no-progress, --json, no terminal) never loads cli-progress.
      const { SingleBar } = require('cli-progress') as typeof cliProgress;
      this.bar = new SingleBar(options);
      this.stream.on('resize', this.onResize);
      this.bar.start(1000, value);
      return;
    }
    this.bar.update(value);
  }

  /** Draws the last state and ends the line; the next event starts a new bar. Safe to call at any time. */
  stop(): void {
    if (!this.bar) return;
    this.stream.off('resize', this.onResize);
    this.bar.stop();
    this.bar = null;
  }
}
