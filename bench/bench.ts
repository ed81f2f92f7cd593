/**
 * `npm run bench`: Sluice against OpenSSH `sftp`, lftp and rclone, in one run on this machine, on loopback and at
 * 50 ms RTT (Toxiproxy, 25 ms latency each way). Figures, not tests. See bench/README.md.
 *
 * Usage: node dist/bench/bench.js [--quick] [--reps N] [--budget MIN] [--only REGEX] [--dir PATH] [--cpu-prof] [--perf]
 * [--no-readme]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startSshd, type SshdServer } from '../e2e/fixtures/sshd';
import { startToxiproxy, toxiproxyAvailable, type Toxiproxy } from '../e2e/fixtures/toxiproxy';
import { buildCases, FULL_SIZES, QUICK_SIZES, type BenchCase, type DataSet, type Link, type Sizes } from './cases';
import { installed, type Endpoint, type Job } from './clients';
import {
  haveTimeBin,
  installCleanup,
  runTimed,
  sha256File,
  treeManifest,
  writeRandomFile,
  writeRandomTree,
  type RunResult,
} from './measure';
import { countRoundTrips, parseTrace } from '../app/node/ssh/roundTrips';
import { leanSection } from './lean';
import { summarizeProfiles } from './profile';
import { summarizePerf } from './perf';
import {
  detailTable,
  replaceMarkedBlock,
  summaryTable,
  transferPhaseTable,
  type CaseResult,
  type RowResult,
  type RunRecord,
} from './report';

/** Command-line options of the bench. */
export interface BenchOptions {
  quick: boolean;
  /** The longer comparisons run after the table (EXTRA_BENCHES' keys). */
  with?: string[];
  reps: number;
  /** Only run `<case id>/<client id>` pairs matching this. */
  only?: RegExp;
  /**
   * Parent folder for the test data and the sshd's files (default: /dev/shm when it has room, else the OS temp dir).
   */
  dir?: string;
  cpuProf: boolean;
  /** Record Sluice (defaults) and sftp with `perf record` (bench/perf.ts); their figures then include perf's cost. */
  perf?: boolean;
  readme: boolean;
  /** Repetitions after the first stop being started once the run has taken this long. */
  budgetMinutes: number;
}

/** A client whose single run took longer than this is not repeated (sftp's 1000 small files take minutes). */
const SLOW_RUN_SECONDS = 30;
const REPO = path.resolve(__dirname, '..', '..');
const USAGE = `usage: npm run bench -- [--quick] [--reps N] [--budget MIN] [--only REGEX] [--dir PATH] [--cpu-prof] [--perf] [--no-readme]
  --quick       smaller sizes (256 MiB / 32 MiB / 200 files), 1 repetition: for trying it out
  --reps N      repetitions per client and case (default 3; medians are reported)
  --budget MIN  every case runs once; repetitions 2..N start only while the run is under MIN minutes (default 23)
  --only REGEX  run only <case>/<client> pairs matching, e.g. 'big-down|connect' or '/sluice'
  --dir PATH    where test data and the private sshd live (default /dev/shm if it has room, else $TMPDIR)
  --cpu-prof    run Sluice under node --cpu-prof and list where its CPU time goes
  --perf        run Sluice's defaults and plain sftp under perf record (cpu-clock) and list CPU per thread
  --no-readme   do not update the docs/benchmarks.md block between <!-- bench:start --> and <!-- bench:end -->
  --with LIST   afterwards, the longer comparisons too: file-ops (bench/fileOps.ts: rm -r and ls -R against sftp,
                rclone and lftp), sync (bench/syncBench.ts --scale 0.1: sluice sync against rclone sync, lftp mirror),
                adaptive (bench/adaptive.ts: the adaptive pool against every fixed --connections/--channels of a grid)`;

/** The comparisons `--with` adds, each its own script (they take minutes to hours: rclone's first sync alone ~10). */
const EXTRA_BENCHES: Record<string, string[]> = {
  'file-ops': ['fileOps.js', '--runs', '1'],
  sync: ['syncBench.js', '--scale', '0.1'],
  adaptive: ['adaptive.js'],
};

