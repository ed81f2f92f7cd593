/**
 * The books of one run: the queued jobs of a batch go to the engine as one transfer (all their sources, one
 * destination), whose events name files, not jobs. A {@link RunTally} gives each file to the job whose top-level
 * source it is or lies under (pathOwners.ts), settles a file job as soon as its one file ends, splits the run's
 * progress into per-job counters, and says how each job ended when the transfer does. A file an earlier run of the
 * job committed (the engine skips it, `earlier`) counts as done: it is the job's own.
 */
import type { JobPatch } from './reducer';
import type { JobError, JobOutcome } from './lifecycle';
import { failureSummary, failureText } from './files';
import { PathOwners } from './pathOwners';

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
  /** Skipped because an earlier run of the job committed it (the engine's journal): for the job, done. */
  earlier?: boolean;
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
  | {
      report: {
        files: number;
        skipped: number;
        bytes: number;
        failed: ReadonlyArray<{ path: string; code: string; message: string }>;
      };
    }
  | { failure: JobError };

interface JobTally {
  files: number;
  /** Files committed, by this run or (`earlier`) by an earlier one. */
  committed: number;
  skipped: number;
  /** Bytes of the committed files. */
  bytes: number;
  /** Of those, the files and bytes an earlier run committed (the engine's counters leave them out). */
  earlierFiles: number;
  earlierBytes: number;
  bytesTotal: number;
  failures: Array<{ path: string; code: string; message: string }>;
}

/** The per-job books of one run. */
export class RunTally {
  private readonly tallies = new Map<string, JobTally>();
  /** The run's jobs in queue order. */
  private readonly order: readonly string[];
  /** Jobs without an outcome yet, in queue order. */
  private readonly open: Set<string>;
  private readonly sources: PathOwners<string>;
  private readonly targets: PathOwners<string>;

  /** @param sources the run's jobs in queue order (at least one) */
  constructor(sources: readonly RunSource[]) {
    this.order = sources.map((s) => s.jobId);
    this.open = new Set(this.order);
    this.sources = new PathOwners(sources.map((s) => [s.source, s.jobId] as const));
    this.targets = new PathOwners(sources.map((s) => [s.target ?? s.source, s.jobId] as const));
    for (const s of sources) {
      this.tallies.set(s.jobId, {
        files: 0,
        committed: 0,
        skipped: 0,
        bytes: 0,
        earlierFiles: 0,
        earlierBytes: 0,
        bytesTotal: 0,
        failures: [],
      });
    }
  }

  /**
   * The job a file of the run belongs to: the deepest source that is the file or a folder above it (else the first).
   */
  jobOf(path: string): string {
    return this.sources.ownerOf(path);
  }

  /** The job a target path of the run belongs to (a conflict names its target), like {@link jobOf}. */
  jobOfTarget(target: string): string {
    return this.targets.ownerOf(target);
  }

  /** Whether the job's outcome is known (its one file ended, or the run did). */
  isSettled(jobId: string): boolean {
    return !this.open.has(jobId);
  }

  /** Jobs still waiting for an outcome, in queue order. */
  unsettled(): string[] {
    return [...this.open];
  }

  /**
   * Records a file's end. A file that is its job's whole source settles the job now: done (or skipped) or failed.
   * @returns the file's job, and its outcome when it settles
   */
  fileEnded(f: FileEnd): { jobId: string; outcome?: JobOutcome } {
    const jobId = this.jobOf(f.path);
    const t = this.tallies.get(jobId)!;
    t.files++;
    const done = f.state === 'done' || (f.state === 'skipped' && f.earlier === true);
    if (done) {
      t.committed++;
      t.bytes += f.size;
      t.bytesTotal += f.size;
      if (f.state === 'skipped') {
        t.earlierFiles++;
        t.earlierBytes += f.size;
      }
    } else if (f.state === 'skipped') {
      t.skipped++;
    } else {
      t.bytesTotal += f.size;
      t.failures.push({ path: f.path, code: f.error?.code ?? 'INTERNAL', message: f.error?.message ?? 'failed' });
    }
    const whole = this.sources.exactly(f.path) === jobId;
    if (!whole || !this.open.delete(jobId)) return { jobId };
    if (f.state === 'failed')
      return {
        jobId,
        outcome: {
          state: 'failed',
          error: { code: f.error?.code ?? 'INTERNAL', message: failureText(f.error?.message ?? 'failed', f.path) },
        },
      };
    return { jobId, outcome: { state: 'done', files: 1, bytes: t.bytes, skipped: t.skipped } };
  }

  /** Counter patches of the unsettled jobs for a progress sample; the run's rate goes to the first of them. */
  progress(s: RunSample): Array<{ jobId: string; patch: JobPatch }> {
    const open = this.unsettled();
    if (open.length === 0) return [];
    if (this.order.length === 1) {
      // The run's counters are this job's; files an earlier run committed are not in them (skipped by the engine).
      const t = this.tallies.get(open[0])!;
      const filesDone = s.filesDone + t.skipped + t.earlierFiles;
      const bytesDone = s.bytesDone + t.earlierBytes;
      return [
        {
          jobId: open[0],
          patch: {
            bytesDone,
            bytesTotal: Math.max(s.bytesTotal, bytesDone),
            filesDone,
            filesTotal: Math.max(s.filesTotal, filesDone),
            rate: s.rate,
          },
        },
      ];
    }
    const moving = new Map<string, { bytes: number; size: number; files: number }>();
    for (const f of s.files) {
      const id = this.jobOf(f.path);
      const m = moving.get(id);
      if (m) {
        m.bytes += f.bytes;
        m.size += f.size;
        m.files++;
      } else moving.set(id, { bytes: f.bytes, size: f.size, files: 1 });
    }
    return open.map((jobId, i) => {
      const t = this.tallies.get(jobId)!;
      const m = moving.get(jobId) ?? { bytes: 0, size: 0, files: 0 };
      const filesDone = t.committed + t.skipped;
      return {
        jobId,
        patch: {
          bytesDone: t.bytes + m.bytes,
          bytesTotal: t.bytesTotal + m.size,
          filesDone,
          filesTotal: t.files + m.files,
          rate: i === 0 ? s.rate : 0,
        },
      };
    });
  }

  /**
   * How an unsettled job ended with the run (a stop decided elsewhere wins over this). Marks it settled. The job's
   * counts are its own files' ends, whatever the number of jobs in the run: the engine's report counts the files an
   * earlier run committed as skipped, and covers only the files of this run.
   */
  finalOutcome(jobId: string, end: RunEnd): JobOutcome {
    const t = this.tallies.get(jobId)!;
    this.open.delete(jobId);
    if ('failure' in end) return { state: 'failed', error: end.failure };
    if (t.failures.length > 0) return { state: 'failed', error: failureSummary(t.failures) };
    return { state: 'done', files: t.committed + t.skipped, bytes: t.bytes, skipped: t.skipped };
  }
}
