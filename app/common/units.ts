/**
 * Byte counts and durations as the CLI and the app show them: IEC binary units (IEC 80000-13), B, KiB, MiB, GiB,
 * TiB, PiB (powers of 1024), and clock-style durations. One rule for every process; each front end picks its style
 * (the CLI's `?` or the app's `—` for an unknown value).
 */

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'] as const;

/** How {@link formatBytes} writes a count. */
export interface ByteStyle {
  /** Written for a negative or non-finite count (never a valid size); default `"?"`. */
  unknown?: string;
  /** From this value of the unit up no decimal is written (`"512 MiB"`, three digits: the app's); default never. */
  wholeFrom?: number;
}

/**
 * Formats a byte count with binary units: `0` → `"0 B"`, `1536` → `"1.5 KiB"`, `52428800` → `"50.0 MiB"`
 * (`"50.0 MiB"` also with `wholeFrom: 100`, `"512 MiB"` only with it). One decimal from KiB up, none for plain
 * bytes; a value that would read 1024 of a unit is written in the next (`"1.0 MiB"`, never `"1024.0 KiB"`).
 * @param bytes a count of bytes (or bytes per second for a rate)
 */
export function formatBytes(bytes: number, style: ByteStyle = {}): string {
  if (!Number.isFinite(bytes) || bytes < 0) return style.unknown ?? '?';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = (v: number) => (v >= (style.wholeFrom ?? Infinity) ? 0 : 1);
  if (unit > 0 && unit < BYTE_UNITS.length - 1 && Number(value.toFixed(digits(value))) >= 1024) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${Math.round(value)} B` : `${value.toFixed(digits(value))} ${BYTE_UNITS[unit]}`;
}

/**
 * Formats a duration as `m:ss`, or `h:mm:ss` from one hour up (rounded to whole seconds).
 * @param ms milliseconds; negative or non-finite gives `undefined`
 */
export function formatDuration(ms: number): string | undefined {
  if (!Number.isFinite(ms) || ms < 0) return undefined;
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const ss = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}
