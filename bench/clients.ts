/**
 * The clients the benchmark runs, as command lines: Sluice's CLI, OpenSSH `sftp`, `lftp` and `rclone`.
 * Every client gets the same job shape: copy `source` into the existing folder `destDir`, so the result lands at
 * `destDir/<basename(source)>`; all authenticate with the same key and check the host key against the same
 * known_hosts file; aes128-gcm@openssh.com is forced wherever the client lets us.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { perfRecordCommand } from './perf';

export const CIPHER = 'aes128-gcm@openssh.com';

/** Where a client connects: the sshd directly (loopback) or the Toxiproxy port in front of it. */
export interface Endpoint {
  host: string;
  port: number;
  user: string;
  /** Unencrypted private key authorized on the server. */
  keyPath: string;
  /** known_hosts holding `[127.0.0.1]:PORT` lines for both the sshd and the proxy port. */
  knownHostsPath: string;
}

/** One copy: `up` reads a local `source` and writes remotely; `down` the reverse. Paths are absolute. */
export interface Job {
  direction: 'up' | 'down';
  shape: 'file' | 'tree';
  source: string;
  destDir: string;
}

/** A command line for one job. */
export interface Invocation {
  cmd: string;
  args: string[];
  /** Added to the bench's base environment. */
  env?: Record<string, string>;
}

export type Family = 'sluice' | 'openssh' | 'lftp' | 'rclone';

/** One client in one configuration: a row of the results table. */
export interface ClientVariant {
  /** Stable id used in JSON and `--only`, e.g. `sluice-c4`, `sftp`, `sftp-R256`. */
  id: string;
  family: Family;
  /** Human label with the options that matter, e.g. `Sluice --connections 4`. */
  label: string;
  /** The client exits without waiting for its children, so time(1) misses their CPU: sample /proc as well. */
  leavesChildren?: boolean;
  /** Builds the command; may write helper files (batch files) into `scratch`. */
  invoke(job: Job, ep: Endpoint, scratch: string): Invocation;
}

/** Rejects paths the clients' own quoting rules would mangle (the bench creates its paths, so this is a bug check). */
function plain(p: string): string {
  if (!/^[\w@%+=:,./-]+$/.test(p)) throw new Error(`bench path needs quoting, refusing: ${JSON.stringify(p)}`);
  return p;
}

function target(job: Job): string {
  return path.join(job.destDir, path.basename(job.source));
}

/** Absolute path of `bin/sluice.js`, from dist/bench/ or bench/. */
export function sluiceBin(): string {
  for (const rel of ['../../bin/sluice.js', '../bin/sluice.js']) {
    const p = path.resolve(__dirname, rel);
    if (fs.existsSync(p)) return p;
  }
  throw new Error('bin/sluice.js not found (run from the repository, after npm run build)');
}

/**
 * Sluice's CLI as a child process (so its figures include Node start-up).
 * @param extra settings, e.g. `['--connections', '4']`; empty for the defaults
 * @param cpuProfDir when set, runs `node --cpu-prof --cpu-prof-dir <dir>` (one profile per thread)
 */
export function sluiceClient(id: string, extra: string[], cpuProfDir?: string): ClientVariant {
  return {
    id,
    family: 'sluice',
    label: extra.length ? `Sluice ${extra.join(' ')}` : 'Sluice (defaults, pool sized from RTT)',
    invoke(job, ep) {
      const url = (p: string): string => `sftp://${ep.user}@${ep.host}:${ep.port}${plain(p)}`;
      const args = [
        ...(cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfDir] : []),
        sluiceBin(),
        job.direction === 'up' ? 'put' : 'get',
        ...(job.shape === 'tree' ? ['-r'] : []),
        // -v prints the pool it chose ("N connections × M channels"), which the report records.
        '--batch',
        '--no-agent',
        '-i',
        ep.keyPath,
        '--no-progress',
        '-v',
        '--cipher',
        CIPHER,
        ...extra,
      ];
      if (job.direction === 'up')
        args.push(plain(job.source), url(job.shape === 'tree' ? `${job.destDir}/` : target(job)));
      else args.push(url(job.source), job.shape === 'tree' ? `${plain(job.destDir)}/` : plain(target(job)));
      return { cmd: process.execPath, args, env: { SLUICE_KNOWN_HOSTS: ep.knownHostsPath } };
    },
  };
}

/**
 * `variant` run under `perf record` (bench/perf.ts), one recording per run in `dir`.
 */
export function withPerf(variant: ClientVariant, dir: string): ClientVariant {
  let runs = 0;
  return {
    ...variant,
    invoke(job, ep, scratch) {
      const inner = variant.invoke(job, ep, scratch);
      fs.mkdirSync(dir, { recursive: true });
      const wrapped = perfRecordCommand(path.join(dir, `run-${++runs}.data`), inner.cmd, inner.args);
      return { ...inner, ...wrapped };
    },
  };
}

