/**
 * Turning measured runs into medians, Sluice/peer ratios and Markdown tables (stdout, results files, the
 * docs/benchmarks.md block). Ratios are always "times faster than": MB/s ÷ MB/s for throughput, seconds ÷ seconds (peer
 * over Sluice) for times, so a ratio above 1 means Sluice was faster.
 */
import type { BenchCase } from './cases';
import type { Family } from './clients';
import { median } from './measure';

/** One measured run of one client. */
export interface RunRecord {
  ok: boolean;
  seconds: number;
  cpuUser?: number;
  cpuSys?: number;
  maxRssKb?: number;
  /** Why the run does not count (exit code, timeout, failed check). */
  error?: string;
  /** Sluice only: the pool it used, e.g. `4×2` (connections × channels, from its -v output). */
  pool?: string;
  /** Sluice's connect rows: round trips from the TCP connect to the first SSH_FXP_DATA (from its --trace). */
  roundTrips?: number;
}

/** All runs of one client configuration in one case. */
export interface RowResult {
  client: string;
  family: Family;
  label: string;
  runs: RunRecord[];
  /** e.g. "stopped after 1 run (slower than 45 s)". */
  note?: string;
}

export interface CaseResult {
  id: string;
  title: string;
  link: string;
  unit: 'MB/s' | 's';
  bytes: number;
  files: number;
  target?: string;
  rows: RowResult[];
}

/** Medians of a row's successful runs. */
export interface RowStats {
  okRuns: number;
  totalRuns: number;
  /** Median in the case's unit (MB/s or s); undefined when no run succeeded. */
  value?: number;
  medianSeconds?: number;
  /** Client CPU (user + sys), seconds per 10^9 bytes for throughput cases, plain seconds otherwise. */
  cpu?: number;
  maxRssMB?: number;
}

export function rowStats(c: CaseResult, r: RowResult): RowStats {
  const ok = r.runs.filter((x) => x.ok);
  const stats: RowStats = { okRuns: ok.length, totalRuns: r.runs.length };
  if (!ok.length) return stats;
  stats.medianSeconds = median(ok.map((x) => x.seconds));
  stats.value = c.unit === 'MB/s' ? c.bytes / 1e6 / stats.medianSeconds : stats.medianSeconds;
  const cpus = ok.filter((x) => x.cpuUser !== undefined).map((x) => (x.cpuUser ?? 0) + (x.cpuSys ?? 0));
  if (cpus.length) stats.cpu = c.unit === 'MB/s' ? median(cpus) / (c.bytes / 1e9) : median(cpus);
  const rss = ok.filter((x) => x.maxRssKb !== undefined).map((x) => x.maxRssKb as number);
  if (rss.length) stats.maxRssMB = Math.max(...rss) / 1024;
  return stats;
}

/** True when `a` is a better median than `b` in this unit. */
function better(unit: CaseResult['unit'], a: number, b: number): boolean {
  return unit === 'MB/s' ? a > b : a < b;
}

/** How many times faster `sluice` is than `peer` (> 1: Sluice faster). */
export function speedup(unit: CaseResult['unit'], sluice: number, peer: number): number {
  return unit === 'MB/s' ? sluice / peer : peer / sluice;
}

interface Pick {
  row: RowResult;
  value: number;
}

function bestOf(c: CaseResult, rows: RowResult[]): Pick | undefined {
  let best: Pick | undefined;
  for (const row of rows) {
    const v = rowStats(c, row).value;
    if (v !== undefined && (!best || better(c.unit, v, best.value))) best = { row, value: v };
  }
  return best;
}

/** The figures the summary reports for one case. */
export interface CaseSummary {
  sftp?: number;
  bestPeer?: Pick;
  sluiceDefault?: number;
  sluiceBest?: Pick;
  targetMet?: boolean;
}

