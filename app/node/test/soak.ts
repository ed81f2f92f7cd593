/**
 * The soak (issue #24, "Tests and a soak"): `npm run soak [-- --minutes N] [--seed S] [--jobs J]`, outside `npm test`.
 * A queue of mixed transfers both ways (half puts, half gets, 0 B to 16 MiB, mostly small) goes through one
 * `sluice queue run` process against a private sshd behind Toxiproxy, while the link is cut (the proxy disabled
 * 0.2–3 s), stalled (Toxiproxy's `timeout` toxic: no byte moves for 1–12 s, the connection stays open) and
 * given new latencies (0–80 ms) at seeded random times, under a bandwidth cap that makes the bytes last as long as
 * the faults.
 * The faults and the cap stop at half the time bound; the queue then has to finish.
 * Every 30 s the runner's RSS and open file descriptors are printed. At the end: every job done, every file's SHA-256
 * equal to its source's, no temporary file on either side, no lease left, and RSS and descriptors flat after the first
 * minute (the last sample within 15 % or 24 MiB, and 8 descriptors, of the one at a minute). Exit 0 when all hold.
 *
 * Bounded: `--minutes` (default 10) is the whole run's limit, the runner is killed when it passes it; `--jobs`
 * defaults to 300 per minute (3,000 for ten), at most 10,000. A runner that ends with failed jobs (a batch that used
 * up its retries) is counted, its jobs are queued again and a new runner starts (its samples start over).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { processUsage } from '../../../e2e/fixtures/platformTools';
import { QueueStore } from '../stores/queueStore';
import { seededRandom } from '../stores/testing/queueChild';
import {
  CLI_BIN,
  baseFlags,
  cliEnv,
  knownHostsLineFor,
  makeTempDir,
  removeDir,
  runCli,
  sha256File,
  startSshd,
  startToxiproxy,
  toxiproxyAvailable,
  urlOf,
  writeRandomFile,
  type SshdServer,
  type Toxiproxy,
} from './helpers';

const MiB = 1024 * 1024;
const PROXY = 'soak';
const SAMPLE_MS = 30_000;
/** The faults (and the bandwidth cap) run for this share of the time bound. */
const FAULTS_SHARE = 0.5;
const TEMP_NAME = /\.sluice-[0-9a-f]{8}\.(part|old)$/;

/** One sample of the runner: seconds since it started, resident memory (bytes), open descriptors. */
interface Sample {
  s: number;
  rss: number;
  fds: number;
}

/** Seconds since `started`, for the printed lines. */
function at(started: number): string {
  return `${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s`;
}

interface Options {
  minutes: number;
  seed: number;
  jobs: number;
}

function parseArgs(argv: string[]): Options {
  const value = (name: string): string | undefined => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
  const minutes = Number(value('--minutes') ?? 10);
  if (!(minutes > 0 && minutes <= 10)) throw new Error('--minutes is more than 0 and at most 10');
  const jobs = Math.min(10_000, Math.max(8, Math.round(Number(value('--jobs') ?? minutes * 300))));
  return { minutes, jobs, seed: Number(value('--seed') ?? Math.floor(Math.random() * 2 ** 31)) };
}

/** Sizes of the mix: many tiny and small files, some mid-sized, a few up to 16 MiB (several segments). */
function sizeMix(rnd: () => number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => {
    const r = rnd();
    if (i % 40 === 0) return 0;
    if (r < 0.45) return Math.floor(rnd() * 4096);
    if (r < 0.86) return 4096 + Math.floor(rnd() * 508 * 1024);
    if (r < 0.98) return 512 * 1024 + Math.floor(rnd() * 3.5 * MiB);
    return 4 * MiB + Math.floor(rnd() * 12 * MiB);
  });
}

interface Pair {
  source: string;
  target: string;
}
interface Batch {
  direction: 'put' | 'get';
  pairs: Pair[];
  destDir: string;
}

/** Eight batches, puts and gets in turn, with their source files written. */
function makeBatches(o: Options, work: string, sshd: SshdServer): Batch[] {
  const rnd = seededRandom(o.seed);
  const sizes = sizeMix(rnd, o.jobs);
  const per = Math.ceil(o.jobs / 8);
  return Array.from({ length: 8 }, (_, b) => {
    const direction = b % 2 === 0 ? ('put' as const) : ('get' as const);
    const srcDir = path.join(direction === 'put' ? work : sshd.root, `soak-src-${b}`);
    const destDir = path.join(direction === 'put' ? sshd.root : work, `soak-dest-${b}`);
    fs.mkdirSync(srcDir);
    fs.mkdirSync(destDir);
    const pairs = sizes.slice(b * per, (b + 1) * per).map((size, i) => {
      const name = `f${b}-${String(i).padStart(5, '0')}.bin`;
      writeRandomFile(path.join(srcDir, name), size);
      return { source: path.join(srcDir, name), target: path.join(destDir, name) };
    });
    return { direction, pairs, destDir };
  });
}

