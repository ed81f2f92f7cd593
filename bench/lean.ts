/**
 * Start-up and memory rows of the bench (issue #28 items 1 and 4): `sluice --version` wall time against `node -e 0`,
 * and the largest resident set of `sluice get -r` of 1,000 / 10,000 / 100,000 empty files on loopback with the growth
 * per file between them. Run by bench.ts (case ids `startup/…` and `files-memory/…` for `--only`), or alone:
 * `node dist/bench/lean.js [--quick] [--runs N]` (its own private sshd).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startSshd } from '../e2e/fixtures/sshd';
import { sluiceBin, type Endpoint } from './clients';
import { runTimed, type RunResult } from './measure';

/** `--version` ≤ 70 ms; growth per queued file < 1 KB (issue #28). */
export const LEAN_TARGETS = { versionSeconds: 0.07, bytesPerFile: 1000 };

/** File counts of the memory rows: full run, and `--quick`. */
export const FILE_COUNTS = { full: [1000, 10_000, 100_000], quick: [1000, 10_000] };

/** One measured command: median wall seconds and largest RSS (KiB) over its successful runs. */
export interface LeanRow {
  label: string;
  runs: number;
  wallSeconds?: number;
  maxRssKb?: number;
  error?: string;
}

function median(xs: number[]): number | undefined {
  if (!xs.length) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function rowOf(label: string, results: RunResult[]): LeanRow {
  const ok = results.filter((r) => r.ok);
  const rss = ok.map((r) => r.maxRssKb).filter((x): x is number => x !== undefined);
  const failed = results.find((r) => !r.ok);
  return {
    label,
    runs: ok.length,
    wallSeconds: median(ok.map((r) => r.wallSeconds)),
    maxRssKb: rss.length ? Math.max(...rss) : undefined,
    error: failed
      ? `exit ${failed.exitCode ?? failed.signal}: ${failed.outputTail.trim().split('\n').pop()}`
      : undefined,
  };
}

/**
 * `sluice --version` and `node -e 0`, in turn, `runs` times each (after one unrecorded run of each).
 * @param work a scratch folder for time(1)'s files
 */
export async function measureStartup(runs: number, work: string, env: NodeJS.ProcessEnv): Promise<LeanRow[]> {
  const commands: Array<[string, string[]]> = [
    ['sluice --version', [sluiceBin(), '--version']],
    ['node -e 0', ['-e', '0']],
  ];
  const results: RunResult[][] = commands.map(() => []);
  for (let i = -1; i < runs; i++) {
    for (const [k, [, args]] of commands.entries()) {
      const timeFile = path.join(work, `startup-${k}.time`);
      const r = await runTimed({ cmd: process.execPath, args, env, timeoutMs: 30_000, timeFile });
      if (i >= 0) results[k].push(r);
    }
  }
  return commands.map(([label], k) => rowOf(label, results[k]));
}

/** Writes `count` empty files into `dir` (flat: the memory under test is the queue's, not the walk's). */
export function writeEmptyFiles(dir: string, count: number): void {
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count; i++) fs.writeFileSync(path.join(dir, `f${i}`), '');
}

/**
 * `sluice get -r` of `count` empty files from `remoteDir/<count>` (written here when missing), `runs` times; each
 * run into a fresh local folder, checked for the number of files.
 */
export async function measureFiles(
  ep: Endpoint,
  remoteDir: string,
  counts: number[],
  runs: number,
  work: string,
  env: NodeJS.ProcessEnv,
): Promise<LeanRow[]> {
  const rows: LeanRow[] = [];
  for (const count of counts) {
    const src = path.join(remoteDir, `empty-${count}`);
    if (!fs.existsSync(src)) writeEmptyFiles(src, count);
    const results: RunResult[] = [];
    for (let i = 0; i < runs; i++) {
      const dest = path.join(work, `files-${count}-${i}`);
      fs.mkdirSync(dest);
      const args = [
        sluiceBin(),
        'get',
        '-r',
        '--batch',
        '--no-agent',
        '-i',
        ep.keyPath,
        '--no-progress',
        '--no-resume',
      ];
      args.push(`sftp://${ep.user}@${ep.host}:${ep.port}${src}`, `${dest}/`);
      const timeFile = path.join(work, `files-${count}.time`);
      const r = await runTimed({
        cmd: process.execPath,
        args,
        env: { ...env, SLUICE_KNOWN_HOSTS: ep.knownHostsPath },
        timeoutMs: 60_000 + count * 5,
        timeFile,
      });
      const arrived = fs.existsSync(dest) ? fs.readdirSync(path.join(dest, `empty-${count}`)).length : 0;
      results.push(arrived === count || !r.ok ? r : { ...r, ok: false, outputTail: `${arrived} of ${count} files` });
      fs.rmSync(dest, { recursive: true, force: true });
    }
    rows.push(rowOf(`get -r ${count.toLocaleString('en-US')} empty files`, results));
  }
  return rows;
}

const mib = (kb?: number): string => (kb === undefined ? '—' : `${(kb / 1024).toFixed(1)} MiB`);
const secs = (s?: number): string =>
  s === undefined ? '—' : s < 1 ? `${Math.round(s * 1000)} ms` : `${s.toFixed(2)} s`;
