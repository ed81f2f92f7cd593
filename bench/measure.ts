/**
 * Measuring one client run: wall time, client CPU time (GNU time(1), which counts waited-for children such as
 * `sftp`'s `ssh`), a hard timeout that kills the whole process group, and result checks (size, SHA-256, tree manifest).
 */
import { spawn } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** GNU time(1) (Debian package `time`); without it CPU figures are reported as unavailable. */
export const TIME_BIN = '/usr/bin/time';

/** A command to run, with its limits. */
export interface RunSpec {
  cmd: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Killed (SIGKILL to its process group) after this many ms and reported as timed out. */
  timeoutMs: number;
  /** Where time(1) writes its figures (overwritten). */
  timeFile: string;
  /**
   * Also sample the CPU time of every descendant from /proc (every 500 ms) and report the larger of that and
   * time(1)'s figure, and kill descendants outside the process group at the end: for clients that exit without
   * waiting for their children (lftp's ssh, on its own pty).
   */
  sampleGroup?: boolean;
}

/** What one run measured. CPU fields are seconds over the client process and the children it waited for. */
export interface RunResult {
  ok: boolean;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  wallSeconds: number;
  cpuUser?: number;
  cpuSys?: number;
  /** Largest resident set of any one process in the tree, KiB (time(1) `%M`). */
  maxRssKb?: number;
  /** Last part of the client's stdout+stderr, for error messages. */
  outputTail: string;
}

const live = new Set<number>();
let hooked = false;

/** Kills the process groups still running when the bench exits or is interrupted (only groups it started). */
export function installCleanup(): void {
  if (hooked) return;
  hooked = true;
  const killAll = (): void => {
    for (const pgid of live) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  };
  process.on('exit', killAll);
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      killAll();
      process.exit(130);
    });
  }
}

/** True when GNU time(1) is installed. */
export function haveTimeBin(): boolean {
  return fs.existsSync(TIME_BIN);
}

/**
 * Runs `spec` in its own process group under time(1) (when installed) and waits for it, at most `timeoutMs`.
 * Never throws for a failing client: the result says what happened.
 */
export function runTimed(spec: RunSpec): Promise<RunResult> {
  installCleanup();
  const timed = haveTimeBin();
  try {
    fs.rmSync(spec.timeFile, { force: true });
  } catch {
    /* fresh file below */
  }
  const cmd = timed ? TIME_BIN : spec.cmd;
  const args = timed ? ['-o', spec.timeFile, '-f', '%U %S %e %M', spec.cmd, ...spec.args] : spec.args;
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const child = spawn(cmd, args, { env: spec.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let tail = '';
    const keep = (d: Buffer): void => {
      tail = (tail + d.toString()).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const pgid = child.pid;
    if (pgid !== undefined) live.add(pgid);
    const sampler = spec.sampleGroup && pgid !== undefined ? new DescendantCpuSampler(pgid) : undefined;
    const killTree = (): void => {
      if (pgid !== undefined) {
        try {
          process.kill(-pgid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      if (sampler) {
        sampler.sample();
        for (const pid of sampler.alive()) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            /* gone */
          }
        }
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killTree();
    }, spec.timeoutMs);
    let finished = false;
    const finish = (exitCode: number | null, signal: string | null, extra = ''): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      sampler?.stop();
      // Leftovers of a finished client (e.g. an ssh that outlived lftp) must not run into the next measurement.
      killTree();
      if (pgid !== undefined) live.delete(pgid);
      const result: RunResult = {
        ok: exitCode === 0 && !timedOut,
        exitCode,
        signal,
        timedOut,
        wallSeconds,
        outputTail: (tail + extra).trim(),
      };
      if (timed && !timedOut) Object.assign(result, readTimeFile(spec.timeFile));
      if (sampler && !timedOut) {
        const g = sampler.totals();
        if (g.user + g.sys > (result.cpuUser ?? 0) + (result.cpuSys ?? 0)) {
          result.cpuUser = g.user;
          result.cpuSys = g.sys;
        }
      }
      resolve(result);
    };
    child.once('error', (e) => finish(null, null, `\nspawn failed: ${e.message}`));
    child.once('close', (code, signal) => finish(code, signal));
  });
}

/** Linux USER_HZ: /proc/<pid>/stat reports CPU time in these ticks. */
const CLOCK_TICKS = 100;

/**
 * Periodically records user/sys ticks of every descendant of `root` (last value per PID), following parent links
 * rather than process groups: lftp runs ssh on a pty, so ssh sits in its own session and process group.
 * A PID once seen stays tracked (by PID and start time) after its parent exits and it is re-parented.
 */
class DescendantCpuSampler {
  private readonly seen = new Map<number, { start: string; user: number; sys: number }>();
  private timer: NodeJS.Timeout | undefined;
  private samples = 0;

  constructor(private readonly root: number) {
    this.schedule();
  }

  /** Every 100 ms for the first 2 s (short runs: connect tests), then every 500 ms. */
  private schedule(): void {
    this.timer = setTimeout(
      () => {
        this.sample();
        this.samples++;
        if (this.timer) this.schedule();
      },
      this.samples < 20 ? 100 : 500,
    );
  }

  sample(): void {
    let entries: string[];
    try {
      entries = fs.readdirSync('/proc');
    } catch {
      return;
    }
    const stats = new Map<number, string[]>();
    for (const e of entries) {
      if (!/^\d+$/.test(e)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
        // Fields after "(comm) ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
        // cutime cstime priority nice threads itrealvalue starttime …
        stats.set(Number(e), stat.slice(stat.lastIndexOf(')') + 2).split(' '));
      } catch {
        /* exited meanwhile */
      }
    }
    const inTree = (pid: number): boolean => {
      for (let p = pid, hops = 0; p > 1 && hops < 64; hops++) {
        if (p === this.root || this.seen.has(p)) return true;
        const f = stats.get(p);
        if (!f) return false;
        p = Number(f[1]);
      }
      return false;
    };
    for (const [pid, f] of stats) {
      const known = this.seen.get(pid);
      if (known && known.start !== f[19]) continue; // PID reused by an unrelated process
      if (known || inTree(pid)) this.seen.set(pid, { start: f[19], user: Number(f[11]), sys: Number(f[12]) });
    }
  }

  /** Takes a last sample and stops sampling. */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.sample();
  }

  /** PIDs seen in the tree that are still the same processes (same start time). */
  alive(): number[] {
    const out: number[] = [];
    for (const [pid, t] of this.seen) {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] === t.start) out.push(pid);
      } catch {
        /* gone */
      }
    }
    return out;
  }

  /** Seconds of user and sys time over every process seen. */
  totals(): { user: number; sys: number } {
    let user = 0;
    let sys = 0;
    for (const t of this.seen.values()) {
      user += t.user;
      sys += t.sys;
    }
    return { user: user / CLOCK_TICKS, sys: sys / CLOCK_TICKS };
  }
}