/** Seeded faults on the proxy until `until` (ms since the epoch) or `stop()`; each one printed. */
function faults(
  toxi: Toxiproxy,
  seed: number,
  started: number,
  until: number,
  tally: Record<string, number>,
): { stop(): Promise<void> } {
  const rnd = seededRandom(seed ^ 0x50a4);
  let stopped = false;
  let wake: (() => void) | undefined;
  const sleep = (ms: number) =>
    new Promise<void>((r) => {
      const t = setTimeout(r, ms);
      wake = () => {
        clearTimeout(t);
        r();
      };
    });
  const say = (m: string) => console.log(`${at(started)}  ${m}`);
  const loop = (async () => {
    while (!stopped && Date.now() < until) {
      await sleep(1000 + rnd() * 7000);
      if (stopped || Date.now() >= until) break;
      const r = rnd();
      if (r < 0.35) {
        const ms = Math.round(200 + rnd() * 2800);
        say(`cut: proxy disabled for ${ms} ms`);
        tally.cuts++;
        await toxi.setEnabled(PROXY, false);
        await sleep(ms);
        await toxi.setEnabled(PROXY, true);
      } else if (r < 0.6) {
        const ms = Math.round(1000 + rnd() * 11_000);
        say(`stall: no byte moves for ${ms} ms`);
        tally.stalls++;
        const stall = { type: 'timeout', stream: 'downstream', name: 'stall', attributes: { timeout: 0 } } as const;
        await toxi.addToxic(PROXY, stall);
        await sleep(ms);
        await toxi.removeToxic(PROXY, 'stall');
      } else {
        const ms = Math.round(rnd() * 40);
        say(`latency: ${2 * ms} ms round trip`);
        tally.latency++;
        for (const stream of ['upstream', 'downstream'] as const) {
          await toxi.removeToxic(PROXY, `latency_${stream}`).catch(() => undefined);
          const attributes = { latency: ms, jitter: Math.round(ms / 4) };
          await toxi.addToxic(PROXY, { type: 'latency', stream, attributes });
        }
      }
    }
    say('faults over: the bandwidth cap is lifted');
    await liftCap(toxi);
  })();
  return {
    stop: async () => {
      stopped = true;
      wake?.();
      await loop;
      await toxi.setEnabled(PROXY, true);
      await toxi.removeToxic(PROXY, 'stall').catch(() => undefined);
    },
  };
}

const CAP = { upstream: 'cap_upstream', downstream: 'cap_downstream' } as const;

/** A bandwidth cap both ways, KB/s: the queue then lasts through the faults instead of ending before them. */
async function capBandwidth(toxi: Toxiproxy, rateKbps: number): Promise<void> {
  for (const stream of ['upstream', 'downstream'] as const) {
    await toxi.addToxic(PROXY, { type: 'bandwidth', stream, name: CAP[stream], attributes: { rate: rateKbps } });
  }
}

async function liftCap(toxi: Toxiproxy): Promise<void> {
  for (const name of Object.values(CAP)) await toxi.removeToxic(PROXY, name).catch(() => undefined);
}

interface RunnerEnd {
  code: number | null;
  retries: number;
}

