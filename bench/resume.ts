/**
 * Resume after a kill (issue #14), as a user meets it: a full `sluice put` of a file on loopback, then the same put
 * SIGKILLed once its progress passes half the file, then the same command again (which resumes). Prints the seconds
 * of the full run and of the resumed run, their ratio, and the bytes the resumed run took from the killed one.
 * Figures, not a test.
 *
 *   npm run build && node dist/bench/resume.js [--mib 256] [--runs 3] [--get]
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startBenchServers } from './servers';
import { installCleanup, median, sha256File, writeRandomFile } from './measure';

const CLI = path.resolve(__dirname, '..', '..', 'bin', 'sluice.js');

interface Run { seconds: number; code: number | null; report?: { resumedBytes?: number } }

/** Runs the CLI with --json; `killAt` SIGKILLs it once a progress event reports that many bytes done. */
function sluice(args: string[], env: NodeJS.ProcessEnv, killAt?: number): Promise<Run> {
  const started = Date.now();
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  let buffered = '';
  let report: Run['report'];
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      const e = JSON.parse(line) as { type: string; bytesDone?: number; resumedBytes?: number };
      if (e.type === 'report') report = e;
      if (killAt !== undefined && e.type === 'progress' && (e.bytesDone ?? 0) >= killAt) child.kill('SIGKILL');
    }
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ seconds: (Date.now() - started) / 1000, code, report })));
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const mib = Number(argv[argv.indexOf('--mib') + 1]) || 256;
  const runs = Number(argv[argv.indexOf('--runs') + 1]) || 3;
  const get = argv.includes('--get');
  installCleanup();
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-resume-bench-'));
  const servers = await startBenchServers(base, false);
  try {
    const { sshd } = servers;
    const local = path.join(base, 'file.bin');
    const remote = path.join(sshd.root, 'file.bin');
    await writeRandomFile(get ? remote : local, mib * 1024 * 1024);
    const url = `sftp://${sshd.user}@127.0.0.1:${sshd.port}${remote}`;
    const target = get ? local : remote;
    const args = [get ? 'get' : 'put', '--json', '--batch', '--no-agent', '-i', sshd.clientKeyPath, ...(get ? [url, local] : [local, url])];
    const ratios: number[] = [];
    for (let i = 0; i < runs; i++) {
      const env = { ...servers.env, SLUICE_KNOWN_HOSTS: servers.knownHosts, SLUICE_HOME: path.join(base, `home-${i}`) };
      const full = await sluice(args, env);
      fs.rmSync(target);
      await sluice(args, env, (mib * 1024 * 1024) / 2);
      const resumed = await sluice(args, env);
      const same = (await sha256File(local)) === (await sha256File(remote));
      ratios.push(resumed.seconds / full.seconds);
      console.log(`run ${i + 1}: full ${full.seconds.toFixed(2)} s, resumed ${resumed.seconds.toFixed(2)} s = ${(resumed.seconds / full.seconds).toFixed(2)}×; `
        + `${((resumed.report?.resumedBytes ?? 0) / 1048576).toFixed(0)} MiB taken from the killed run; exit ${resumed.code}; identical ${same}`);
      fs.rmSync(target);
    }
    console.log(`median ratio ${median(ratios).toFixed(2)}× (${get ? 'get' : 'put'} of ${mib} MiB on loopback, killed at half)`);
  } finally {
    await servers.stop();
    fs.rmSync(base, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => { console.error((e as Error).message); process.exit(1); });
