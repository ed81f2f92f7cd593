/**
 * Settings → Transfers as typed (issue #23 item 22): the speed limit in MiB/s as text, read into the `speedLimit`
 * setting (bytes/s, 0 = none) and written back. Pure; unit-tested.
 */

const MiB = 1048576;

/** `''` or `0` = none; else a number of MiB/s (decimals allowed), at least 1 KiB/s. */
export function parseLimitMiB(text: string): { ok: true; bytesPerSecond: number } | { ok: false; error: string } {
  const t = text.trim();
  if (t === '' || /^0+(\.0*)?$/.test(t)) return { ok: true, bytesPerSecond: 0 };
  if (!/^\d+(\.\d+)?$/.test(t))
    return { ok: false, error: 'Speed limit must be a number of MiB/s, e.g. 10 or 0.5 (empty: none)' };
  const n = Math.round(Number(t) * MiB);
  if (n < 1024) return { ok: false, error: 'Speed limit must be at least 0.001 MiB/s (empty: none)' };
  if (n > 2 ** 40) return { ok: false, error: 'Speed limit must be at most 1048576 MiB/s (empty: none)' };
  return { ok: true, bytesPerSecond: n };
}

/** The `speedLimit` setting as the field shows it: `''` for none, else MiB/s with up to 3 decimals. */
export function limitText(bytesPerSecond: number): string {
  return bytesPerSecond <= 0 ? '' : String(Math.round((bytesPerSecond / MiB) * 1000) / 1000);
}
