/**
 * Round values for a rate axis: steps of 1, 2, 2.5 or 5 × 10^n in the binary unit the rates are read in (B/s, KiB/s,
 * MiB/s, GiB/s), so the axis reads 0, 100, 200, 300 MiB/s and not 0, 95.4, 191, 286 MiB/s.
 */

const UNIT = 1024;
const MULTIPLES = [1, 2, 2.5, 5, 10];

/**
 * @param max the highest rate to show, bytes/s
 * @param count about how many steps the axis has room for
 * @returns the step between ticks, bytes/s (a round number of B/s, KiB/s, MiB/s or GiB/s)
 */
export function rateStep(max: number, count = 4): number {
  const top = Math.max(1, max);
  let unit = UNIT ** Math.min(3, Math.floor(Math.log(top) / Math.log(UNIT)));
  // Under two units in all (1.1 KiB/s) the unit below reads better (500 B/s steps); from two up, whole units
  // (a step of 0.5 MiB/s would read 512 KiB/s).
  if (top / unit < 2 && unit > 1) unit /= UNIT;
  const raw = Math.max(top / unit / count, unit > 1 ? 1 : 0);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const multiple = MULTIPLES.find((m) => m * magnitude >= raw) ?? 10;
  return Math.max(1, multiple * magnitude) * unit;
}

/** The axis' top for rates up to `max` bytes/s: a little headroom, rounded up to a whole step. */
export function rateTop(max: number, count = 4): number {
  const step = rateStep(max * 1.1, count);
  return Math.ceil((max * 1.1) / step) * step;
}

/** The ticks from 0 to `top` (bytes/s) at the round step for `top`. */
export function rateTicks(top: number, count = 4): number[] {
  const step = rateStep(top, count);
  const ticks: number[] = [];
  for (let v = 0; v <= top * (1 + 1e-9) && ticks.length <= 20; v += step) ticks.push(v);
  return ticks;
}
