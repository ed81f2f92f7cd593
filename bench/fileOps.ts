/**
 * The file commands at 50 ms RTT against their peers (issue #26 item 8's benchmark; a figure, not a timed test):
 *   rm -r of 1,000 files in 50 folders: `sluice rm -r`, OpenSSH `sftp -b` (a batch `rm` per file, then `rmdir` per
 *     folder: sftp has no recursive rm), `rclone purge`, `lftp rm -r`;
 *   ls -R --json of 20,000 entries in 1,000 folders: `sluice ls -R --json`, `rclone lsjson -R`, `lftp find`.
 * Each run gets a fresh copy of the tree on the server; a run counts only when it did the whole job (the tree gone,
 * or every entry listed). Peers not installed are reported as such.
 *
 *   npm run build && node dist/bench/fileOps.js [--scale 0.2] [--runs 3] [--only rm|ls]
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { installed, sluiceBin } from './clients';
import { median } from './measure';
import { startBenchServers, type BenchServers } from './servers';

interface Options {
  scale: number;
  runs: number;
  only?: string;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { scale: 1, runs: 3 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--scale') o.scale = Number(argv[++i]);
    else if (argv[i] === '--runs') o.runs = Number(argv[++i]);
    else if (argv[i] === '--only') o.only = argv[++i];
    else
      throw new Error(
        `unknown option ${argv[i]}\nusage: node dist/bench/fileOps.js [--scale F] [--runs N] [--only rm|ls]`,
      );
  }
  if (!(o.scale > 0 && o.scale <= 1) || !Number.isInteger(o.runs) || o.runs < 1)
    throw new Error('--scale in (0, 1], --runs ≥ 1');
  return o;
}

/** A tree of `folders` folders (two levels: 10 % at the top, the rest inside them) holding `files` files in all. */
function makeTree(root: string, folders: number, files: number): string[] {
  const top = Math.max(1, Math.round(folders / 10));
  const dirs: string[] = [];
  for (let i = 0; i < folders; i++) {
    const d = i < top ? path.join(root, `d${i}`) : path.join(root, `d${i % top}`, `s${i}`);
    fs.mkdirSync(d, { recursive: true });
    dirs.push(d);
  }
  for (let i = 0; i < files; i++) fs.writeFileSync(path.join(dirs[i % dirs.length], `f${i}.txt`), 'x');
  return dirs;
}

interface Client {
  id: string;
  /** Why it cannot run here, if so. */
  missing?: string;
  command(tree: string, scratch: string): { cmd: string; args: string[] };
}

const CIPHER = 'aes128-gcm@openssh.com';

function clients(s: BenchServers, kind: 'rm' | 'ls'): Client[] {
  const port = s.rttPort;
  const user = s.sshd.user;
  const key = s.sshd.clientKeyPath;
  const ssh = [
    '-F',
    '/dev/null',
    '-i',
    key,
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    `UserKnownHostsFile=${s.knownHosts}`,
    '-o',
    'GlobalKnownHostsFile=/dev/null',
    '-o',
    'StrictHostKeyChecking=yes',
    '-o',
    'BatchMode=yes',
    '-c',
    CIPHER,
  ];
  const url = (p: string) => `sftp://${user}@127.0.0.1:${port}${p}`;
  const rclone = `:sftp,host=127.0.0.1,port=${port},user=${user},key_file=${key},known_hosts_file=${s.knownHosts},ciphers=${CIPHER}:`;
  const lftp = (op: string) => [
    '--norc',
    '-c',
    [
      `set sftp:connect-program "ssh -a -x ${ssh.join(' ')}"`,
      'set cmd:fail-exit yes',
      `open -u ${user}, sftp://127.0.0.1:${port}`,
      op,
    ].join('; '),
  ];
  const sluice = (args: string[]) => ({
    cmd: process.execPath,
    args: [sluiceBin(), ...args, '--batch', '--no-agent', '-i', key, '--cipher', CIPHER],
  });
  const out: Client[] = [];
  if (kind === 'rm') {
    out.push({ id: 'sluice rm -r', command: (t) => sluice(['rm', '-r', url(t)]) });
    out.push({
      id: 'OpenSSH sftp (batch rm per file, rmdir per folder)',
      command: (t, scratch) => {
        const lines: string[] = [];
        const walk = (d: string): void => {
          for (const e of fs.readdirSync(d, { withFileTypes: true })) {
            if (e.isDirectory()) walk(path.join(d, e.name));
            else lines.push(`rm ${path.join(d, e.name)}`);
          }
          lines.push(`rmdir ${d}`);
        };
        walk(t);
        const batch = path.join(scratch, 'rm.batch');
        fs.writeFileSync(batch, `${lines.join('\n')}\n`);
        return { cmd: 'sftp', args: ['-b', batch, ...ssh, '-P', String(port), `${user}@127.0.0.1`] };
      },
    });
    out.push({
      id: 'rclone purge',
      missing: installed('rclone') ? undefined : 'not installed',
      command: (t) => ({ cmd: 'rclone', args: ['--config', '/dev/null', 'purge', `${rclone}${t}`] }),
    });
    out.push({
      id: 'lftp rm -r',
      missing: installed('lftp') ? undefined : 'not installed',
      command: (t) => ({ cmd: 'lftp', args: lftp(`rm -r ${t}`) }),
    });
  } else {
    out.push({ id: 'sluice ls -R --json', command: (t) => sluice(['ls', '-R', '-a', '--json', url(t)]) });
    out.push({
      id: 'rclone lsjson -R',
      missing: installed('rclone') ? undefined : 'not installed',
      command: (t) => ({ cmd: 'rclone', args: ['--config', '/dev/null', 'lsjson', '-R', `${rclone}${t}`] }),
    });
    out.push({
      id: 'lftp find',
      missing: installed('lftp') ? undefined : 'not installed',
      command: (t) => ({ cmd: 'lftp', args: lftp(`find ${t}`) }),
    });
  }
  return out;
}