const met = (ok: boolean | undefined): string => (ok === undefined ? '—' : ok ? 'met' : 'not met');

/** The start-up table: median wall, max RSS, and the `--version` target. */
export function startupTable(rows: LeanRow[]): string {
  const lines = ['| command | median wall | over `node -e 0` | max RSS | runs | target |', '|---|---|---|---|---|---|'];
  const node = rows.find((r) => r.label === 'node -e 0')?.wallSeconds;
  for (const r of rows) {
    const over =
      r.wallSeconds !== undefined && node !== undefined && r.label !== 'node -e 0'
        ? `+${secs(r.wallSeconds - node)}`
        : '';
    const target = r.label.startsWith('sluice')
      ? `≤ ${LEAN_TARGETS.versionSeconds * 1000} ms: ${met(r.wallSeconds === undefined ? undefined : r.wallSeconds <= LEAN_TARGETS.versionSeconds)}`
      : '';
    lines.push(`| \`${r.label}\` | ${secs(r.wallSeconds)} | ${over} | ${mib(r.maxRssKb)} | ${r.runs} | ${target} |`);
  }
  return lines.join('\n');
}

/** The memory table: max RSS per file count, and the growth per file from the row before (bytes per file). */
export function filesTable(rows: LeanRow[], counts: number[]): string {
  const lines = [
    '| run | median wall | max RSS | growth per file since the row above | runs |',
    '|---|---|---|---|---|',
  ];
  rows.forEach((r, i) => {
    const prev = i > 0 ? rows[i - 1] : undefined;
    let growth = '';
    if (prev?.maxRssKb !== undefined && r.maxRssKb !== undefined) {
      const perFile = ((r.maxRssKb - prev.maxRssKb) * 1024) / (counts[i] - counts[i - 1]);
      growth = `${Math.round(perFile)} B (target < ${LEAN_TARGETS.bytesPerFile} B: ${met(perFile < LEAN_TARGETS.bytesPerFile)})`;
    }
    lines.push(
      `| ${r.label} | ${secs(r.wallSeconds)} | ${mib(r.maxRssKb)} | ${growth} | ${r.runs}${r.error ? ` (${r.error})` : ''} |`,
    );
  });
  return lines.join('\n');
}

/** What bench.ts passes: its options, the loopback endpoint, the served folder, a scratch folder and the env. */
export interface LeanContext {
  only?: RegExp;
  quick: boolean;
  reps: number;
  ep: Endpoint;
  serverRoot: string;
  work: string;
  env: NodeJS.ProcessEnv;
  log(line: string): void;
}

/**
 * The bench's "Start-up and memory" section: the `startup/sluice` and `files-memory/sluice` rows (each skipped when
 * `--only` does not match it). @returns markdown, '' when neither ran
 */
export async function leanSection(c: LeanContext): Promise<string> {
  const parts: string[] = [];
  if (!c.only || c.only.test('startup/sluice')) {
    c.log('startup: sluice --version and node -e 0, in turn');
    parts.push(
      `Start-up (wall time of the whole process):\n\n${startupTable(await measureStartup(10, c.work, c.env))}`,
    );
  }
  if (!c.only || c.only.test('files-memory/sluice')) {
    const counts = c.quick ? FILE_COUNTS.quick : FILE_COUNTS.full;
    c.log(`files-memory: get -r of ${counts.join(' / ')} empty files`);
    const rows = await measureFiles(c.ep, c.serverRoot, counts, Math.min(c.reps, 2), c.work, c.env);
    parts.push(
      `Memory per queued file (\`get -r\` of empty files, loopback; max RSS of the largest process):\n\n${filesTable(rows, counts)}`,
    );
  }
  return parts.join('\n\n');
}

/** Runs both measurements against its own sshd and prints the tables. */
async function main(argv: string[]): Promise<number> {
  const quick = argv.includes('--quick');
  const runsAt = argv.indexOf('--runs');
  const runs = runsAt >= 0 ? Number(argv[runsAt + 1]) : quick ? 3 : 10;
  const work = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : '/tmp', 'sluice-lean-'));
  const sshd = await startSshd();
  try {
    const knownHostsPath = path.join(work, 'known_hosts');
    fs.writeFileSync(knownHostsPath, `${sshd.knownHostsLine()}\n`);
    const ep: Endpoint = {
      host: '127.0.0.1',
      port: sshd.port,
      user: sshd.user,
      keyPath: sshd.clientKeyPath,
      knownHostsPath,
    };
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: work, SLUICE_HOME: path.join(work, 'data') };
    delete env.SSH_AUTH_SOCK;
    process.stdout.write(`${startupTable(await measureStartup(runs, work, env))}\n\n`);
    const counts = quick ? FILE_COUNTS.quick : FILE_COUNTS.full;
    const rows = await measureFiles(ep, sshd.root, counts, quick ? 1 : 2, work, env);
    process.stdout.write(`${filesTable(rows, counts)}\n`);
    return 0;
  } finally {
    await sshd.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(`lean bench failed: ${(e as Error).stack ?? e}\n`);
      process.exitCode = 1;
    },
  );
}