/** Parses time(1)'s `-f '%U %S %e %M'` output (the last line; a non-zero exit adds a line before it). */
export function readTimeFile(file: string): Pick<RunResult, 'cpuUser' | 'cpuSys' | 'maxRssKb'> {
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  const line = text.trim().split('\n').pop() ?? '';
  const [u, s, , m] = line.trim().split(/\s+/).map(Number);
  if (![u, s].every(Number.isFinite)) return {};
  return { cpuUser: u, cpuSys: s, maxRssKb: Number.isFinite(m) ? m : undefined };
}

/** Median of a non-empty list (mean of the middle two for even lengths). */
export function median(values: number[]): number {
  if (!values.length) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** SHA-256 (hex) of a file, streamed. */
export async function sha256File(file: string): Promise<string> {
  const hash = crypto.createHash('sha256');
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Writes `bytes` of random (incompressible) data to `file`.
 * @returns the SHA-256 (hex) of what was written
 */
export async function writeRandomFile(file: string, bytes: number): Promise<string> {
  const hash = crypto.createHash('sha256');
  const fd = fs.openSync(file, 'w');
  try {
    const buf = Buffer.allocUnsafe(Math.min(bytes, 16 << 20));
    for (let done = 0; done < bytes;) {
      const n = Math.min(buf.length, bytes - done);
      crypto.randomFillSync(buf, 0, n);
      hash.update(buf.subarray(0, n));
      let off = 0;
      while (off < n) off += fs.writeSync(fd, buf, off, n - off);
      done += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest('hex');
}

/** A folder's content in one value: file count, bytes, and a digest over sorted (relative path, size, SHA-256). */
export interface TreeManifest {
  files: number;
  bytes: number;
  digest: string;
}

/** Computes the {@link TreeManifest} of `dir` (regular files only; folders are implied by their files' paths). */
export function treeManifest(dir: string): TreeManifest {
  const entries: string[] = [];
  let bytes = 0;
  const walk = (rel: string): void => {
    for (const d of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) walk(r);
      else if (d.isFile()) {
        const data = fs.readFileSync(path.join(dir, r));
        bytes += data.length;
        entries.push(`${r}\0${data.length}\0${crypto.createHash('sha256').update(data).digest('hex')}`);
      } else {
        entries.push(`${r}\0unexpected ${d.isSymbolicLink() ? 'symlink' : 'special file'}`);
      }
    }
  };
  walk('');
  entries.sort();
  return { files: entries.length, bytes, digest: crypto.createHash('sha256').update(entries.join('\n')).digest('hex') };
}

/**
 * Writes `count` files of `size` random bytes under `dir`, nested two levels (d0..d9/e0..e3/fNNNN.bin).
 * @returns the tree's manifest
 */
export function writeRandomTree(dir: string, count: number, size: number): TreeManifest {
  for (let i = 0; i < count; i++) {
    const sub = path.join(dir, `d${i % 10}`, `e${Math.floor(i / 10) % 4}`);
    fs.mkdirSync(sub, { recursive: true });
    fs.writeFileSync(path.join(sub, `f${String(i).padStart(4, '0')}.bin`), crypto.randomBytes(size));
  }
  return treeManifest(dir);
}