/** Starts `sluice queue run --json`, printing its RSS and descriptors every 30 s into `samples`. */
function startRunner(env: NodeJS.ProcessEnv, deadline: number, started: number, samples: Sample[]): Promise<RunnerEnd> {
  const stdio = ['ignore', 'pipe', 'pipe'] as const;
  const child = spawn(process.execPath, [CLI_BIN, 'queue', 'run', '--json'], { env, stdio: [...stdio] });
  const runnerStart = Date.now();
  const end: RunnerEnd = { code: null, retries: 0 };
  let partial = '';
  let bytesDone = 0;
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    const lines = (partial + d).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const e = JSON.parse(line) as { type: string; bytesDone?: number; message?: string };
      if (e.type === 'retry') {
        end.retries++;
        console.log(`${at(started)}  runner: ${e.message ?? 'retry'}`);
      }
      if (e.type === 'progress') bytesDone = e.bytesDone ?? bytesDone;
    }
  });
  let stderrTail = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderrTail = (stderrTail + d).slice(-4000);
  });
  const sampler = setInterval(() => {
    const u = processUsage(child.pid!);
    if (!u) return;
    const s = Math.round((Date.now() - runnerStart) / 1000);
    samples.push({ s, ...u });
    console.log(
      `${at(started)}  runner at ${s} s: RSS ${(u.rss / MiB).toFixed(1)} MiB, ${u.fds} open descriptors, ` +
        `${jobsDone(env.SLUICE_HOME!)} jobs done, batch at ${(bytesDone / MiB).toFixed(0)} MiB, ` +
        `${end.retries} retries`,
    );
  }, SAMPLE_MS);
  const killer = setTimeout(
    () => {
      console.log('time bound reached: the runner is killed');
      child.kill('SIGKILL');
    },
    Math.max(0, deadline - Date.now()),
  );
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearInterval(sampler);
      clearTimeout(killer);
      const lastWords = stderrTail.split('\n').slice(-8).join('\n');
      if (code !== 0) console.log(`runner exited ${code}; its last words:\n${lastWords}`);
      resolve({ ...end, code });
    }),
  );
}

/** Jobs the queue holds as done. */
function jobsDone(home: string): number {
  const store = QueueStore.open({ home });
  try {
    let n = 0;
    for (let page = store.jobs.list({ limit: 10_000 }); ; page = store.jobs.list({ limit: 10_000, after: page.next })) {
      n += page.jobs.filter((j) => j.state === 'done').length;
      if (!page.next) return n;
    }
  } finally {
    store.close();
  }
}

/** Whether the samples after the first minute are flat; a line saying so. */
function flatness(samples: Sample[]): { ok: boolean; line: string } {
  const after = samples.filter((x) => x.s >= 55);
  if (after.length < 2) {
    const line = `RSS and descriptors: too few samples after the first minute to judge (${samples.length} in all)`;
    return { ok: true, line };
  }
  const [first, last] = [after[0], after[after.length - 1]];
  const rssOk = last.rss - first.rss <= Math.max(0.15 * first.rss, 24 * MiB);
  const fdsOk = last.fds - first.fds <= 8;
  const maxRss = Math.max(...after.map((x) => x.rss));
  return {
    ok: rssOk && fdsOk,
    line:
      `RSS ${(first.rss / MiB).toFixed(1)} → ${(last.rss / MiB).toFixed(1)} MiB ` +
      `(max ${(maxRss / MiB).toFixed(1)}) ` +
      `from ${first.s} s to ${last.s} s: ` +
      `${rssOk ? 'flat' : 'GROWING'}; descriptors ${first.fds} → ${last.fds}: ${fdsOk ? 'flat' : 'GROWING'}`,
  };
}

