/**
 * A/B of two Sluice builds, for the note a data-path change carries: this checkout's CLI (B) and another's (A, e.g.
 * a `git worktree` of the commit before, built), run alternately A, B, A, B… against one private sshd, on loopback
 * and through Toxiproxy with 25 ms each way. Medians and every run's seconds are printed. Figures, not tests.
 *
 *   git worktree add /tmp/before <commit> && (cd /tmp/before && npm ci && npm run build)
 *   npm run build && node dist/bench/ab.js --other /tmp/before --runs 6 --cases small-up,small-down,big-up,big-down
 *
 * `--quiet` runs both without `-v`; `--flags-a "…"` / `--flags-b "…"` add CLI options to one side (A may be this
 * checkout too, e.g. defaults against `--connections 2`). Cases: small-up / small-down (1000 × 4 KiB in 40 folders at
 * 50 ms RTT), flat-up (200 × 4 KiB in one folder at 50 ms), flat-down (2000 × 4 KiB in one folder at 50 ms: 20 READDIR
 * answers from OpenSSH), mid-up / mid-down (128 MiB at 50 ms), big-up / big-down (1 GiB on loopback).
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sluiceClient, type Endpoint, type Job } from './clients';
import { installCleanup, median, runTimed, writeRandomFile, writeRandomTree } from './measure';
import { startBenchServers, type BenchServers } from './servers';

/** `flat`: a tree of `bytes / 4096` files of 4 KiB in one folder (a drop of many files), not 1000 in 40 folders. */
interface AbCase {
  id: string;
  direction: 'up' | 'down';
  shape: 'file' | 'tree';
  rtt: boolean;
  bytes: number;
  flat?: boolean;
}

const CASES: AbCase[] = [
  { id: 'one-down', direction: 'down', shape: 'file', rtt: true, bytes: 1 },
  { id: 'small-up', direction: 'up', shape: 'tree', rtt: true, bytes: 1000 * 4096 },
  { id: 'small-down', direction: 'down', shape: 'tree', rtt: true, bytes: 1000 * 4096 },
  { id: 'flat-up', direction: 'up', shape: 'tree', rtt: true, bytes: 200 * 4096, flat: true },
  { id: 'flat-down', direction: 'down', shape: 'tree', rtt: true, bytes: 2000 * 4096, flat: true },
  { id: 'mid-up', direction: 'up', shape: 'file', rtt: true, bytes: 128 * 1024 ** 2 },
  { id: 'mid-down', direction: 'down', shape: 'file', rtt: true, bytes: 128 * 1024 ** 2 },
  { id: 'big-up', direction: 'up', shape: 'file', rtt: false, bytes: 1024 ** 3 },
  { id: 'big-down', direction: 'down', shape: 'file', rtt: false, bytes: 1024 ** 3 },
];

function parseArgs(argv: string[]): {
  other: string;
  runs: number;
  cases: AbCase[];
  quiet: boolean;
  flags: Record<'A' | 'B', string[]>;
} {
  let other = '';
  let quiet = false;
  const flags: Record<'A' | 'B', string[]> = { A: [], B: [] };
  let runs = 6;
  let ids = CASES.map((c) => c.id);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--other') other = argv[++i];
    else if (argv[i] === '--runs') runs = Number(argv[++i]);
    else if (argv[i] === '--cases') ids = argv[++i].split(',');
    else if (argv[i] === '--quiet') quiet = true;
    else if (argv[i] === '--flags-a') flags.A = argv[++i].split(' ').filter(Boolean);
    else if (argv[i] === '--flags-b') flags.B = argv[++i].split(' ').filter(Boolean);
    else
      throw new Error(
        `unknown option ${argv[i]}\nusage: node dist/bench/ab.js --other DIR [--runs N] [--cases ${CASES.map((c) => c.id).join(',')}]`,
      );
  }
  const bin = path.join(other, 'bin', 'sluice.js');
  if (!other || !fs.existsSync(bin)) throw new Error(`--other must name a built Sluice checkout (${bin} not found)`);
  if (!Number.isInteger(runs) || runs < 1 || runs > 50) throw new Error('--runs takes 1 to 50');
  const cases = ids.map(
    (id) =>
      CASES.find((c) => c.id === id) ??
      (() => {
        throw new Error(`unknown case ${id}`);
      })(),
  );
  return { other: path.resolve(other), runs, cases, quiet, flags };
}

