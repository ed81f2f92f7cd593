/**
 * A connection cut mid-transfer (issue #14), as a user meets it: a 256 MiB `sluice put` and `get` through Toxiproxy on
 * loopback, every connection cut once (the proxy disabled, so the reconnect is refused until it is enabled again) when
 * the progress passes 10 %, 50 % and 90 % of the file; the proxy comes back when the CLI announces its retry. Prints
 * per run whether it completed (exit 0, same SHA-256; and whether a temporary .part file was left), its wall time (an
 * uncut run first, for scale), and the bytes sent twice: the payload bytes the CLI moved over all its tries (the
 * report's movedBytes, which after a retry covers every try) minus the file's size. Those are acknowledged bytes; the
 * requests in flight at the cut (never answered) come on top, shown from the last progress sample before it. Figures,
 * not a test.
 *
 *   npm run build && node dist/bench/cut.js [--mib 256] [--rate 40000] [--at 10,50,90] [--directions put,get] [--log] \
 *     [--flags '--segment-size 4M']
 *
 * `--rate` is the Toxiproxy bandwidth cap in KB/s on both streams: progress samples come every 250 ms, so the cap sets
 * how close to its mark a cut lands (40000 KB/s: within ~10 MB). `--log` prints the CLI's log and retry lines as they
 * come; `--flags` adds CLI options. The CLI runs with `-v`: the table names each try's pool (connections × channels),
 * whose lanes each hold one segment in motion at the cut.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startToxiproxy, type Toxiproxy } from '../e2e/fixtures/toxiproxy';
import { CIPHER, sluiceBin } from './clients';
import { installCleanup, sha256File, writeRandomFile } from './measure';
import { startBenchServers } from './servers';

const MiB = 1024 * 1024;
const PROXY = 'cut';

interface Options {
  mib: number;
  rateKbps: number;
  at: number[];
  directions: Array<'put' | 'get'>;
  log: boolean;
  flags: string[];
}

/** One run's figures. */
interface CutRun {
  code: number | null;
  seconds: number;
  /** bytesDone of the progress sample that triggered the cut, and the bytes in flight it listed. */
  cutAt?: number;
  inFlightAtCut?: number;
  retries: number;
  /** Each try's pool, `connections×channels` (from the -v line). */
  pools: string[];
  /** Payload bytes moved over all tries. */
  moved: number;
  resumed: number;
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    mib: 256,
    rateKbps: 40_000,
    at: [10, 50, 90],
    directions: ['put', 'get'],
    log: false,
    flags: [],
  };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--log') {
      o.log = true;
      continue;
    }
    const v = argv[++i];
    if (argv[i - 1] === '--mib') o.mib = Number(v);
    else if (argv[i - 1] === '--rate') o.rateKbps = Number(v);
    else if (argv[i - 1] === '--at') o.at = v.split(',').map(Number);
    else if (argv[i - 1] === '--directions') o.directions = v.split(',') as Options['directions'];
    else if (argv[i - 1] === '--flags') o.flags = v.split(' ').filter(Boolean);
    else
      throw new Error(
        `unknown option ${argv[i - 1]}\nusage: node dist/bench/cut.js [--mib 256] [--rate 40000] [--at 10,50,90] [--directions put,get] [--log] [--flags '--segment-size 4M']`,
      );
  }
  return o;
}

interface CliEvent {
  type: string;
  message?: string;
  bytesDone?: number;
  attempt?: number;
  movedBytes?: number;
  resumedBytes?: number;
  connections?: Array<{ inFlightBytes: number }>;
}

/**
 * Runs the CLI with --json; when `cutAt` is set, disables the proxy once a progress sample passes that many bytes and
 * enables it again at the first retry announced.
 */
