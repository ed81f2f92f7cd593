/**
 * What an expanded batch row lists: for each of its jobs, the files the engine reported (`queue.files`: done, skipped
 * with its reason, failed with its reason) or, for a job no file of which has ended yet, the job itself. Pure; the
 * view fetches the files (views/QueueView.tsx) and renders the lines (views/QueueRows.tsx).
 */
import type { Job } from '../../app/common/model/job';
import type { BatchView } from '../../app/common/queue/batches';
import { fileLine, type FileLine, type QueueFile } from '../../app/common/queue/files';

/** How a line reads: a file's end, or a job that has no ended file yet. */
export type LineState = FileLine | 'paused' | 'cancelled';

/** One line under an expanded batch row. */
export interface FileLineView {
  key: string;
  /** The file's path below its dropped folder (`album/sub/two.jpg`), or the dropped file's name. */
  name: string;
  /** The user's path: where the file goes. */
  path: string;
  state: LineState;
  /** Bytes, when known. */
  size?: number;
  /** Why it failed or was skipped, reason first. */
  note?: string;
}

/** A batch's files as fetched: the first ones and how many there are in all. */
export interface FetchedFiles {
  files: readonly QueueFile[];
  total: number;
}

function jobLine(job: Job): LineState {
  switch (job.state) {
    case 'queued':
      return 'waiting';
    case 'running':
      return 'moving';
    case 'done':
      return job.filesSkipped && job.filesSkipped >= job.filesDone ? 'skipped' : 'done';
    default:
      return job.state;
  }
}

/** `source` below the folder that holds the job's source (`/l/album/sub/a` of job `/l/album` -> `album/sub/a`). */
function relativeName(job: Job, source: string): string {
  const root = job.source.replace(/[\\/]+$/, '');
  const parent = root.slice(0, Math.max(root.lastIndexOf('/'), root.lastIndexOf('\\')) + 1);
  return source.startsWith(parent) ? source.slice(parent.length) : source;
}

/** The lines of an expanded batch, in its jobs' order, each job's files in the order they ended. */
export function fileLines(view: BatchView, fetched: FetchedFiles | undefined): FileLineView[] {
  const byJob = new Map<string, QueueFile[]>();
  for (const f of fetched?.files ?? []) byJob.set(f.jobId, [...(byJob.get(f.jobId) ?? []), f]);
  return view.jobs.flatMap((job): FileLineView[] => {
    const files = byJob.get(job.id);
    if (!files)
      return [
        {
          key: job.id,
          name: job.name,
          path: job.source,
          state: jobLine(job),
          ...(job.error ? { note: job.error.message } : {}),
        },
      ];
    return files.map((f) => ({
      key: `${job.id}\n${f.source}`,
      name: relativeName(job, f.source),
      path: f.target,
      state: fileLine(f.state),
      size: f.size,
      ...(f.error ? { note: f.error.message } : {}),
    }));
  });
}

/** Files of the batch not listed (beyond what was fetched). */
export function unlisted(fetched: FetchedFiles | undefined): number {
  return fetched ? Math.max(0, fetched.total - fetched.files.length) : 0;
}