/** ssh(1) options shared by `sftp` and lftp's connect program: no user config, no agent, strict host keys. */
function sshOptions(ep: Endpoint): string[] {
  return [
    '-F',
    '/dev/null',
    '-i',
    plain(ep.keyPath),
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    `UserKnownHostsFile=${plain(ep.knownHostsPath)}`,
    '-o',
    'GlobalKnownHostsFile=/dev/null',
    '-o',
    'StrictHostKeyChecking=yes',
    '-o',
    'BatchMode=yes',
    '-c',
    CIPHER,
  ];
}

/**
 * OpenSSH `sftp -b batchfile` (one connection, one file at a time, 64 × 32 KiB requests by default).
 * @param tuning e.g. `['-R', '256', '-B', '261120']`
 */
export function opensshClient(id: string, tuning: string[]): ClientVariant {
  return {
    id,
    family: 'openssh',
    label: tuning.length ? `OpenSSH sftp ${tuning.join(' ')}` : 'OpenSSH sftp',
    invoke(job, ep, scratch) {
      const verb = job.direction === 'up' ? 'put' : 'get';
      const line =
        job.shape === 'tree'
          ? `${verb} -r ${plain(job.source)} ${plain(job.destDir)}`
          : `${verb} ${plain(job.source)} ${plain(target(job))}`;
      const batch = path.join(scratch, `${id}.batch`);
      fs.writeFileSync(batch, `${line}\n`);
      return {
        cmd: 'sftp',
        args: ['-b', batch, ...sshOptions(ep), ...tuning, '-P', String(ep.port), `${ep.user}@${ep.host}`],
      };
    },
  };
}

/**
 * lftp over `ssh` (its sftp:// connect program): `pget -n 4` for downloads, `put` for uploads, `mirror --parallel=8`
 * for folders.
 */
export function lftpClient(): ClientVariant {
  return {
    id: 'lftp',
    family: 'lftp',
    label: 'lftp (pget -n 4, mirror --parallel=8)',
    leavesChildren: true,
    invoke(job, ep) {
      const src = plain(job.source);
      const dst = plain(target(job));
      const op =
        job.shape === 'tree'
          ? job.direction === 'up'
            ? `mirror -R --parallel=8 ${src} ${dst}`
            : `mirror --parallel=8 ${src} ${dst}`
          : job.direction === 'up'
            ? `put ${src} -o ${dst}`
            : `pget -n 4 ${src} -o ${dst}`;
      const script = [
        'set cmd:fail-exit yes',
        'set net:max-retries 3',
        'set net:timeout 60',
        'set xfer:clobber on',
        `set sftp:connect-program "ssh -a -x ${sshOptions(ep).join(' ')}"`,
        // "user," = empty password, so lftp never asks for one; ssh authenticates with the key.
        `open -u ${ep.user}, sftp://${ep.host}:${ep.port}`,
        op,
      ].join('; ');
      return { cmd: 'lftp', args: ['--norc', '-c', script] };
    },
  };
}

/**
 * rclone with an on-the-fly `:sftp,…:` remote: `--transfers 8 --multi-thread-streams 4` (downloads above 16 MiB split).
 */
export function rcloneClient(): ClientVariant {
  return {
    id: 'rclone',
    family: 'rclone',
    label: 'rclone (--transfers 8 --multi-thread-streams 4)',
    invoke(job, ep) {
      const remote =
        `:sftp,host=${ep.host},port=${ep.port},user=${ep.user},key_file=${plain(ep.keyPath)},` +
        `known_hosts_file=${plain(ep.knownHostsPath)},ciphers=${CIPHER}:`;
      const side = (p: string, remoteSide: boolean): string => (remoteSide ? `${remote}${plain(p)}` : plain(p));
      const up = job.direction === 'up';
      return {
        cmd: 'rclone',
        args: [
          '--config',
          '/dev/null',
          job.shape === 'tree' ? 'copy' : 'copyto',
          '--transfers',
          '8',
          '--multi-thread-streams',
          '4',
          '--multi-thread-cutoff',
          '16M',
          '--retries',
          '1',
          '--low-level-retries',
          '1',
          side(job.source, !up),
          side(target(job), up),
        ],
      };
    },
  };
}

/** True when `cmd` is on PATH (`command -v`). */
export function installed(cmd: string): boolean {
  const dirs = (process.env.PATH ?? '').split(':').filter(Boolean);
  return dirs.some((d) => {
    try {
      fs.accessSync(path.join(d, cmd), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
