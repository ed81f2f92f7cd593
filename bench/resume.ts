/**
 * Resume after a kill (issue #14, #24 item 11), as a user meets it: a full `sluice put` (or `get`) of a file, then the
 * same command SIGKILLed at half the full run's time (or once its progress passes half the file: `--kill-at bytes`),
 * then the same command again, which resumes. Prints the seconds of the full run and of the resumed run, their
 * ratio, the bytes the resumed run took from the killed one and what it moved again (done in the killed run's last
 * progress sample, not taken: the requests in flight at the kill come on top). `--rate` puts Toxiproxy with a
 * bandwidth cap (KB/s, each way) in front of the sshd. `--bins` alternates builds (each a bin/sluice.js) within every
 * repetition, for an A/B in one sitting. Figures, not a test.
 *
 *   npm run build && node dist/bench/resume.js [--mib 256] [--runs 3] [--get] [--rate 40000] [--kill-at time|bytes] \
 *     [--bins /path/to/before/bin/sluice.js,bin/sluice.js]
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startToxiproxy, type Toxiproxy } from '../e2e/fixtures/toxiproxy';
import { startBenchServers } from './servers';
import { installCleanup, median, sha256File, writeRandomFile } from './measure';

const CLI = path.resolve(__dirname, '..', '..', 'bin', 'sluice.js');
const MiB = 1024 * 1024;

interface Run {
  seconds: number;
  code: number | null;
  resumed: number;
  done: number;
}

interface Options {
  mib: number;
  runs: number;
  get: boolean;
  rateKbps: number;
  killAt: 'time' | 'bytes';
  bins: string[];
}

function parseArgs(argv: string[]): Options {
  const value = (name: string): string | undefined => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
  const killAt = value('--kill-at') ?? 'time';
  if (killAt !== 'time' && killAt !== 'bytes') throw new Error('--kill-at is time or bytes');
  return {
    mib: Number(value('--mib') ?? 256),
    runs: Number(value('--runs') ?? 3),
    get: argv.includes('--get'),
    rateKbps: Number(value('--rate') ?? 0),
    killAt,
    bins: (value('--bins') ?? CLI).split(',').map((b) => path.resolve(b)),
  };
}

/** Runs a CLI with --json; `kill` SIGKILLs it after that many ms, or once a progress event reports that many bytes. */
function sluice(
  bin: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  kill?: { ms?: number; bytes?: number },
): Promise<Run> {
  const started = Date.now();
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  const run: Run = { seconds: 0, code: null, resumed: 0, done: 0 };
  const timer = kill?.ms === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), kill.ms);
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      const e = JSON.parse(line) as { type: string; bytesDone?: number; resumedBytes?: number };
      if (e.type === 'progress') run.done = e.bytesDone ?? run.done;
      if (e.type === 'report') run.resumed = e.resumedBytes ?? 0;
      if (kill?.bytes !== undefined && e.type === 'progress' && (e.bytesDone ?? 0) >= kill.bytes) child.kill('SIGKILL');
    }
  });
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ ...run, code, seconds: (Date.now() - started) / 1000 });
    }),
  );
}

/** A proxy with a bandwidth cap of `rateKbps` each way in front of `port`; its port. */
async function cappedProxy(toxi: Toxiproxy, port: number, rateKbps: number): Promise<number> {
  const proxy = await toxi.createProxy('resume', port);
  for (const stream of ['upstream', 'downstream'] as const) {
    await toxi.addToxic('resume', { type: 'bandwidth', stream, attributes: { rate: rateKbps } });
  }
  return proxy.port;
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  installCleanup();
  const base = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'sluice-resume-bench-'));
  const servers = await startBenchServers(base, false);
  const toxi = o.rateKbps > 0 ? await startToxiproxy() : undefined;
  try {
    const { sshd } = servers;
    const port = toxi ? await cappedProxy(toxi, sshd.port, o.rateKbps) : sshd.port;
    if (toxi) fs.appendFileSync(servers.knownHosts, `${sshd.knownHostsLine(port)}\n`);
    const size = o.mib * MiB;
    const local = path.join(base, 'file.bin');
    const remote = path.join(sshd.root, 'file.bin');
    await writeRandomFile(o.get ? remote : local, size);
    const url = `sftp://${sshd.user}@127.0.0.1:${port}${remote}`;
    const target = o.get ? local : remote;
    const args = [
      o.get ? 'get' : 'put',
      '--json',
      '--batch',
      '--no-agent',
      '-i',
      sshd.clientKeyPath,
      ...(o.get ? [url, local] : [local, url]),
    ];
    const link = o.rateKbps ? ` at ${o.rateKbps} KB/s (Toxiproxy)` : ' on loopback';
    const how = `${o.get ? 'get' : 'put'} of ${o.mib} MiB${link}, killed at half its ${o.killAt}`;
    console.log(how);
    const ratios = new Map<string, number[]>(o.bins.map((b) => [b, []]));
    for (let i = 0; i < o.runs; i++) {
      for (const bin of o.bins) {
        const home = path.join(base, `home-${i}-${o.bins.indexOf(bin)}`);
        const env = { ...servers.env, SLUICE_KNOWN_HOSTS: servers.knownHosts, SLUICE_HOME: home };
        fs.rmSync(target, { force: true });
        const full = await sluice(bin, args, env);
        fs.rmSync(target);
        const kill = o.killAt === 'time' ? { ms: (full.seconds * 1000) / 2 } : { bytes: size / 2 };
        const killed = await sluice(bin, args, env, kill);
        const resumed = await sluice(bin, args, env);
        const same = (await sha256File(local)) === (await sha256File(remote));
        const ratio = resumed.seconds / full.seconds;
        ratios.get(bin)!.push(ratio);
        // Done in the killed run's last progress sample (acknowledged or written) but not taken: moved again.
        const again = killed.done - resumed.resumed;
        console.log(
          `run ${i + 1} ${bin}: full ${full.seconds.toFixed(2)} s, killed at ${killed.seconds.toFixed(2)} s ` +
            `(${(killed.done / MiB).toFixed(0)} MiB done), resumed ${resumed.seconds.toFixed(2)} s = ` +
            `${ratio.toFixed(2)}×; ${(resumed.resumed / MiB).toFixed(1)} MiB taken from the killed run, ` +
            `${(again / MiB).toFixed(1)} MiB of it not; ` +
            `exit ${resumed.code}; identical ${same}`,
        );
        fs.rmSync(target);
        fs.rmSync(home, { recursive: true, force: true });
      }
    }
    for (const [bin, r] of ratios) {
      console.log(`${bin}: median ratio ${median(r).toFixed(2)}× (${r.map((x) => x.toFixed(2)).join(', ')}; ${how})`);
    }
  } finally {
    await toxi?.stop();
    await servers.stop();
    fs.rmSync(base, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error((e as Error).message);
  process.exit(1);
});