export function summarize(
  c: CaseResult,
  targetMet?: (sluice: number, sftp: number | undefined) => boolean | undefined,
): CaseSummary {
  const sluiceRows = c.rows.filter((r) => r.family === 'sluice');
  const peerRows = c.rows.filter((r) => r.family !== 'sluice');
  const sftpRow = c.rows.find((r) => r.client === 'sftp');
  const s: CaseSummary = {
    sftp: sftpRow && rowStats(c, sftpRow).value,
    bestPeer: bestOf(c, peerRows),
    sluiceDefault: sluiceRows[0] && rowStats(c, sluiceRows[0]).value,
    sluiceBest: bestOf(c, sluiceRows),
  };
  if (targetMet && s.sluiceBest) s.targetMet = targetMet(s.sluiceBest.value, s.sftp);
  return s;
}

/** A median in its unit: MB/s with 3 significant-ish digits, seconds with 2 decimals (ms below 1 s). */
export function fmtValue(unit: CaseResult['unit'], v: number | undefined): string {
  if (v === undefined || !Number.isFinite(v)) return '—';
  if (unit === 'MB/s') return `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} MB/s`;
  return v < 1 ? `${(v * 1000).toFixed(0)} ms` : `${v.toFixed(2)} s`;
}

function fmtRatio(x: number | undefined): string {
  return x === undefined || !Number.isFinite(x) ? '—' : `${x.toFixed(2)}×`;
}

/** Short name of a row for the summary, e.g. `sluice-c4` → `--connections 4`. */
function shortLabel(r: RowResult): string {
  if (r.family === 'sluice') return r.label.replace(/^Sluice /, '').replace(/^\(defaults.*\)$/, 'defaults');
  return r.label.replace(/ \(.*\)$/, '');
}

/**
 * The one-table overview (the docs/benchmarks.md block): per case sftp, best peer, Sluice defaults and best, ratios,
 * target.
 */
export function summaryTable(cases: Array<{ result: CaseResult; bench?: BenchCase }>): string {
  const lines = [
    '| case | OpenSSH sftp | best peer | Sluice, defaults | Sluice, best (settings) | best ÷ sftp | best ÷ best peer | target |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const { result: c, bench } of cases) {
    const s = summarize(c, bench?.target?.met);
    const ratio = (p: number | undefined): number | undefined =>
      s.sluiceBest && p !== undefined ? speedup(c.unit, s.sluiceBest.value, p) : undefined;
    const target = c.target ? `${c.target}${s.targetMet === undefined ? '' : s.targetMet ? ' ✅' : ' ❌'}` : '';
    lines.push(
      `| ${c.title} | ${fmtValue(c.unit, s.sftp)} | ${s.bestPeer ? `${fmtValue(c.unit, s.bestPeer.value)} (${shortLabel(s.bestPeer.row)})` : '—'} ` +
        `| ${fmtValue(c.unit, s.sluiceDefault)} | ${s.sluiceBest ? `${fmtValue(c.unit, s.sluiceBest.value)} (${shortLabel(s.sluiceBest.row)})` : '—'} ` +
        `| ${fmtRatio(ratio(s.sftp))} | ${fmtRatio(ratio(s.bestPeer?.value))} | ${target} |`,
    );
  }
  return lines.join('\n');
}

/** One throughput case with the connection set-up of its client subtracted (see {@link transferPhaseTable}). */
export interface TransferPhase {
  title: string;
  /** Median seconds of `connect + auth + get 1 byte` on the same link, per client id. */
  setup: { sftp?: number; sluice?: number };
  /** bytes / (median wall − set-up), MB/s; undefined when either is missing or the difference is not positive. */
  sftp?: number;
  sluice?: number;
  ratio?: number;
}

/**
 * Throughput of the transfer itself: a throughput case's median wall time minus the median of the connect case
 * (`connect-<link>`: start-up, connect, authenticate, open SFTP, get 1 byte) of the same client in the same run.
 * Both OpenSSH `sftp` and Sluice (defaults) pay their own set-up once per process; what remains is the time spent
 * moving the bytes. Returns one entry per MB/s case whose link has a connect case.
 */
