/**
 * `sluice sync` at 50 ms RTT against its peers (issue #27's benchmark; a figure, not a timed test). A tree of many
 * small files (0–64 KiB) in many folders is synced local → server by each client into its own folder:
 *   (a) the first sync into an empty folder (and `sluice put -r` of the same tree, the issue's yardstick),
 *   (b) a no-op sync right after,
 *   (c) a sync with deletions after 1 % of the files changed and 1 % were deleted;
 * `sluice sync --delete`, `rclone sync` (sftp backend, its defaults: 4 transfers, 8 checkers), `lftp mirror -R
 * --delete --parallel=8`. A run counts only when the server's tree then equals the source's (names and sizes).
 * Sluice's (b) is also checked to move no file. Peers not installed are reported as such.
 *
 *   npm run build && node dist/bench/syncBench.js [--scale 0.1] [--only sluice|rclone|lftp]
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { installed, sluiceBin } from './clients';
import { startBenchServers, type BenchServers } from './servers';

const CIPHER = 'aes128-gcm@openssh.com';

/** Writes `files` files of 0–64 KiB over `folders` folders (two levels) with a fixed seed; @returns their paths. */
function makeTree(root: string, folders: number, files: number): string[] {
  const top = Math.max(1, Math.round(folders / 10));
  const dirs: string[] = [];
  for (let i = 0; i < folders; i++) {
    const d = i < top ? path.join(root, `d${i}`) : path.join(root, `d${i % top}`, `s${i}`);
    fs.mkdirSync(d, { recursive: true });
    dirs.push(d);
  }
  let seed = 12345;
  const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const out: string[] = [];
  for (let i = 0; i < files; i++) {
    const p = path.join(dirs[i % dirs.length], `f${i}.bin`);
    fs.writeFileSync(p, Buffer.alloc(Math.floor(rnd() * 64 * 1024), i % 251));
    out.push(p);
  }
  return out;
}

/** Relative path → size of every file below `root`. */
function sizes(root: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const rel of fs.readdirSync(root, { recursive: true }) as string[]) {
    const st = fs.statSync(path.join(root, rel));
    if (st.isFile()) out.set(rel, st.size);
  }
  return out;
}

function sameTree(a: string, b: string): string | undefined {
  const x = sizes(a);
  const y = sizes(b);
  if (x.size !== y.size) return `${y.size} files on the server, ${x.size} in the source`;
  for (const [rel, n] of x) if (y.get(rel) !== n) return `${rel} differs`;
  return undefined;
}

interface Client {
  id: string;
  missing?: string;
  /** The command that syncs `src` onto the server's `dest` (a local path: the server's root is local). */
  sync(src: string, dest: string): { cmd: string; args: string[] };
}

function clients(s: BenchServers, only = ''): Client[] {
  return allClients(s).filter((c) => c.id.startsWith(only));
}

function allClients(s: BenchServers): Client[] {
  const port = s.rttPort;
  const user = s.sshd.user;
  const key = s.sshd.clientKeyPath;
  const ssh = ['-F', '/dev/null', '-i', key, '-o', 'IdentitiesOnly=yes', '-o', `UserKnownHostsFile=${s.knownHosts}`];
  ssh.push('-o', 'GlobalKnownHostsFile=/dev/null', '-o', 'StrictHostKeyChecking=yes', '-o', 'BatchMode=yes');
  ssh.push('-c', CIPHER);
  const rclone = `:sftp,host=127.0.0.1,port=${port},user=${user},key_file=${key},known_hosts_file=${s.knownHosts},ciphers=${CIPHER}:`;
  const sluice = (args: string[]) => ({
    cmd: process.execPath,
    args: [sluiceBin(), ...args, '--batch', '--no-agent', '-i', key, '--cipher', CIPHER],
  });
  const url = (p: string) => `sftp://${user}@127.0.0.1:${port}${p}`;
  return [
    { id: 'sluice sync --delete', sync: (src, dest) => sluice(['sync', '--delete', '--json', src, url(dest)]) },
    {
      id: 'rclone sync (sftp)',
      missing: installed('rclone') ? undefined : 'not installed',
      sync: (src, dest) => ({ cmd: 'rclone', args: ['--config', '/dev/null', 'sync', src, `${rclone}${dest}`] }),
    },
    {
      id: 'lftp mirror -R --delete --parallel=8',
      missing: installed('lftp') ? undefined : 'not installed',
      sync: (src, dest) => ({
        cmd: 'lftp',
        args: [
          '--norc',
          '-c',
          [
            `set sftp:connect-program "ssh -a -x ${ssh.join(' ')}"`,
            'set cmd:fail-exit yes',
            `open -u ${user}, sftp://127.0.0.1:${port}`,
            `mirror -R --delete --parallel=8 ${src} ${dest}`,
          ].join('; '),
        ],
      }),
    },
  ];
}

