/**
 * The books of one run: the queued jobs of a batch go to the engine as one transfer (all their sources, one
 * destination), whose events name files, not jobs. A {@link RunTally} gives each file to the job whose top-level
 * source it is or lies under, settles a file job as soon as its one file ends, splits the run's progress into per-job
 * counters, and says how each job ended when the transfer does.
 */
import type { JobPatch } from './reducer';
import type { JobError, JobOutcome } from './lifecycle';
import { failureSummary, failureText } from './files';

/** A top-level source of a run and its job. */
export interface RunSource {
  jobId: string;
  source: string;
  /** Where the source lands (the destination folder joined with its name), for conflicts, which name targets. */
  target?: string;
}

/** A file's end, as the engine's `file` event tells it. Sizes in bytes. */
export interface FileEnd {
  path: string;
  target: string;
  size: number;
  state: 'done' | 'failed' | 'skipped';
  error?: JobError;
  reason?: string;
}

/** A progress sample of the run (the engine's `progress` event); `files` are those in flight. */
export interface RunSample {
  bytesDone: number;
  bytesTotal: number;
  filesDone: number;
  filesTotal: number;
  /** bytes/s. */
  rate: number;
  files: ReadonlyArray<{ path: string; bytes: number; size: number }>;
}

/** How the transfer ended: its report, or the error it threw. */
export type RunEnd =
  | { report: { files: number; skipped: number; bytes: number; failed: ReadonlyArray<{ path: string; code: string; message: string }> } }
  | { failure: JobError };

interface JobTally {
  files: number;
  committed: number;
  skipped: number;
  bytes: number;
  bytesTotal: number;
  failures: Array<{ path: string; code: string; message: string }>;
  settled: boolean;
}

const trimmed = (p: string): string => (p.length > 1 ? p.replace(/[\\/]+$/, '') : p);

/** The job of the deepest root that is `path` or a folder above it, else the first root's. */
function deepest(roots: ReadonlyArray<{ jobId: string; root: string }>, path: string): string {
  let best: { jobId: string; root: string } | undefined;
  for (const r of roots) {
    const under = path === r.root || path.startsWith(`${r.root}/`) || path.startsWith(`${r.root}\\`) || r.root === '/';
    if (under && (!best || r.root.length > best.root.length)) best = r;
  }
  return (best ?? roots[0]).jobId;
}

/** The per-job books of one run. */
export class RunTally {
  private readonly tallies = new Map<string, JobTally>();
  private readonly roots: ReadonlyArray<{ jobId: string; root: string }>;
  private readonly targets: ReadonlyArray<{ jobId: string; root: string }>;

  /** @param sources the run's jobs in queue order (at least one) */
  constructor(sources: readonly RunSource[]) {
    this.roots = sources.map((s) => ({ jobId: s.jobId, root: trimmed(s.source) }));
    this.targets = sources.map((s) => ({ jobId: s.jobId, root: trimmed(s.target ?? s.source) }));
    for (const s of sources) this.tallies.set(s.jobId, { files: 0, committed: 0, skipped: 0, bytes: 0, bytesTotal: 0, failures: [], settled: false });
  }

  /** The job a file of the run belongs to: the deepest source that is the file or a folder above it (else the first). */
  jobOf(path: string): string {
    return deepest(this.roots, path);
  }

  /** The job a target path of the run belongs to (a conflict names its target), like {@link jobOf}. */
  jobOfTarget(target: string): string {
    return deepest(this.targets, target);
  }

  /** Whether the job's outcome is known (its one file ended, or the run did). */
  isSettled(jobId: string): boolean {
    return this.tallies.get(jobId)?.settled ?? true;
  }

  /** Jobs still waiting for an outcome, in queue order. */
  unsettled(): string[] {
    return this.roots.map((r) => r.jobId).filter((id) => !this.isSettled(id));
  }

  /**
   * Records a file's end. A file that is its job's whole source settles the job now: done (or skipped) or failed.
   * @returns the file's job, and its outcome when it settles
   */
  fileEnded(f: FileEnd): { jobId: string; outcome?: JobOutcome } {
    const jobId = this.jobOf(f.path);
    const t = this.tallies.get(jobId)!;
    t.files++;
    if (f.state === 'done') { t.committed++; t.bytes += f.size; t.bytesTotal += f.size; }
    if (f.state === 'skipped') t.skipped++;
    if (f.state === 'failed') {
      t.bytesTotal += f.size;
      t.failures.push({ path: f.path, code: f.error?.code ?? 'INTERNAL', message: f.error?.message ?? 'failed' });
    }
    const whole = this.roots.some((r) => r.jobId === jobId && r.root === trimmed(f.path));
    if (!whole || t.settled) return { jobId };
    t.settled = true;
    if (f.state === 'failed') return { jobId, outcome: { state: 'failed', error: { code: f.error?.code ?? 'INTERNAL', message: failureText(f.error?.message ?? 'failed', f.path) } } };
    return { jobId, outcome: { state: 'done', files: 1, bytes: t.bytes, skipped: t.skipped } };
  }

  /** Counter patches of the unsettled jobs for a progress sample; the run's rate goes to the first of them. */
  progress(s: RunSample): Array<{ jobId: string; patch: JobPatch }> {
    const open = this.unsettled();
    if (this.roots.length === 1 && open.length === 1) {
      const t = this.tallies.get(open[0])!;
      const filesDone = s.filesDone + t.skipped;
      return [{ jobId: open[0], patch: { bytesDone: s.bytesDone, bytesTotal: s.bytesTotal, filesDone, filesTotal: Math.max(s.filesTotal, filesDone), rate: s.rate } }];
    }
    const moving = new Map<string, { bytes: number; size: number; files: number }>();
    for (const f of s.files) {
      const id = this.jobOf(f.path);
      const m = moving.get(id) ?? { bytes: 0, size: 0, files: 0 };
      moving.set(id, { bytes: m.bytes + f.bytes, size: m.size + f.size, files: m.files + 1 });
    }
    return open.map((jobId, i) => {
      const t = this.tallies.get(jobId)!;
      const m = moving.get(jobId) ?? { bytes: 0, size: 0, files: 0 };
      const filesDone = t.committed + t.skipped;
      return { jobId, patch: { bytesDone: t.bytes + m.bytes, bytesTotal: t.bytesTotal + m.size, filesDone, filesTotal: t.files + m.files, rate: i === 0 ? s.rate : 0 } };
    });
  }

  /** How an unsettled job ended with the run (a stop decided elsewhere wins over this). Marks it settled. */
  finalOutcome(jobId: string, end: RunEnd): JobOutcome {
    const t = this.tallies.get(jobId)!;
    t.settled = true;
    if ('failure' in end) return { state: 'failed', error: end.failure };
    const single = this.roots.length === 1;
    const failed = single ? end.report.failed : t.failures;
    if (failed.length > 0) return { state: 'failed', error: failureSummary(failed) };
    if (single) return { state: 'done', files: end.report.files + end.report.skipped, bytes: end.report.bytes, skipped: end.report.skipped };
    return { state: 'done', files: t.committed + t.skipped, bytes: t.bytes, skipped: t.skipped };
  }
}
