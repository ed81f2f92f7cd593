/**
 * The progress line fitted to the terminal's width (pure): `down [████░░░░] 20% | 210.6 MiB/1.0 GiB | 3/10 files |
 * 12.3 MiB/s | ETA 1:05`. The bar graphic takes the room left (from {@link MIN_GRAPHIC} to {@link MAX_GRAPHIC}
 * cells); when even the smallest graphic does not fit, the least useful fields go first (the label, the total, the
 * file count, the ETA, the size), then the graphic itself; the percentage always stays. The line never reaches the
 * terminal's last column, so it can never wrap.
 */

/** The texts of one progress line (see {@link progressFields}). */
export interface BarFields {
  /** `'down'`, `'up  '`, `'verify'`. */
  label: string;
  /** Done, 0 to 1. */
  fraction: number;
  /** Bytes done, e.g. `"25.0 MiB"`. */
  sizeDone: string;
  /** Bytes in the job, `+` while folders are still being walked. */
  sizeTotal: string;
  /** `"3/10 files"`, or undefined for a single file (no count worth showing). */
  files?: string;
  /** Current rate, e.g. `"12.3 MiB/s"`. */
  speed: string;
  /** `"1:05"`, or undefined while unknown. */
  eta?: string;
}

/** The graphic's width bounds, in cells. */
export const MIN_GRAPHIC = 10;
export const MAX_GRAPHIC = 40;

/** The optional parts, least useful first: each drop removes one more. */
const DROPS = ['label', 'total', 'files', 'eta', 'size', 'speed'] as const;
type Drop = (typeof DROPS)[number];

/** The graphic: `width` cells, the done part in full blocks. */
export function graphic(fraction: number, width: number): string {
  const full = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return '█'.repeat(full) + '░'.repeat(width - full);
}

function compose(f: BarFields, dropped: ReadonlySet<Drop>, graphicWidth: number): string {
  const pct = `${Math.floor(Math.min(1, Math.max(0, f.fraction)) * 100)}%`;
  const head = [
    ...(dropped.has('label') ? [] : [f.label]),
    ...(graphicWidth > 0 ? [`[${graphic(f.fraction, graphicWidth)}]`] : []),
    pct,
  ].join(' ');
  const tail = [
    ...(dropped.has('size') ? [] : [dropped.has('total') ? f.sizeDone : `${f.sizeDone}/${f.sizeTotal}`]),
    ...(f.files === undefined || dropped.has('files') ? [] : [f.files]),
    ...(dropped.has('speed') ? [] : [f.speed]),
    ...(f.eta === undefined || dropped.has('eta') ? [] : [`ETA ${f.eta}`]),
  ];
  return [head, ...tail].join(' | ');
}

/**
 * The line for `columns` terminal columns (at most `columns - 1` characters; see the module comment).
 * @param columns the terminal's width in cells (process.stderr.columns)
 */
export function fitBar(f: BarFields, columns: number): string {
  const width = Math.max(1, Math.floor(columns) - 1);
  // The graphic's cells plus its brackets and space: compose with a 0-cell graphic measures the rest.
  for (let n = 0; n <= DROPS.length; n++) {
    const dropped = new Set(DROPS.slice(0, n));
    const rest = compose(f, dropped, 0).length + 3;
    const room = width - rest;
    if (room >= MIN_GRAPHIC) return compose(f, dropped, Math.min(MAX_GRAPHIC, room));
  }
  for (let n = 0; n <= DROPS.length; n++) {
    const line = compose(f, new Set(DROPS.slice(0, n)), 0);
    if (line.length <= width) return line;
  }
  return compose(f, new Set(DROPS), 0).slice(0, width);
}
