/**
 * CPU per thread from Linux `perf` (`perf record -e cpu-clock -g`), for `npm run bench -- --perf`.
 *
 * `node --cpu-prof` samples a thread's wall time: when the thread is preempted (2 cores shared by the client,
 * sshd and Toxiproxy), the time goes to whatever JavaScript was running. perf's cpu-clock event fires only while
 * a thread is on a CPU, so its samples count CPU time, per thread and per process, for Sluice and OpenSSH alike.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { caseClientDirs } from './profile';

/** Samples per CPU-second (`perf record -F`); each sample stands for 1/PERF_HZ s of CPU. */
export const PERF_HZ = 999;

/**
 * `cmd args` run under `perf record`, writing `file`.
 * @returns the command and arguments to spawn instead
 */
export function perfRecordCommand(file: string, cmd: string, args: string[]): { cmd: string; args: string[] } {
  return {
    cmd: 'perf',
    args: ['record', '-q', '-e', 'cpu-clock', '-F', String(PERF_HZ), '-g', '-o', file, '--', cmd, ...args],
  };
}

/** CPU seconds by thread kind, and for Sluice's connection worker threads by what the sampled code was. */
export interface PerfBreakdown {
  threads: Map<string, number>;
  workerLeaf: Map<string, number>;
}

const add = (m: Map<string, number>, k: string, v: number): void => {
  m.set(k, (m.get(k) ?? 0) + v);
};

const WORKER = 'node: connection worker threads';

/**
 * A thread kind that one sample's call chain (innermost frame first) proves, or undefined. Chains are often cut
 * short (OpenSSL's assembly keeps no frame pointer), so a thread's kind comes from any of its samples.
 */
function provenKind(frames: string[]): string | undefined {
  const has = (re: RegExp): boolean => frames.some((f) => re.test(f));
  if (has(/node::worker::Worker::Run\b|Worker::StartThread.*lambda/)) return WORKER;
  // uv__work_done runs on the loop's own thread; uv__fs_work and the pool's `worker` only on pool threads.
  if (has(/\buv__fs_work\b|^\S+ worker \(/)) return 'node: libuv pool (file I/O)';
  if (has(/PlatformWorkerThread|WorkerThreadsTaskRunner|DelayedTaskScheduler/))
    return 'node: V8 helper threads (GC, compiler)';
  return undefined;
}

/** What the innermost frame of a sample was. */
function leafKind(frame: string | undefined): string {
  if (!frame) return 'unknown';
  if (/^ffffffff|\[kernel\.kallsyms\]/.test(frame)) return 'kernel (socket, page cache, scheduling)';
  if (/aesni|gcm|ghash|gfmul|aes_|AES/.test(frame)) return 'AES-GCM';
  if (/memmove|memcpy|memset/.test(frame)) return 'memcpy';
  if (/\/node\)|perf-\d+\.map|\[unknown\]/.test(frame)) return 'V8 and JavaScript';
  return 'other user space';
}

/**
 * Adds the samples of one recording's `perf script -F comm,pid,tid,ip,sym,dso` output (one block per sample: a
 * `comm pid/tid` line, then its call chain innermost first, then a blank line) into `into`, at 1/PERF_HZ s per
 * sample. Processes other than Node count by name (`ssh`, `sftp`); Node's threads by kind.
 */
export function addPerfScript(text: string, into: PerfBreakdown): void {
  const perThread = new Map<
    string,
    { comm: string; main: boolean; kind?: string; samples: number; leaves: Map<string, number> }
  >();
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split('\n').filter((l) => l.trim() !== '');
    if (!lines.length) continue;
    const head = /^\s*(.+?)\s+(\d+)\/(\d+)\s*$/.exec(lines[0]);
    if (!head) continue;
    const [, comm, pid, tid] = head;
    const frames = lines.slice(1).map((l) => l.trim());
    let t = perThread.get(`${pid}/${tid}`);
    if (!t) perThread.set(`${pid}/${tid}`, (t = { comm, main: pid === tid, samples: 0, leaves: new Map() }));
    t.comm = comm; // the name after exec: a child starts under its parent's (perf-exec, time)
    t.samples++;
    t.kind ??= provenKind(frames);
    add(t.leaves, leafKind(frames[0]), 1);
  }
  for (const t of perThread.values()) {
    const kind = !t.comm.startsWith('node') ? t.comm : t.main ? 'node: main thread' : (t.kind ?? 'node: other threads');
    add(into.threads, kind, t.samples / PERF_HZ);
    if (kind === WORKER) for (const [k, n] of t.leaves) add(into.workerLeaf, k, n / PERF_HZ);
  }
}

/** Markdown lines for one client's breakdown, `runs` runs of `bytes` each (CPU-s per GiB when bytes ≥ 1 MiB). */
export function breakdownLines(b: PerfBreakdown, runs: number, bytes: number): string[] {
  const perGiB = bytes >= 1024 * 1024;
  const scale = (s: number): number => (perGiB ? s / runs / (bytes / 1024 ** 3) : s / runs);
  const unit = perGiB ? 'CPU-s per GiB' : 'CPU-s per run';
  const total = [...b.threads.values()].reduce((x, y) => x + y, 0);
  const rows = [...b.threads.entries()]
    .sort((x, y) => y[1] - x[1])
    .map(([k, v]) => `| ${k} | ${scale(v).toFixed(2)} |`);
  const out = [`| thread or process | ${unit} |`, '|---|---|', ...rows, `| **all** | **${scale(total).toFixed(2)}** |`];
  const workerTotal = [...b.workerLeaf.values()].reduce((x, y) => x + y, 0);
  if (workerTotal > 0) {
    const parts = [...b.workerLeaf.entries()]
      .sort((x, y) => y[1] - x[1])
      .map(([k, v]) => `${k} ${scale(v).toFixed(2)}`);
    out.push('', `Connection worker threads, by innermost frame: ${parts.join(', ')}.`);
  }
  return out;
}

/**
 * Summarizes every `<case>/<client>/*.data` under `root` with `perf script`.
 * @param bytesOf bytes one run of a case moves, by case id
 * @returns Markdown, or '' when there is nothing to summarize
 */
export function summarizePerf(root: string, bytesOf: (caseId: string) => number): string {
  const out: string[] = [];
  for (const { caseId, client, dir } of caseClientDirs(root)) {
    const files = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.data'))
      .map((f) => path.join(dir, f));
    if (!files.length) continue;
    const b: PerfBreakdown = { threads: new Map(), workerLeaf: new Map() };
    let runs = 0;
    for (const f of files) {
      try {
        const text = execFileSync('perf', ['script', '-i', f, '-F', 'comm,pid,tid,ip,sym,dso'], {
          encoding: 'utf8',
          maxBuffer: 1 << 30,
          stdio: ['ignore', 'pipe', 'ignore'],
        });
        addPerfScript(text, b);
        runs++;
      } catch {
        // an unreadable recording (client killed mid-write) is left out
      }
    }
    if (!runs) continue;
    out.push(
      `**${caseId} / ${client}** (${runs} run${runs > 1 ? 's' : ''})`,
      '',
      ...breakdownLines(b, runs, bytesOf(caseId)),
      '',
    );
  }
  return out.join('\n');
}