/** Runs the `--with` comparisons one after another, their output passed through; the first failure ends them. */
function runExtraBenches(names: string[]): number {
  for (const name of names) {
    const [script, ...args] = EXTRA_BENCHES[name];
    log(`\n## ${name} (node dist/bench/${script} ${args.join(' ')})\n`);
    const r = spawnSync(process.execPath, [path.join(__dirname, script), ...args], { stdio: 'inherit' });
    if (r.status !== 0) return r.status ?? 1;
  }
  return 0;
}

/** Parses argv (without node and script). @throws Error with the usage text on a bad option */
export function parseArgs(argv: string[]): BenchOptions {
  const o: BenchOptions = { quick: false, reps: 3, cpuProf: false, readme: true, budgetMinutes: 23 };
  let repsGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value\n${USAGE}`);
      return v;
    };
    if (a === '--quick') o.quick = true;
    else if (a === '--reps') {
      o.reps = Number(value());
      repsGiven = true;
      if (!Number.isInteger(o.reps) || o.reps < 1 || o.reps > 20) throw new Error(`--reps must be 1..20\n${USAGE}`);
    } else if (a === '--only') o.only = new RegExp(value());
    else if (a === '--dir') o.dir = path.resolve(value());
    else if (a === '--cpu-prof') o.cpuProf = true;
    else if (a === '--perf') o.perf = true;
    else if (a === '--budget') {
      o.budgetMinutes = Number(value());
      if (!(o.budgetMinutes > 0)) throw new Error(`--budget must be a number of minutes > 0\n${USAGE}`);
    } else if (a === '--no-readme') o.readme = false;
    else if (a === '--with') o.with = value().split(',');
    else if (a === '--help' || a === '-h') throw new Error(USAGE);
    else throw new Error(`unknown option ${a}\n${USAGE}`);
  }
  if (o.quick && !repsGiven) o.reps = 1;
  for (const w of o.with ?? [])
    if (!(w in EXTRA_BENCHES)) throw new Error(`--with takes ${Object.keys(EXTRA_BENCHES).join(', ')}\n${USAGE}`);
  return o;
}

function log(msg: string): void {
  process.stdout.write(`${msg}\n`);
}

/** First line a version command prints (stdout, or stderr for `ssh -V`), or 'not installed'. */
function version(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 10_000 });
  if (r.error) return (r.error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not installed' : 'unknown';
  return `${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n')[0] || 'unknown';
}

function pickBaseDir(o: BenchOptions, sizes: Sizes): string {
  if (o.dir) return o.dir;
  const need = 3 * sizes.big + 4 * sizes.mid + (512 << 20);
  try {
    const st = fs.statfsSync('/dev/shm');
    fs.accessSync('/dev/shm', fs.constants.W_OK);
    if (st.bavail * st.bsize > need) return '/dev/shm';
  } catch {
    /* no tmpfs: fall back */
  }
  return os.tmpdir();
}

/** Prepared sources: the same content locally (for uploads) and on the server (for downloads). */
interface DataSets {
  localDir: string;
  remoteDir: string;
  sha: Record<'big' | 'mid', string>;
  one: Buffer;
  treeDigest: string;
  sizes: Sizes;
}

async function prepareData(base: string, serverRoot: string, sizes: Sizes, needed: Set<DataSet>): Promise<DataSets> {
  const localDir = path.join(base, 'src');
  const remoteDir = path.join(serverRoot, 'src');
  fs.mkdirSync(localDir, { recursive: true });
  fs.mkdirSync(remoteDir, { recursive: true });
  const sha = { big: '', mid: '' };
  for (const name of ['big', 'mid'] as const) {
    if (!needed.has(name)) continue;
    const bytes = name === 'big' ? sizes.big : sizes.mid;
    log(`preparing ${name}.bin (${bytes / 1024 ** 2} MiB of random data)…`);
    sha[name] = await writeRandomFile(path.join(localDir, `${name}.bin`), bytes);
    // Same inode on the server side: both sources stay in the page cache once, and nothing writes to them.
    try {
      fs.linkSync(path.join(localDir, `${name}.bin`), path.join(remoteDir, `${name}.bin`));
    } catch {
      fs.copyFileSync(path.join(localDir, `${name}.bin`), path.join(remoteDir, `${name}.bin`));
    }
  }
  const one = Buffer.from([0x5a]);
  fs.writeFileSync(path.join(localDir, 'one.bin'), one);
  fs.writeFileSync(path.join(remoteDir, 'one.bin'), one);
  let treeDigest = '';
  if (needed.has('tree')) {
    log(`preparing tree/ (${sizes.files} × ${sizes.fileSize} B files)…`);
    treeDigest = writeRandomTree(path.join(localDir, 'tree'), sizes.files, sizes.fileSize).digest;
    fs.cpSync(path.join(localDir, 'tree'), path.join(remoteDir, 'tree'), { recursive: true });
    if (treeManifest(path.join(remoteDir, 'tree')).digest !== treeDigest) throw new Error('prepared trees differ');
  }
  return { localDir, remoteDir, sha, one, treeDigest, sizes };
}

const SOURCE_NAME: Record<DataSet, string> = { big: 'big.bin', mid: 'mid.bin', tree: 'tree', one: 'one.bin' };

/** Checks what a client left at `dest`; returns an error text, or undefined when it is complete and correct. */
async function verify(c: BenchCase, data: DataSets, dest: string): Promise<string | undefined> {
  if (!fs.existsSync(dest)) return `no result at ${dest}`;
  if (c.data === 'tree') {
    const m = treeManifest(dest);
    if (m.files !== c.files) return `${m.files} of ${c.files} files arrived`;
    return m.digest === data.treeDigest ? undefined : 'tree content differs from the source';
  }
  const size = fs.statSync(dest).size;
  if (size !== c.bytes) return `size ${size}, expected ${c.bytes}`;
  if (c.data === 'one') return fs.readFileSync(dest).equals(data.one) ? undefined : 'content differs';
  return (await sha256File(dest)) === data.sha[c.data] ? undefined : 'sha256 differs from the source';
}

function describeFailure(r: RunResult): string {
  const last = r.outputTail
    .split('\n')
    .filter((l) => l.trim() && !/^Command exited with/.test(l))
    .slice(-2)
    .join(' / ');
  if (r.timedOut) return `timed out after ${r.wallSeconds.toFixed(0)} s${last ? ` (last output: ${last})` : ''}`;
  return `exit ${r.exitCode ?? r.signal}${last ? `: ${last}` : ''}`;
}

interface Env {
  endpoints: Partial<Record<Link, Endpoint>>;
  data: DataSets;
  serverRoot: string;
  base: string;
  childEnv: NodeJS.ProcessEnv;
  sshd: SshdServer;
  /** Replaces the 50 ms proxy by a fresh one (new port) and points `endpoints.rtt50` at it. */
  freshProxy(): Promise<void>;
}

let runCounter = 0;

/** One run of one client: fresh destination folder, timed command, check, clean-up. */
async function runOnce(c: BenchCase, env: Env, variantIndex: number): Promise<RunRecord> {
  const ep = env.endpoints[c.link] as Endpoint;
  const n = ++runCounter;
  const destDir =
    c.direction === 'up' ? path.join(env.serverRoot, 'runs', String(n)) : path.join(env.base, 'runs', String(n));
  fs.mkdirSync(destDir, { recursive: true });
  const source = path.join(c.direction === 'up' ? env.data.localDir : env.data.remoteDir, SOURCE_NAME[c.data]);
  const job: Job = { direction: c.direction, shape: c.data === 'tree' ? 'tree' : 'file', source, destDir };
  const client = c.clients[variantIndex];
  const scratch = path.join(env.base, 'scratch');
  fs.mkdirSync(scratch, { recursive: true });
  try {
    const inv = client.invoke(job, ep, scratch);
    // The connect rows: Sluice's packet trace, for the round trips to the first byte (docs/round-trips.md).
    const trace = client.family === 'sluice' && c.data === 'one' ? path.join(scratch, `trace-${n}.txt`) : undefined;
    if (trace) inv.args.push('--trace', trace);
    const r = await runTimed({
      cmd: inv.cmd,
      args: inv.args,
      env: { ...env.childEnv, ...inv.env },
      timeoutMs: c.timeoutMs,
      timeFile: path.join(scratch, 'time.txt'),
      sampleGroup: client.leavesChildren,
    });
    const rec: RunRecord = {
      ok: false,
      seconds: r.wallSeconds,
      cpuUser: r.cpuUser,
      cpuSys: r.cpuSys,
      maxRssKb: r.maxRssKb,
    };
    const pool = /pool planned: (\d+) connections? × (\d+) channels?/.exec(r.outputTail);
    if (pool) rec.pool = `${pool[1]}×${pool[2]}`;
    if (trace && fs.existsSync(trace)) {
      rec.roundTrips = countRoundTrips(parseTrace(fs.readFileSync(trace, 'utf8')))?.count;
      fs.rmSync(trace, { force: true });
    }
    if (!r.ok) rec.error = describeFailure(r);
    else {
      const bad = await verify(c, env.data, path.join(destDir, SOURCE_NAME[c.data]));
      if (bad) rec.error = `check failed: ${bad}`;
      else rec.ok = true;
    }
    return rec;
  } finally {
    fs.rmSync(destDir, { recursive: true, force: true });
  }
}

function progressLine(c: BenchCase, row: RowResult, rep: number, rec: RunRecord): string {
  const cpu = rec.cpuUser === undefined ? '' : ` cpu ${(rec.cpuUser + (rec.cpuSys ?? 0)).toFixed(2)} s`;
  const rate = c.unit === 'MB/s' && rec.ok ? ` ${(c.bytes / 1e6 / rec.seconds).toFixed(1)} MB/s` : '';
  return `  ${c.id} ${row.client} #${rep + 1}: ${rec.seconds.toFixed(2)} s${rate}${cpu} ${rec.ok ? 'ok' : `FAILED (${rec.error})`}`;
}

/** A case's rows and what is left to run of them. */
interface CaseState {
  bench: BenchCase;
  result: CaseResult;
  rows: Array<{ i: number; row: RowResult; done: boolean; timeouts: number }>;
}

function initCase(c: BenchCase, o: BenchOptions): CaseState {
  const result: CaseResult = {
    id: c.id,
    title: c.title,
    link: c.link,
    unit: c.unit,
    bytes: c.bytes,
    files: c.files,
    target: c.target?.text,
    rows: [],
  };
  const rows = c.clients
    .map((cl, i) => ({ cl, i }))
    .filter(({ cl }) => !o.only || o.only.test(`${c.id}/${cl.id}`))
    .map(({ cl, i }) => ({
      i,
      done: false,
      timeouts: 0,
      row: { client: cl.id, family: cl.family, label: cl.label, runs: [] } as RowResult,
    }));
  result.rows = rows.map((r) => r.row);
  return { bench: c, result, rows };
}

/**
 * Runs repetition `rep` of every client still to run in one case, in table order (so drift hits all alike).
 * Repetitions after the first are skipped for a client whose first run would not fit before `deadline`.
 */
async function runRep(st: CaseState, rep: number, env: Env, o: BenchOptions, deadline: number): Promise<void> {
  const c = st.bench;
  let announced = false;
  for (const r of st.rows) {
    if (r.done) continue;
    if (rep > 0) {
      const first = r.row.runs[0]?.seconds ?? 0;
      if (Date.now() + first * 1000 > deadline) {
        r.done = true;
        r.row.note = `${r.row.runs.length} run(s): time budget of ${o.budgetMinutes} min used up`;
        continue;
      }
    }
    if (!announced) {
      announced = true;
      log(`\n== ${c.title} (${c.id}), repetition ${rep + 1}/${o.reps}`);
      // Each case starts clean: no server sessions left by a killed client, a new proxy for the 50 ms cases.
      const cut = await env.sshd.killSessions();
      if (cut) log(`(cut ${cut} server session(s) left over earlier)`);
      if (c.link === 'rtt50') await env.freshProxy();
    }
    const rec = await runOnce(c, env, r.i);
    r.row.runs.push(rec);
    log(progressLine(c, r.row, rep, rec));
    if (rec.error?.startsWith('timed out')) {
      r.timeouts++;
      // One retry (the machine is shared: a stall can be someone else's), then give up on this client here.
      if (r.timeouts >= 2) {
        r.done = true;
        r.row.note = 'not repeated after two timeouts';
      }
    } else if (rec.ok && rec.seconds > SLOW_RUN_SECONDS && rep + 1 < o.reps) {
      r.done = true;
      r.row.note = `not repeated (a run took over ${SLOW_RUN_SECONDS} s)`;
    }
    if (rep + 1 >= o.reps) r.done = true;
  }
}

function stamp(d: Date): string {
  return d
    .toISOString()
    .replace(/:\d\d\.\d+Z$/, 'Z')
    .replace(/:/g, '');
}

/** Facts about the machine and the tools, recorded with the results. */
function machineInfo(base: string): Record<string, string> {
  const cpu = os.cpus();
  let fsType = 'unknown';
  try {
    const mounts = fs
      .readFileSync('/proc/mounts', 'utf8')
      .split('\n')
      .map((l) => l.split(' '));
    const best = mounts
      .filter((m) => m[1] && (base === m[1] || base.startsWith(m[1].endsWith('/') ? m[1] : `${m[1]}/`)))
      .sort((a, b) => b[1].length - a[1].length)[0];
    if (best) fsType = `${best[2]} (${best[1]})`;
  } catch {
    /* not Linux */
  }
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['-C', REPO, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    /* no git */
  }
  return {
    cpu: `${cpu[0]?.model ?? 'unknown'} × ${cpu.length}`,
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    openssh: version('ssh', ['-V']),
    lftp: version('lftp', ['--version']),
    rclone: version('rclone', ['version']),
    dataDir: `${base} on ${fsType}`,
    sluiceCommit: commit,
    loadAverageAtStart: os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' '),
  };
}