export function transferPhases(cases: CaseResult[]): TransferPhase[] {
  const out: TransferPhase[] = [];
  for (const c of cases) {
    if (c.unit !== 'MB/s') continue;
    const connect = cases.find((x) => x.id === `connect-${c.link}`);
    if (!connect) continue;
    const secondsOf = (cr: CaseResult, client: string): number | undefined => {
      const row = cr.rows.find((r) => r.client === client);
      return row && rowStats(cr, row).medianSeconds;
    };
    const phase = (client: string): [number | undefined, number | undefined] => {
      const total = secondsOf(c, client);
      const setup = secondsOf(connect, client);
      if (total === undefined || setup === undefined || total - setup <= 0) return [setup, undefined];
      return [setup, c.bytes / 1e6 / (total - setup)];
    };
    const [sftpSetup, sftp] = phase('sftp');
    const [sluiceSetup, sluice] = phase('sluice');
    out.push({
      title: c.title,
      setup: { sftp: sftpSetup, sluice: sluiceSetup },
      sftp,
      sluice,
      ratio: sftp && sluice ? sluice / sftp : undefined,
    });
  }
  return out;
}

/** {@link transferPhases} as a Markdown table; empty string when no case qualifies. */
export function transferPhaseTable(cases: CaseResult[]): string {
  const phases = transferPhases(cases);
  if (!phases.length) return '';
  const lines = [
    '| case | OpenSSH sftp | Sluice, defaults | Sluice ÷ sftp | set-up subtracted (sftp / Sluice) |',
    '|---|---|---|---|---|',
    ...phases.map(
      (p) =>
        `| ${p.title} | ${fmtValue('MB/s', p.sftp)} | ${fmtValue('MB/s', p.sluice)} | ${fmtRatio(p.ratio)} ` +
        `| ${fmtValue('s', p.setup.sftp)} / ${fmtValue('s', p.setup.sluice)} |`,
    ),
  ];
  return lines.join('\n');
}

/** Every row of one case: median, runs, client CPU, largest RSS, and how Sluice (defaults / best) compares to it. */
export function detailTable(c: CaseResult): string {
  const s = summarize(c);
  const cpuHead = c.unit === 'MB/s' ? 'client CPU s/GB' : 'client CPU s';
  const lines = [
    `| client | median | ok runs | ${cpuHead} | max RSS | Sluice defaults ÷ this | Sluice best ÷ this | note |`,
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of c.rows) {
    const st = rowStats(c, r);
    const vs = (x: number | undefined): string =>
      x !== undefined && st.value !== undefined && r.family !== 'sluice' ? fmtRatio(speedup(c.unit, x, st.value)) : '';
    const errors = [...new Set(r.runs.filter((x) => !x.ok).map((x) => x.error ?? 'failed'))];
    const pools = [...new Set(r.runs.map((x) => x.pool).filter(Boolean))];
    const trips = [...new Set(r.runs.map((x) => x.roundTrips).filter((x) => x !== undefined))];
    const note = [
      pools.length ? `pool ${pools.join(', ')} (connections×channels)` : '',
      trips.length ? `${trips.join(' or ')} round trips to the first byte` : '',
      r.note,
      ...errors,
    ]
      .filter(Boolean)
      .join('; ')
      .replace(/\|/g, '/')
      .replace(/\s+/g, ' ')
      .slice(0, 300);
    lines.push(
      `| ${r.label} | ${fmtValue(c.unit, st.value)} | ${st.okRuns}/${st.totalRuns} | ${st.cpu === undefined ? '—' : st.cpu.toFixed(2)} ` +
        `| ${st.maxRssMB === undefined ? '—' : `${st.maxRssMB.toFixed(0)} MB`} | ${vs(s.sluiceDefault)} | ${vs(s.sluiceBest?.value)} | ${note} |`,
    );
  }
  return lines.join('\n');
}

/** Replaces the text between `<!-- bench:start -->` and `<!-- bench:end -->`; null when the markers are missing. */
export function replaceMarkedBlock(text: string, block: string): string | null {
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  const i = text.indexOf(start);
  const j = text.indexOf(end, i + start.length);
  if (i < 0 || j < 0) return null;
  return `${text.slice(0, i + start.length)}\n${block.trim()}\n${text.slice(j)}`;
}