/** One timed run of `bin` on `c`; throws when the CLI fails. @returns wall seconds */
async function runOnce(
  bin: string,
  c: AbCase,
  ep: Endpoint,
  source: string,
  destDir: string,
  env: NodeJS.ProcessEnv,
  scratch: string,
  quiet: boolean,
  flags: string[],
): Promise<{ wall: number; cpu: number; rssKb: number }> {
  fs.mkdirSync(destDir, { recursive: true });
  const job: Job = { direction: c.direction, shape: c.shape, source, destDir };
  const inv = sluiceClient('ab', flags).invoke(job, ep, scratch);
  inv.args[inv.args.indexOf(inv.args.find((a) => a.endsWith(`${path.sep}sluice.js`))!)] = bin;
  if (quiet) inv.args.splice(inv.args.indexOf('-v'), 1);
  try {
    const r = await runTimed({
      cmd: inv.cmd,
      args: inv.args,
      env: { ...env, ...inv.env },
      timeoutMs: 600_000,
      timeFile: path.join(scratch, 'time.txt'),
    });
    if (!r.ok) throw new Error(`${bin} ${c.id}: exit ${r.exitCode ?? r.signal}: ${r.outputTail.slice(-300)}`);
    if (process.env.AB_SHOW)
      console.log(
        `    ${bin}: ${r.wallSeconds.toFixed(2)} s wall; ${r.outputTail
          .trim()
          .split('\n')
          .filter((l) => /in [0-9.]+ s|connected/.test(l))
          .join(' | ')}`,
      );
    return { wall: r.wallSeconds, cpu: (r.cpuUser ?? 0) + (r.cpuSys ?? 0), rssKb: r.maxRssKb ?? 0 };
  } finally {
    fs.rmSync(destDir, { recursive: true, force: true });
  }
}

/** `count` random 4 KiB files in one folder. */
function writeFlatTree(dir: string, count: number): void {
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count; i++)
    fs.writeFileSync(path.join(dir, `f${String(i).padStart(4, '0')}.bin`), randomBytes(4096));
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  installCleanup();
  const base = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'sluice-ab-'));
  process.env.TMPDIR = base;
  let servers: BenchServers | undefined;
  try {
    servers = await startBenchServers(
      base,
      o.cases.some((c) => c.rtt),
    );
    const { sshd, knownHosts: kh, rttPort, env } = servers;
    const ep = (port: number): Endpoint => ({
      host: '127.0.0.1',
      port,
      user: sshd.user,
      keyPath: sshd.clientKeyPath,
      knownHostsPath: kh,
    });
    const bins = { A: o.other, B: path.resolve(__dirname, '..', '..') };
    console.log(
      `A = ${bins.A} ${o.flags.A.join(' ')}\nB = ${bins.B} ${o.flags.B.join(' ')}\n${o.runs} alternated runs per case`,
    );
    for (const c of o.cases) {
      const side = c.direction === 'up' ? base : sshd.root;
      const source = path.join(side, `src-${c.id}`);
      if (c.flat) writeFlatTree(source, c.bytes / 4096);
      else if (c.shape === 'tree') writeRandomTree(source, 1000, 4096);
      else await writeRandomFile(source, c.bytes);
      const secs: Record<'A' | 'B', number[]> = { A: [], B: [] };
      const cpu: Record<'A' | 'B', number[]> = { A: [], B: [] };
      const rss: Record<'A' | 'B', number[]> = { A: [], B: [] };
      for (let i = 0; i < o.runs; i++) {
        for (const who of (i % 2 ? ['B', 'A'] : ['A', 'B']) as Array<'A' | 'B'>) {
          const dest =
            c.direction === 'up' ? path.join(sshd.root, 'runs', `${who}${i}`) : path.join(base, 'runs', `${who}${i}`);
          const r = await runOnce(
            path.join(bins[who], 'bin', 'sluice.js'),
            c,
            ep(c.rtt ? rttPort : sshd.port),
            source,
            dest,
            env,
            base,
            o.quiet,
            o.flags[who],
          );
          secs[who].push(r.wall);
          cpu[who].push(r.cpu);
          rss[who].push(r.rssKb / 1024);
        }
      }
      const rate = (s: number) => (c.shape === 'file' ? ` (${(c.bytes / 1e6 / s).toFixed(1)} MB/s)` : '');
      console.log(
        `${c.id}: A median ${median(secs.A).toFixed(3)} s${rate(median(secs.A))}, B median ${median(secs.B).toFixed(3)} s${rate(median(secs.B))}` +
          `\n  A ${secs.A.map((s) => s.toFixed(2)).join(' ')}\n  B ${secs.B.map((s) => s.toFixed(2)).join(' ')}` +
          `\n  client CPU (user + sys) median: A ${median(cpu.A).toFixed(2)} s, B ${median(cpu.B).toFixed(2)} s` +
          `\n  max RSS median: A ${median(rss.A).toFixed(1)} MiB, B ${median(rss.B).toFixed(1)} MiB` +
          ` (largest A ${Math.max(...rss.A).toFixed(1)}, B ${Math.max(...rss.B).toFixed(1)})`,
      );
      fs.rmSync(source, { recursive: true, force: true });
    }
  } finally {
    await servers?.stop();
    fs.rmSync(base, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error((e as Error).message);
  process.exit(1);
});