const NOTES = [
  'MB/s = 10^6 bytes per second of wall time of the whole client process (Sluice figures include Node start-up); medians of the successful runs.',
  'Ratios are "times faster": Sluice MB/s ÷ peer MB/s, or peer seconds ÷ Sluice seconds; above 1 means Sluice was faster.',
  '"best" rows: the fastest of the Sluice settings tried in that case (the defaults should be chosen from these).',
  'Client CPU = user + sys of the client process and the children it waited for (GNU time), e.g. `sftp` plus its `ssh`; per 10^9 bytes for throughput cases.',
  '50 ms RTT = Toxiproxy with a 25 ms latency toxic on each direction; Toxiproxy itself tops out near 210 MB/s on this 2-core machine and competes with the clients for CPU.',
  'Every run is checked (size, SHA-256 for large files, a manifest of every file for the tree cases); a failed check or a timeout does not count.',
  'All clients use aes128-gcm@openssh.com and strict host-key checking against the same known_hosts.',
];

async function main(): Promise<number> {
  let o: BenchOptions;
  try {
    o = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    return 2;
  }
  installCleanup();
  const started = new Date();
  const sizes = o.quick ? QUICK_SIZES : FULL_SIZES;
  const resultsDir = path.join(REPO, 'bench', 'results');
  const runStamp = `${stamp(started)}${o.quick ? '-quick' : ''}${o.only ? '-partial' : ''}`;
  const profRoot = o.cpuProf ? path.join(resultsDir, `prof-${runStamp}`) : undefined;
  if (o.perf && !installed('perf')) {
    process.stderr.write('--perf needs Linux perf (apt-get install linux-perf)\n');
    return 2;
  }
  const perfRoot = o.perf ? path.join(resultsDir, `prof-${runStamp}-perf`) : undefined;
  const cases = buildCases(
    sizes,
    profRoot ? (id) => path.join(profRoot, id) : undefined,
    perfRoot ? (id) => path.join(perfRoot, id) : undefined,
  ).filter((c) => !o.only || c.clients.some((cl) => o.only?.test(`${c.id}/${cl.id}`)));
  const wantRtt = cases.some((c) => c.link === 'rtt50');
  const skipped: string[] = [];
  if (wantRtt && !toxiproxyAvailable()) skipped.push('50 ms RTT cases: toxiproxy-server not installed');
  const runnable = cases.filter((c) => c.link === 'loopback' || toxiproxyAvailable());
  if (!haveTimeBin()) log('note: /usr/bin/time not found (apt-get install time): CPU figures will be missing');

  const parent = pickBaseDir(o, sizes);
  const base = fs.mkdtempSync(path.join(parent, 'sluice-bench-'));
  const removeBase = (): void => {
    try {
      fs.rmSync(base, { recursive: true, force: true });
    } catch {
      /* best effort */
    }
  };
  process.on('exit', removeBase);
  // The fixture puts the sshd (and its served folder) under the OS temp dir: point it at the same place as our data.
  process.env.TMPDIR = base;
  const info = machineInfo(base);
  log(
    `Sluice bench ${o.quick ? '(quick) ' : ''}— ${o.reps} rep(s), data in ${info.dataDir}, ${info.cpu}, load ${info.loadAverageAtStart}`,
  );

  let sshd: SshdServer | undefined;
  let proxy: Toxiproxy | undefined;
  const results: Array<{ result: CaseResult; bench: BenchCase }> = [];
  let lean = '';
  try {
    sshd = await startSshd();
    const knownHosts = path.join(base, 'known_hosts');
    const endpoints: Partial<Record<Link, Endpoint>> = {};
    const endpoint = (port: number): Endpoint => ({
      host: '127.0.0.1',
      port,
      user: sshd!.user,
      keyPath: sshd!.clientKeyPath,
      knownHostsPath: knownHosts,
    });
    endpoints.loopback = endpoint(sshd.port);
    fs.writeFileSync(knownHosts, `${sshd.knownHostsLine()}\n`);
    if (runnable.some((c) => c.link === 'rtt50')) proxy = await startToxiproxy();
    /** A fresh proxy (new port, no connections left from earlier cases) with 25 ms latency each way. */
    const freshProxy = async (): Promise<void> => {
      if (!proxy || !sshd) return;
      const { port } = await proxy.createProxy('sshd', sshd.port);
      for (const stream of ['upstream', 'downstream'] as const) {
        await proxy.addToxic('sshd', { type: 'latency', stream, attributes: { latency: 25, jitter: 0 } });
      }
      endpoints.rtt50 = endpoint(port);
      fs.appendFileSync(
        knownHosts,
        `${sshd.knownHostsLine().replace(/^\[127\.0\.0\.1\]:\d+/, `[127.0.0.1]:${port}`)}\n`,
      );
    };
    const home = path.join(base, 'home');
    fs.mkdirSync(home);
    // No agent, no user config: every client authenticates with the fixture key only.
    const childEnv: NodeJS.ProcessEnv = { ...process.env, HOME: home };
    delete childEnv.SSH_AUTH_SOCK;
    const data = await prepareData(base, sshd.root, sizes, new Set(runnable.map((c) => c.data)));
    const env: Env = { endpoints, data, serverRoot: sshd.root, base, childEnv, sshd, freshProxy };
    // First one repetition of every case, so each case has a figure even if time runs out; then the others.
    const deadline = started.getTime() + o.budgetMinutes * 60_000;
    const states = runnable.map((c) => initCase(c, o)).filter((st) => st.rows.length);
    for (let rep = 0; rep < o.reps; rep++) {
      for (const st of states) {
        await runRep(st, rep, env, o, deadline);
      }
    }
    for (const st of states) {
      results.push({ result: st.result, bench: st.bench });
      log(`\n### ${st.bench.title}\n\n${detailTable(st.result)}`);
    }
    const leanWork = fs.mkdtempSync(path.join(base, 'lean-'));
    lean = await leanSection({
      ...o,
      ep: endpoints.loopback,
      serverRoot: sshd.root,
      work: leanWork,
      env: childEnv,
      log,
    });
  } finally {
    await proxy?.stop().catch(() => undefined);
    await sshd?.stop().catch(() => undefined);
    removeBase();
  }

  const finished = new Date();
  info.loadAverageAtEnd = os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  info.durationMinutes = ((finished.getTime() - started.getTime()) / 60_000).toFixed(1);
  const ran = results.filter((r) => r.result.rows.length);
  const phaseTable = transferPhaseTable(ran.map((r) => r.result));
  const phaseBlock = phaseTable
    ? `\n\n**Transfer phase** (each client's own connect + 1 B get median subtracted from its wall time):\n\n${phaseTable}`
    : '';
  const summary = `${ran.length ? summaryTable(ran) : ''}${phaseBlock}${lean ? `\n\n**Start-up and memory** (bench/lean.ts):\n\n${lean}` : ''}`;
  const profiles = profRoot ? summarizeProfiles(profRoot) : '';
  const perfSummary = perfRoot ? summarizePerf(perfRoot, (id) => cases.find((c) => c.id === id)?.bytes ?? 0) : '';
  const md = [
    `# Sluice benchmark, ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC${o.quick ? ' — QUICK mode (smaller sizes, not for publication)' : ''}`,
    '',
    `Command: \`npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}\`; ${o.reps} repetition(s); ${info.durationMinutes} min.`,
    '',
    ...Object.entries(info).map(([k, v]) => `- ${k}: ${v}`),
    ...skipped.map((s) => `- skipped: ${s}`),
    '',
    '## Summary',
    '',
    summary,
    '',
    ...NOTES.map((n) => `- ${n}`),
    '',
    '## Every client',
    '',
    ...ran.flatMap((r) => [`### ${r.result.title}`, '', detailTable(r.result), '']),
    ...(profiles ? ["## Where Sluice's CPU goes (node --cpu-prof, self time)", '', profiles, ''] : []),
    ...(perfSummary
      ? [
          "## CPU per thread and process (perf record -e cpu-clock; these runs include perf's own cost)",
          '',
          perfSummary,
          '',
        ]
      : []),
  ].join('\n');

  fs.mkdirSync(resultsDir, { recursive: true });
  const jsonPath = path.join(resultsDir, `${runStamp}.json`);
  fs.writeFileSync(
    jsonPath,
    `${JSON.stringify({ started: started.toISOString(), options: { ...o, only: o.only?.source }, machine: info, skipped, sizes, cases: ran.map((r) => r.result) }, null, 2)}\n`,
  );
  fs.writeFileSync(path.join(resultsDir, `${runStamp}.md`), md);
  const partial = o.quick || o.only !== undefined;
  const latest = path.join(resultsDir, partial ? 'latest-quick.md' : 'latest.md');
  fs.writeFileSync(latest, md);
  log(`\n## Summary\n\n${summary}\n`);
  if (profiles) log(`${profiles}\n`);
  if (perfSummary) log(`${perfSummary}\n`);
  log(`results: ${jsonPath}, ${path.relative(REPO, latest)}`);

  const readme = path.join(REPO, 'docs', 'benchmarks.md');
  if (o.readme && !partial && fs.existsSync(readme)) {
    const block = `${summary}\n\n${started.toISOString().slice(0, 10)}, ${info.cpu}, medians of ${o.reps}; details and notes: [bench/results/latest.md](../bench/results/latest.md).`;
    const updated = replaceMarkedBlock(fs.readFileSync(readme, 'utf8'), block);
    if (updated === null)
      log('docs/benchmarks.md has no <!-- bench:start --> / <!-- bench:end --> markers: not updated');
    else {
      fs.writeFileSync(readme, updated);
      log('docs/benchmarks.md benchmark table updated');
    }
  } else if (partial) {
    log('quick or --only run: docs/benchmarks.md and latest.md left alone (wrote latest-quick.md)');
  }
  return runExtraBenches(o.with ?? []);
}

if (require.main === module) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(`bench failed: ${(e as Error).stack ?? e}\n`);
      process.exitCode = 1;
    },
  );
}