/** One timed run; the check says whether it did the whole job. @returns seconds, or the failure */
function runOnce(
  c: Client,
  tree: string,
  scratch: string,
  env: NodeJS.ProcessEnv,
  check: (stdout: string) => string | undefined,
): number | string {
  const { cmd, args } = c.command(tree, scratch);
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30, timeout: 900_000 });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) return `exit ${r.status}: ${String(r.stderr).slice(0, 300)}`;
  return check(String(r.stdout)) ?? s;
}

function caseRows(s: BenchServers, kind: 'rm' | 'ls', o: Options, base: string): string[] {
  const folders = Math.max(2, Math.round((kind === 'rm' ? 50 : 1000) * o.scale));
  const entries = Math.max(folders + 1, Math.round((kind === 'rm' ? 1050 : 20000) * o.scale));
  const files = entries - folders;
  const title =
    kind === 'rm'
      ? `rm -r of ${files} files in ${folders} folders, 50 ms RTT`
      : `ls -R --json of ${entries} entries (${folders} folders), 50 ms RTT`;
  const listed = path.join(s.sshd.root, 'ls-tree');
  if (kind === 'ls') makeTree(listed, folders, files);
  const rows: Array<[string, number | string]> = [];
  for (const c of clients(s, kind)) {
    if (c.missing) {
      rows.push([c.id, c.missing]);
      continue;
    }
    const times: number[] = [];
    let failure: string | undefined;
    for (let i = 0; i < o.runs && !failure; i++) {
      const tree = kind === 'rm' ? path.join(s.sshd.root, `rm-${i}-${Date.now()}`) : listed;
      if (kind === 'rm') makeTree(tree, folders, files);
      const check =
        kind === 'rm'
          ? () => (fs.existsSync(tree) ? 'the tree is still there' : undefined)
          : (out: string) => {
              const n = out.split('\n').filter((l) => l.trim() && l.trim() !== '[' && l.trim() !== ']').length;
              return n >= entries ? undefined : `listed ${n} of ${entries} entries`;
            };
      const r = runOnce(c, tree, base, { ...s.env, SLUICE_KNOWN_HOSTS: s.knownHosts }, check);
      if (typeof r === 'string') failure = r;
      else times.push(r);
    }
    rows.push([c.id, failure ?? median(times)]);
  }
  const mine = rows[0][1];
  const lines = [`${title} (median of ${o.runs})`];
  for (const [id, v] of rows) {
    const ratio =
      typeof v === 'number' && typeof mine === 'number' && id !== rows[0][0]
        ? `  (${(v / mine).toFixed(1)}× Sluice's time)`
        : '';
    lines.push(`  ${id.padEnd(52)} ${typeof v === 'number' ? `${v.toFixed(2).padStart(8)} s${ratio}` : v}`);
  }
  return lines;
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-files-'));
  process.env.TMPDIR = base;
  const s = await startBenchServers(base, true);
  try {
    process.stdout.write(
      `file commands, scale ${o.scale} (${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(2)})\n`,
    );
    for (const kind of ['rm', 'ls'] as const) {
      if (o.only && o.only !== kind) continue;
      for (const line of caseRows(s, kind, o, base)) process.stdout.write(`${line}\n`);
    }
  } finally {
    await s.stop();
    fs.rmSync(base, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
