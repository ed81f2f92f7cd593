/**
 * Does `--limit` hold? Runs this checkout's CLI with `--limit RATE --json` on a file of RATE × `--seconds` bytes
 * (10 s by default) against a private sshd, on loopback and through Toxiproxy with 25 ms each way, and prints per
 * run the job's average rate (report bytes ÷ elapsedMs) and the steady rate between the progress samples at 1 s
 * and the end, each as a deviation from the limit. Figures, not tests (issue #14: "within 5 % over 10 s").
 *
 * npm run build && node dist/bench/limit.js [--runs N] [--seconds S] [--cases
 * up-10M,down-10M,up-100M,down-100M,up-40M-rtt50,down-40M-rtt50]
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CIPHER, sluiceBin } from './clients';
import { installCleanup, median, writeRandomFile } from './measure';
import { startBenchServers, type BenchServers } from './servers';

const MiB = 1024 * 1024;

interface LimitCase {
  id: string;
  direction: 'up' | 'down';
  limitMiB: number;
  rtt: boolean;
}

const CASES: LimitCase[] = [10, 100]
  .flatMap((limitMiB) =>
    (['up', 'down'] as const).map((direction) => ({
      id: `${direction}-${limitMiB}M`,
      direction,
      limitMiB,
      rtt: false,
    })),
  )
  .concat(
    (['up', 'down'] as const).map((direction) => ({
      id: `${direction}-40M-rtt50`,
      direction,
      limitMiB: 40,
      rtt: true,
    })),
  );

/** One run's figures: bytes per second over the whole job, and between the sample nearest 1 s and the last. */
interface LimitRun {
  jobRate: number;
  steadyRate: number;
  elapsedMs: number;
}

function parseArgs(argv: string[]): { runs: number; seconds: number; cases: LimitCase[] } {
  let runs = 1;
  let seconds = 10;
  let ids = CASES.map((c) => c.id);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--runs') runs = Number(argv[++i]);
    else if (argv[i] === '--seconds') seconds = Number(argv[++i]);
    else if (argv[i] === '--cases') ids = argv[++i].split(',');
    else
      throw new Error(
        `unknown option ${argv[i]}\nusage: node dist/bench/limit.js [--runs N] [--seconds S] [--cases ${CASES.map((c) => c.id).join(',')}]`,
      );
  }
  const cases = ids.map(
    (id) =>
      CASES.find((c) => c.id === id) ??
      (() => {
        throw new Error(`unknown case ${id}`);
      })(),
  );
  return { runs, seconds, cases };
}

/** Runs the CLI once and reads its JSON events. @throws when it fails or prints no report */
function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<LimitRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [sluiceBin(), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const samples: Array<{ t: number; bytes: number }> = [];
    let report: { bytes: number; elapsedMs: number } | undefined;
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
        const e = JSON.parse(out.slice(0, nl)) as {
          type: string;
          t?: number;
          bytesDone?: number;
          bytes?: number;
          elapsedMs?: number;
        };
        out = out.slice(nl + 1);
        if (e.type === 'progress') samples.push({ t: e.t!, bytes: e.bytesDone! });
        if (e.type === 'report') report = { bytes: e.bytes!, elapsedMs: e.elapsedMs! };
      }
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
    });
    child.on('close', (code) => {
      if (code !== 0 || !report) {
        reject(new Error(`exit ${code}: ${err.slice(-500)}`));
        return;
      }
      const from = samples.find((s) => s.t >= 1000) ?? samples[0];
      const last = samples[samples.length - 1];
      const steadyRate = from && last && last.t > from.t ? ((last.bytes - from.bytes) * 1000) / (last.t - from.t) : NaN;
      resolve({ jobRate: (report.bytes * 1000) / report.elapsedMs, steadyRate, elapsedMs: report.elapsedMs });
    });
  });
}

const pct = (rate: number, limit: number) => `${rate >= limit ? '+' : ''}${((rate / limit - 1) * 100).toFixed(2)} %`;

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  installCleanup();
  const base = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'sluice-limit-'));
  let servers: BenchServers | undefined;
  try {
    servers = await startBenchServers(
      base,
      o.cases.some((c) => c.rtt),
    );
    const { sshd, rttPort } = servers;
    const env: NodeJS.ProcessEnv = { ...servers.env, SLUICE_KNOWN_HOSTS: servers.knownHosts };
    for (const c of o.cases) {
      const limit = c.limitMiB * MiB;
      const local = path.join(base, 'local.bin');
      const remote = path.join(sshd.root, 'remote.bin');
      await writeRandomFile(c.direction === 'up' ? local : remote, limit * o.seconds);
      const url = `sftp://${sshd.user}@127.0.0.1:${c.rtt ? rttPort : sshd.port}${remote}`;
      const flags = [
        '--batch',
        '--no-agent',
        '-i',
        sshd.clientKeyPath,
        '--json',
        '--cipher',
        CIPHER,
        '--limit',
        `${c.limitMiB}M`,
      ];
      const runs: LimitRun[] = [];
      for (let i = 0; i < o.runs; i++) {
        runs.push(
          await runCli(c.direction === 'up' ? ['put', ...flags, local, url] : ['get', ...flags, url, local], env),
        );
      }
      console.log(
        `${c.id} (${c.limitMiB} MiB/s, ${c.limitMiB * o.seconds} MiB): job ${pct(median(runs.map((r) => r.jobRate)), limit)}, steady ${pct(median(runs.map((r) => r.steadyRate)), limit)} (medians)` +
          runs
            .map(
              (r) =>
                `\n  ${(r.elapsedMs / 1000).toFixed(2)} s: job ${(r.jobRate / MiB).toFixed(2)} MiB/s (${pct(r.jobRate, limit)}), steady ${(r.steadyRate / MiB).toFixed(2)} MiB/s (${pct(r.steadyRate, limit)})`,
            )
            .join(''),
      );
      fs.rmSync(local, { force: true });
      fs.rmSync(remote, { force: true });
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