function runCut(
  args: string[],
  env: NodeJS.ProcessEnv,
  toxi: Toxiproxy,
  cutAt: number | undefined,
  log: boolean,
): Promise<CutRun> {
  const started = Date.now();
  const child = spawn(process.execPath, [sluiceBin(), ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const run: CutRun = { code: null, seconds: 0, retries: 0, pools: [], moved: 0, resumed: 0 };
  let proxy: Promise<unknown> = Promise.resolve();
  let buffered = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      const e = JSON.parse(line) as CliEvent;
      if (log && (e.type === 'log' || e.type === 'retry')) console.error(`  ${line}`);
      const pool = e.type === 'log' ? /pool planned: (\d+) connections? × (\d+) channel/.exec(e.message ?? '') : null;
      if (pool) run.pools.push(`${pool[1]}×${pool[2]}`);
      if (e.type === 'progress' && cutAt !== undefined && run.cutAt === undefined && (e.bytesDone ?? 0) >= cutAt) {
        run.cutAt = e.bytesDone;
        run.inFlightAtCut = (e.connections ?? []).reduce((n, c) => n + c.inFlightBytes, 0);
        proxy = proxy.then(() => toxi.setEnabled(PROXY, false));
      }
      if (e.type === 'retry') {
        run.retries++;
        if (e.attempt === 2) proxy = proxy.then(() => toxi.setEnabled(PROXY, true));
      }
      if (e.type === 'report') {
        run.moved = e.movedBytes ?? 0;
        run.resumed = e.resumedBytes ?? 0;
      }
    }
  });
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      void proxy
        .then(() => toxi.setEnabled(PROXY, true))
        .then(() => resolve({ ...run, code, seconds: (Date.now() - started) / 1000 }));
    }),
  );
}

const mib = (bytes: number | undefined): string => (bytes === undefined ? '—' : (bytes / MiB).toFixed(1));

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  installCleanup();
  const base = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'sluice-cut-'));
  const servers = await startBenchServers(base, false);
  const toxi = await startToxiproxy();
  try {
    const { sshd } = servers;
    const { port } = await toxi.createProxy(PROXY, sshd.port);
    for (const stream of ['upstream', 'downstream'] as const)
      await toxi.addToxic(PROXY, { type: 'bandwidth', stream, attributes: { rate: o.rateKbps } });
    fs.appendFileSync(servers.knownHosts, `${sshd.knownHostsLine(port)}\n`);
    const size = o.mib * MiB;
    const local = path.join(base, 'local.bin');
    const remote = path.join(sshd.root, 'remote.bin');
    console.log(
      `${o.mib} MiB through Toxiproxy on loopback (${o.rateKbps} KB/s each way), cut once by disabling the proxy${o.flags.length ? `; ${o.flags.join(' ')}` : ''}`,
    );
    console.log(
      '| direction | cut at | cut came at | completed | time | retries | pool per try | moved in all | resumed | sent twice | in flight at the cut |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|---|');
    for (const direction of o.directions) {
      const digest = await writeRandomFile(direction === 'put' ? local : remote, size);
      const url = `sftp://${sshd.user}@127.0.0.1:${port}${remote}`;
      const flags = [
        '--json',
        '-v',
        '--batch',
        '--no-agent',
        '-i',
        sshd.clientKeyPath,
        '--no-progress',
        '--cipher',
        CIPHER,
        ...o.flags,
      ];
      const args = direction === 'put' ? ['put', ...flags, local, url] : ['get', ...flags, url, local];
      for (const at of [undefined, ...o.at]) {
        fs.rmSync(direction === 'put' ? remote : local, { force: true });
        const home = fs.mkdtempSync(path.join(base, 'home-'));
        const env = { ...servers.env, SLUICE_KNOWN_HOSTS: servers.knownHosts, SLUICE_HOME: home };
        const r = await runCut(args, env, toxi, at === undefined ? undefined : (size * at) / 100, o.log);
        const same = r.code === 0 && (await sha256File(direction === 'put' ? remote : local)) === digest;
        const temps = fs
          .readdirSync(path.dirname(direction === 'put' ? remote : local))
          .filter((n) => n.endsWith('.part'));
        const done = same ? `yes${temps.length ? ` (${temps.length} .part left)` : ''}` : `no (exit ${r.code})`;
        console.log(
          `| ${direction} | ${at === undefined ? 'no cut' : `${at} %`} | ${mib(r.cutAt)} MiB | ${done} | ` +
            `${r.seconds.toFixed(1)} s | ${r.retries} | ${r.pools.join(', ')} | ${mib(r.moved)} MiB | ${mib(r.resumed)} MiB | ${mib(r.moved - size)} MiB | ${mib(r.inFlightAtCut)} MiB |`,
        );
        fs.rmSync(home, { recursive: true, force: true });
      }
      fs.rmSync(direction === 'put' ? local : remote, { force: true });
    }
  } finally {
    await toxi.stop();
    await servers.stop();
    fs.rmSync(base, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error((e as Error).message);
  process.exit(1);
});