/** One timed run. @returns seconds (and stdout), or the failure */
function timed(cmd: { cmd: string; args: string[] }, env: NodeJS.ProcessEnv): { s: number; out: string } | string {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd.cmd, cmd.args, { env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30 });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  return r.status === 0 ? { s, out: String(r.stdout) } : `exit ${r.status}: ${String(r.stderr).slice(0, 300)}`;
}

async function main(): Promise<void> {
  const i = process.argv.indexOf('--scale');
  const scale = i > 0 ? Number(process.argv[i + 1]) : 1;
  const j = process.argv.indexOf('--only');
  const only = j > 0 ? process.argv[j + 1] : '';
  if (!(scale > 0 && scale <= 1)) throw new Error('--scale in (0, 1]');
  const files = Math.round(20_000 * scale);
  const folders = Math.max(2, Math.round(1000 * scale));
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-sync-'));
  process.env.TMPDIR = base;
  const s = await startBenchServers(base, true);
  const env = { ...s.env, SLUICE_KNOWN_HOSTS: s.knownHosts };
  try {
    const src = path.join(base, 'src');
    const all = makeTree(src, folders, files);
    const say = (line: string) => process.stdout.write(`${line}\n`);
    say(`sync of ${files} files (0–64 KiB) in ${folders} folders, 50 ms RTT, one run each (${os.cpus().length} cores)`);
    const rows = new Map<string, string[]>();
    const cell = (r: ReturnType<typeof timed>, dest: string): string =>
      typeof r === 'string' ? r : (sameTree(src, dest) ?? `${r.s.toFixed(2)} s`);
    const put = path.join(s.sshd.root, 'put-r');
    const p = timed(
      {
        cmd: process.execPath,
        args: [
          sluiceBin(),
          'put',
          '-r',
          '--batch',
          '--no-agent',
          '-i',
          s.sshd.clientKeyPath,
          '--cipher',
          CIPHER,
          src,
        ].concat([`sftp://${s.sshd.user}@127.0.0.1:${s.rttPort}${put}`]),
      },
      env,
    );
    say(`  sluice put -r (the yardstick of (a))                     ${cell(p, put)}`);
    for (const c of clients(s, only)) {
      if (c.missing) continue;
      const dest = path.join(s.sshd.root, `dest-${rows.size}`);
      const a = timed(c.sync(src, dest), env);
      const b = timed(c.sync(src, dest), env);
      const moved =
        typeof b !== 'string' && c.id.startsWith('sluice')
          ? b.out.split('\n').filter((l) => l.includes('"type":"file"')).length
          : undefined;
      rows.set(c.id, [cell(a, dest), cell(b, dest) + (moved !== undefined ? ` (${moved} files moved)` : '')]);
    }
    const step = Math.max(1, Math.round(100));
    for (let k = 0; k < all.length; k += step) fs.writeFileSync(all[k], Buffer.alloc(1000 + k, 7));
    for (let k = 50; k < all.length; k += step) fs.rmSync(all[k]);
    let n = 0;
    for (const c of clients(s, only)) {
      if (c.missing) {
        say(`  ${c.id}: ${c.missing}`);
        continue;
      }
      const dest = path.join(s.sshd.root, `dest-${n++}`);
      rows.get(c.id)!.push(cell(timed(c.sync(src, dest), env), dest));
    }
    say(`  ${'client'.padEnd(40)} ${'(a) first'.padEnd(12)} ${'(b) no-op'.padEnd(28)} (c) 1 % changed, 1 % deleted`);
    for (const [id, [a, b, c]] of rows) say(`  ${id.padEnd(40)} ${a.padEnd(12)} ${b.padEnd(28)} ${c}`);
  } finally {
    await s.stop();
    fs.rmSync(base, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
