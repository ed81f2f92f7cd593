/**
 * The CLI's one unit system, used by the progress bar, the summary and `-v` output: IEC binary units
 * throughout (IEC 80000-13), sizes in B, KiB, MiB, GiB, TiB (powers of 1024) and rates in the same units per
 * second (MiB/s), as the desktop app shows them. Nothing here ever prints NaN, Infinity or a negative size.
 * What a user types is read as rsync reads `--bwlimit` ({@link parseByteAmount}): `K`, `M`, `G`, `T` and `KiB`… are
 * powers of 1024 (as curl's `--limit-rate` reads `M` too), `KB`, `MB`, `GB`, `TB` powers of 1000 (SI).
 */

import { formatBytes, formatDuration } from '../../common/units';

export { formatBytes, formatDuration };

/**
 * Formats a rate, e.g. `"12.3 MiB/s"`.
 * @param bytesPerSecond bytes per second; negative or non-finite (unknown) gives `"? B/s"`
 */
export function formatRate(bytesPerSecond: number): string {
  if (!Number.isFinite(bytesPerSecond) || bytesPerSecond < 0) return '? B/s';
  return `${formatBytes(bytesPerSecond)}/s`;
}

/**
 * The average rate of `bytes` moved in `elapsedMs` milliseconds, in bytes per second.
 * @returns `undefined` when it cannot be known (no time elapsed, or non-finite input)
 */
export function averageRate(bytes: number, elapsedMs: number): number | undefined {
  if (!Number.isFinite(bytes) || !Number.isFinite(elapsedMs) || bytes < 0 || elapsedMs <= 0) return undefined;
  return bytes / (elapsedMs / 1000);
}

/**
 * Estimated time left, formatted by {@link formatDuration}.
 * @param remainingBytes bytes still to move
 * @param bytesPerSecond the current rate
 * @returns `undefined` when unknown: no rate yet (0), or any input not a finite non-negative number
 */
export function formatEta(remainingBytes: number, bytesPerSecond: number): string | undefined {
  if (!Number.isFinite(remainingBytes) || remainingBytes < 0 || !Number.isFinite(bytesPerSecond) || bytesPerSecond <= 0)
    return undefined;
  return formatDuration((remainingBytes / bytesPerSecond) * 1000);
}

/**
 * Formats elapsed seconds for the summary: `"0.42 s"`, `"12.3 s"`, or {@link formatDuration} from one minute up.
 * @param ms milliseconds; negative or non-finite gives `"? s"`
 */
export function formatElapsed(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '? s';
  if (ms < 10_000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return formatDuration(ms) as string;
}

export { plural } from '../../common/plural';

/** Multipliers of the unit letters of {@link parseByteAmount}. */
const UNIT_POWERS: Readonly<Record<string, number>> = { K: 1, M: 2, G: 3, T: 4 };

/**
 * Reads an amount of bytes as rsync's `--bwlimit` and `--max-size` do: a number (decimals allowed) and an optional
 * unit, letters in any case, with an optional `/s` for rates: none or `B` = bytes; `K`, `M`, `G`, `T` and `KiB`, `MiB`,
 * `GiB`, `TiB` = powers of 1024 (IEC; curl's `--limit-rate 10M` is 10 MiB/s too); `KB`, `MB`, `GB`, `TB` = powers of
 * 1000 (SI: 10MB = 10,000,000 bytes).
 * @returns whole bytes (rounded), or undefined for text that is not such an amount
 */
export function parseByteAmount(text: string, opts: { perSecond?: boolean } = {}): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*(?:([KMGT])(i?)(B?)|(B))?$/i.exec(
    opts.perSecond ? text.trim().replace(/\s*\/\s*s$/i, '') : text.trim(),
  );
  if (!m) return undefined;
  const letter = m[2]?.toUpperCase();
  const si = letter !== undefined && m[3] === '' && m[4] !== '';
  if (m[3] !== undefined && m[3] !== '' && m[4] === '') return undefined; // "Ki" without B
  const mult = letter === undefined ? 1 : (si ? 1000 : 1024) ** UNIT_POWERS[letter];
  return Math.round(Number(m[1]) * mult);
}