/** Every check of the end; the failures, each a line. */
async function finalChecks(batches: Batch[], home: string): Promise<string[]> {
  const failures: string[] = [];
  const store = QueueStore.open({ home });
  try {
    const states: Record<string, number> = {};
    for (let page = store.jobs.list({ limit: 10_000 }); ; page = store.jobs.list({ limit: 10_000, after: page.next })) {
      for (const j of page.jobs) states[j.state] = (states[j.state] ?? 0) + 1;
      if (!page.next) break;
    }
    console.log(`queue: ${JSON.stringify(states)}`);
    const total = batches.reduce((n, b) => n + b.pairs.length, 0);
    const notDone = total - (states.done ?? 0);
    if (notDone) failures.push(`${notDone} of ${total} jobs not done: ${JSON.stringify(states)}`);
    const leases = (store.q.db.prepare('SELECT COUNT(*) AS n FROM leases').get() as { n: number }).n;
    if (leases) failures.push(`${leases} leases left`);
  } finally {
    store.close();
  }
  let differ = 0;
  for (const b of batches) {
    for (const p of b.pairs) {
      const same = fs.existsSync(p.target) && (await sha256File(p.target)) === (await sha256File(p.source));
      const why = fs.existsSync(p.target) ? 'SHA-256 differs from its source' : 'missing';
      if (!same && differ++ < 10) failures.push(`${p.target}: ${why}`);
    }
    const temps = fs.readdirSync(b.destDir).filter((n) => TEMP_NAME.test(n));
    const named = temps.slice(0, 3).join(', ');
    if (temps.length) failures.push(`${temps.length} temporary files left in ${b.destDir} (${b.direction}): ${named}`);
  }
  if (differ > 10) failures.push(`… ${differ} files differ or are missing in all`);
  return failures;
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  if (!toxiproxyAvailable()) {
    console.log('soak not run: toxiproxy-server is not installed (/usr/local/bin/toxiproxy-server)');
    return;
  }
  const started = Date.now();
  const deadline = started + o.minutes * 60_000;
  console.log(`soak: ${o.jobs} jobs, at most ${o.minutes} min, seed ${o.seed} (--seed ${o.seed} replays them)`);
  const sshd = await startSshd();
  const toxi = await startToxiproxy();
  const work = await makeTempDir('sluice-soak-');
  let code = 1;
  try {
    const { port } = await toxi.createProxy(PROXY, sshd.port);
    const knownHosts = path.join(work, 'known_hosts');
    fs.writeFileSync(knownHosts, `${knownHostsLineFor(port, 'ssh-ed25519', sshd.hostKeyBlobs()[0])}\n`);
    const home = path.join(work, 'home');
    const env = cliEnv({ knownHosts, env: { SLUICE_HOME: home } });
    const batches = makeBatches(o, work, sshd);
    const bytes = batches.flatMap((b) => b.pairs).reduce((n, p) => n + fs.statSync(p.source).size, 0);
    // At this rate the bytes alone take two thirds of the faults' time (half the bound); the cap goes with the faults,
    // and the other half of the bound is left for the retries' waits (up to a minute each) and the rest of the queue.
    const rateKbps = Math.max(100, Math.ceil(bytes / ((2 / 3) * FAULTS_SHARE * o.minutes * 60) / 1000));
    await capBandwidth(toxi, rateKbps);
    console.log(`${(bytes / MiB).toFixed(0)} MiB in all; the link is capped at ${rateKbps} KB/s each way (faults)`);
    const via = { ...sshd, port };
    // A stall is noticed after 5 missed keepalives of 1 s; a batch tries up to 30 times.
    const flags = [...baseFlags(sshd), '--keepalive', '1000', '--keepalive-count', '5', '--retries', '30'];
    // Added at once: eight processes writing queue.db together (its busy timeout serialises them).
    await Promise.all(
      batches.map(async (b) => {
        const sources = b.pairs.map((p) => (b.direction === 'put' ? p.source : urlOf(via, p.source)));
        const dest = b.direction === 'put' ? urlOf(via, `${b.destDir}/`) : `${b.destDir}/`;
        const r = await runCli(['queue', 'add', b.direction, ...flags, ...sources, dest], {
          knownHosts,
          env: { SLUICE_HOME: home },
        });
        if (r.code !== 0) throw new Error(`queue add failed (${r.code}): ${r.stderr}`);
      }),
    );
    const faultsEnd = FAULTS_SHARE * o.minutes * 60;
    console.log(`${at(started)}  ${o.jobs} jobs queued in 8 batches; the faults run until ${faultsEnd.toFixed(0)} s`);
    const tally = { cuts: 0, stalls: 0, latency: 0 };
    const chaos = faults(toxi, o.seed, started, started + FAULTS_SHARE * o.minutes * 60_000, tally);
    const samples: Sample[] = [];
    let runners = 0;
    let end: RunnerEnd;
    do {
      runners++;
      samples.length = 0;
      end = await startRunner(env, deadline, started, samples);
      if (end.code !== 0 && Date.now() < deadline) {
        console.log(`runner ${runners} ended with exit ${end.code}: its failed jobs are queued again`);
        await runCli(['queue', 'retry', '--all'], { knownHosts, env: { SLUICE_HOME: home } });
      }
    } while (end.code !== 0 && Date.now() < deadline);
    await chaos.stop();
    console.log(
      `${at(started)}  runner ${runners} exited ${end.code}; faults: ${tally.cuts} cuts, ` +
        `${tally.stalls} stalls, ${tally.latency} latency changes; ${end.retries} retries in the last runner`,
    );
    const failures = await finalChecks(batches, home);
    const flat = flatness(samples);
    console.log(flat.line);
    if (!flat.ok) failures.push(flat.line);
    if (runners > 1) console.log(`note: ${runners} runners were needed (a batch used up its retries)`);
    for (const f of failures) console.log(`FAIL ${f}`);
    const secs = ((Date.now() - started) / 1000).toFixed(0);
    console.log(
      failures.length
        ? `soak FAILED (${failures.length} findings), seed ${o.seed}`
        : `soak passed in ${secs} s, seed ${o.seed}`,
    );
    code = failures.length ? 1 : 0;
  } finally {
    await toxi.stop();
    await sshd.stop();
    await removeDir(work);
  }
  process.exitCode = code;
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.stack : e);
  process.exit(1);
});
