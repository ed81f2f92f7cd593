/**
 * The adaptive pool's benchmark (issue #28 item 6): Sluice with no pool flags against every fixed
 * `--connections C --channels M` of a small grid, alternated (each round starts one setting later), medians of wall
 * seconds. Target: no flags within 10 % of the best fixed setting. Figures, not tests.
 *
 *   npm run build && node dist/bench/adaptive.js [--runs N] [--cases slow,cap] [--mib N]
 *   (also `npm run bench -- --with adaptive`)
 *
 * Cases, each a `get` of one random file:
 * - `slow`: a scripted ssh2 server (e2e/fixtures/ssh2SftpServer.ts) serving each SFTP channel's READs one at a time,
 *   `serialIoMs` apart, so throughput grows with channels until a CPU is full; it refuses a connection's 11th session
 *   (OpenSSH's MaxSessions 10). On loopback Sluice plans 1 connection × 1 channel.
 * - `cap`: OpenSSH's sshd behind Toxiproxy, 25 ms each way, with a bandwidth toxic on the download (per TCP
 *   connection, as Toxiproxy applies toxics) at `capLow` KB/s that is raised to `capHigh` KB/s `raiseAfterMs` after
 *   the client starts.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startSsh2SftpServer, type Ssh2SftpServer } from '../e2e/fixtures/ssh2SftpServer';
import { startSshd, type SshdServer } from '../e2e/fixtures/sshd';
import { startToxiproxy, toxiproxyAvailable, type Toxiproxy } from '../e2e/fixtures/toxiproxy';
import { sluiceClient, type Endpoint } from './clients';
import { installCleanup, median, runTimed, writeRandomFile } from './measure';

const SLOW = { serialIoMs: 10, maxSessions: 10 };
const CAP = { latencyMs: 25, capLow: 8 * 1024, capHigh: 40 * 1024, raiseAfterMs: 3000 };

interface Setting {
  label: string;
  flags: string[];
}

const GRIDS: Record<string, Setting[]> = {
  slow: settings([1, 2], [1, 4, 10]),
  cap: settings([1, 2], [1, 10]),
};

function settings(connections: number[], channels: number[]): Setting[] {
  const grid = connections.flatMap((c) =>
    channels.map((m) => ({ label: `${c}×${m}`, flags: ['--connections', `${c}`, '--channels', `${m}`] })),
  );
  return [{ label: 'no flags', flags: [] }, ...grid];
}

/** A case's server: where the file is, the endpoint, and what to do when a run starts (the cap's schedule). */
interface CaseServer {
  root: string;
  endpoint: Endpoint;
  env: NodeJS.ProcessEnv;
  /** Called as a run starts; returns a function that undoes what it scheduled. */
  onRunStart(): Promise<() => void>;
  stop(): Promise<void>;
}

function parseArgs(argv: string[]): { runs: number; cases: string[]; mib: number } {
  const o = { runs: 3, cases: Object.keys(GRIDS), mib: 512 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--runs') o.runs = Number(argv[++i]);
    else if (argv[i] === '--cases') o.cases = argv[++i].split(',');
    else if (argv[i] === '--mib') o.mib = Number(argv[++i]);
    else
      throw new Error(
        `unknown option ${argv[i]}\nusage: node dist/bench/adaptive.js [--runs N] [--cases slow,cap] [--mib N]`,
      );
  }
  if (!Number.isInteger(o.runs) || o.runs < 1 || o.runs > 20) throw new Error('--runs takes 1 to 20');
  for (const c of o.cases) if (!(c in GRIDS)) throw new Error(`unknown case ${c} (${Object.keys(GRIDS).join(', ')})`);
  return o;
}

function clientEnv(base: string, knownHosts: string): NodeJS.ProcessEnv {
  const home = path.join(base, 'home');
  fs.mkdirSync(home, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, SLUICE_KNOWN_HOSTS: knownHosts };
  delete env.SSH_AUTH_SOCK;
  return env;
}

