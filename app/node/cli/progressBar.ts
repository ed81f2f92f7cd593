/**
 * The CLI's progress bar on a terminal (stderr): bytes, files, rate and ETA in the units of ./units.ts.
 * cli-progress reserves the tokens `{total}`, `{value}`, `{eta}`, `{eta_formatted}`, `{duration}` and `{percentage}`
 * for its own raw numbers, so every text here travels in payload tokens of our own names.
 */
import cliProgress from 'cli-progress';
import type { EngineEvent } from '../transfer/types';
import { formatBytes, formatEta, formatRate } from './units';

/** An engine `progress` event. */
export type ProgressEvent = Extract<EngineEvent, { type: 'progress' }>;

/** The payload tokens of {@link BAR_FORMAT}. */
export interface ProgressTokens {
  /** Bytes done, e.g. `"25.0 MiB"`. */
  sizeDone: string;
  /** Bytes in the job, with `+` while folders are still being walked (the total still grows). */
  sizeTotal: string;
  /** Files done of the files found, e.g. `"3/10"`. */
  fileCount: string;
  /** Current rate, e.g. `"12.3 MiB/s"`. */
  speed: string;
  /** `" | ETA 1:05"`, or `''` while unknown (no rate yet, or the total still grows): never "NFs" or NaN. */
  etaText: string;
}

/** The bar's layout; `{bar}` and `{percentage}` come from cli-progress, the rest from {@link progressTokens}. */
export const BAR_FORMAT = '{label} [{bar}] {percentage}% | {sizeDone}/{sizeTotal} | {fileCount} files | {speed}{etaText}';

/** The text tokens for one progress event (pure; see {@link ProgressTokens}). */
export function progressTokens(e: ProgressEvent): ProgressTokens {
  const eta = e.scanning ? undefined : formatEta(e.bytesTotal - e.bytesDone, e.rate);
  return {
    sizeDone: formatBytes(e.bytesDone),
    sizeTotal: formatBytes(e.bytesTotal) + (e.scanning ? '+' : ''),
    fileCount: `${e.filesDone}/${e.filesTotal}`,
    speed: formatRate(e.rate),
    etaText: eta === undefined ? '' : ` | ETA ${eta}`,
  };
}

/** A stream the bar draws on: a terminal (`isTTY`), e.g. process.stderr. */
export type BarStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/** A single progress bar, started by the first progress event and redrawn at most 4 times a second. */
export class ProgressBar {
  private bar: cliProgress.SingleBar | null = null;

  /**
   * @param label text before the bar (`'up  '` or `'down'`)
   * @param stream where to draw (default process.stderr); cli-progress draws nothing unless it is a TTY
   */
  constructor(private readonly label: string, private readonly stream: BarStream = process.stderr) {}

  /** Shows `e`: starts the bar on the first event, then moves it. */
  update(e: ProgressEvent): void {
    const total = Math.max(1, e.bytesTotal);
    const payload = { label: this.label, ...progressTokens(e) };
    if (!this.bar) {
      this.bar = new cliProgress.SingleBar({ format: BAR_FORMAT, hideCursor: true, stream: this.stream, fps: 4 }, cliProgress.Presets.shades_classic);
      this.bar.start(total, Math.min(e.bytesDone, total), payload);
      return;
    }
    this.bar.setTotal(total);
    this.bar.update(Math.min(e.bytesDone, total), payload);
  }

  /** Draws the last state and ends the line; the next event starts a new bar. Safe to call at any time. */
  stop(): void {
    this.bar?.stop();
    this.bar = null;
  }
}