async function slowServer(base: string): Promise<CaseServer> {
  const server: Ssh2SftpServer = await startSsh2SftpServer({
    root: fs.mkdtempSync(path.join(base, 'root-')),
    overrides: { serialIoMs: SLOW.serialIoMs },
    maxSessions: SLOW.maxSessions,
  });
  const knownHosts = path.join(base, 'known_hosts_slow');
  fs.writeFileSync(knownHosts, `${server.knownHostsLine()}\n`);
  return {
    root: server.root,
    endpoint: endpoint(server.port, server.user, server.clientKeyPath, knownHosts),
    env: clientEnv(base, knownHosts),
    onRunStart: async () => () => undefined,
    stop: () => server.stop(),
  };
}

function endpoint(port: number, user: string, keyPath: string, knownHostsPath: string): Endpoint {
  return { host: '127.0.0.1', port, user, keyPath, knownHostsPath };
}

async function capServer(base: string): Promise<CaseServer> {
  const sshd: SshdServer = await startSshd();
  let toxi: Toxiproxy | undefined;
  try {
    toxi = await startToxiproxy();
    const { port } = await toxi.createProxy('sshd', sshd.port);
    for (const stream of ['upstream', 'downstream'] as const)
      await toxi.addToxic('sshd', { type: 'latency', stream, attributes: { latency: CAP.latencyMs, jitter: 0 } });
    await toxi.addToxic('sshd', { type: 'bandwidth', stream: 'downstream', attributes: { rate: CAP.capLow } });
    const knownHosts = path.join(base, 'known_hosts_cap');
    fs.writeFileSync(knownHosts, `${sshd.knownHostsLine(port)}\n`);
    const apiPort = toxi.apiPort;
    // Toxiproxy applies an updated toxic to the links already open (its ToxicCollection updates every link).
    const setRateOnce = (rate: number) =>
      fetch(`http://127.0.0.1:${apiPort}/proxies/sshd/toxics/bandwidth_downstream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ attributes: { rate } }),
      }).then((r) => {
        if (!r.ok) throw new Error(`toxiproxy: ${r.status}`);
      });
    // A loaded machine's Toxiproxy may miss a call: tried 3 times.
    const setRate = (rate: number): Promise<void> =>
      setRateOnce(rate)
        .catch(() => new Promise((r) => setTimeout(r, 300)).then(() => setRateOnce(rate)))
        .catch(() => new Promise((r) => setTimeout(r, 1000)).then(() => setRateOnce(rate)));
    const proxy = toxi;
    return {
      root: sshd.root,
      endpoint: endpoint(port, sshd.user, sshd.clientKeyPath, knownHosts),
      env: clientEnv(base, knownHosts),
      onRunStart: async () => {
        await setRate(CAP.capLow);
        const timer = setTimeout(() => void setRate(CAP.capHigh).catch(() => undefined), CAP.raiseAfterMs);
        return () => clearTimeout(timer);
      },
      stop: async () => {
        await proxy.stop();
        await sshd.stop();
      },
    };
  } catch (e) {
    await toxi?.stop();
    await sshd.stop();
    throw e;
  }
}

/** What `-v` said of the adaptive pool: its steps' lines, and the lanes of the last step kept. */
function adaptSummary(output: string): string {
  const lines = output.split('\n').filter((l) => l.includes('adaptive pool:'));
  const kept = lines.filter((l) => / kept$/.test(l)).map((l) => /(\d+) lanes? [\d.]+ MB\/s against/.exec(l)?.[1]);
  return lines.length
    ? `${lines.length} steps, ${kept.length ? `kept up to ${kept[kept.length - 1]} lanes` : 'none kept'}`
    : '';
}

async function runCase(
  id: string,
  server: CaseServer,
  o: { runs: number; mib: number },
  base: string,
): Promise<string> {
  const source = path.join(server.root, `${id}.bin`);
  await writeRandomFile(source, o.mib * 1024 * 1024);
  const grid = GRIDS[id];
  const secs = new Map<string, number[]>(grid.map((s) => [s.label, []]));
  const notes = new Map<string, string>();
  for (let round = 0; round < o.runs; round++) {
    for (let k = 0; k < grid.length; k++) {
      const s = grid[(k + round) % grid.length];
      const destDir = path.join(base, 'out');
      fs.rmSync(destDir, { recursive: true, force: true });
      fs.mkdirSync(destDir);
      const inv = sluiceClient(s.label, s.flags).invoke(
        { direction: 'down', shape: 'file', source, destDir },
        server.endpoint,
        base,
      );
      const undo = await server.onRunStart();
      const r = await runTimed({
        cmd: inv.cmd,
        args: inv.args,
        env: { ...server.env, ...inv.env },
        timeoutMs: 600_000,
        timeFile: path.join(base, 'time.txt'),
      }).finally(undo);
      if (!r.ok) throw new Error(`${id} ${s.label}: exit ${r.exitCode ?? r.signal}: ${r.outputTail.slice(-400)}`);
      if (fs.statSync(path.join(destDir, path.basename(source))).size !== o.mib * 1024 * 1024)
        throw new Error(`${id} ${s.label}: wrong size`);
      secs.get(s.label)!.push(r.wallSeconds);
      if (s.flags.length === 0) notes.set(`${round}`, adaptSummary(r.outputTail));
      console.log(
        `  ${id} round ${round + 1} ${s.label}: ${r.wallSeconds.toFixed(2)} s ${s.flags.length ? '' : adaptSummary(r.outputTail)}`,
      );
    }
  }
  fs.rmSync(source, { force: true });
  return table(id, o.mib, secs, notes);
}

function table(id: string, mib: number, secs: Map<string, number[]>, notes: Map<string, string>): string {
  const med = [...secs].map(([label, s]) => ({ label, s, m: median(s) }));
  const fixed = med.filter((x) => x.label !== 'no flags');
  const best = fixed.reduce((a, b) => (b.m < a.m ? b : a));
  const auto = med.find((x) => x.label === 'no flags')!;
  const rows = med.map(
    (x) =>
      `| ${x.label} | ${x.m.toFixed(2)} | ${((mib * 1048576) / 1e6 / x.m).toFixed(1)} | ${x.s.map((v) => v.toFixed(2)).join(' ')} |`,
  );
  const ratio = auto.m / best.m;
  return [
    `### ${id}: ${mib} MiB get, ${secs.get('no flags')!.length} alternated rounds`,
    '',
    '| setting | median s | MB/s | runs (s) |',
    '|---|---|---|---|',
    ...rows,
    '',
    `No flags: ${auto.m.toFixed(2)} s, best fixed ${best.label} ${best.m.toFixed(2)} s: ${ratio.toFixed(2)}× ` +
      `(${ratio <= 1.1 ? 'within' : 'NOT within'} 10 %). Adaptive steps per round: ${[...notes.values()].join('; ')}`,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  installCleanup();
  const base = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'sluice-adapt-bench-'));
  const out: string[] = [];
  try {
    for (const id of o.cases) {
      if (id === 'cap' && !toxiproxyAvailable()) {
        out.push(`### cap: not run (toxiproxy-server is not installed)\n`);
        continue;
      }
      const caseBase = fs.mkdtempSync(path.join(base, `${id}-`));
      const server = id === 'slow' ? await slowServer(caseBase) : await capServer(caseBase);
      try {
        out.push(await runCase(id, server, o, caseBase));
        console.log(`\n${out[out.length - 1]}`);
      } finally {
        await server.stop();
      }
    }
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  console.log(`\n${out.join('\n')}\nload average at the end: ${load}; ${os.availableParallelism()} cores`);
}

main().catch((e: unknown) => {
  console.error((e as Error).message);
  process.exit(1);
});
