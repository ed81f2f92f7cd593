/**
 * The files of a batch as the queue view lists them when its row expands (`queue.files`), and failures told the way a
 * row shows them: the reason first, then the user's path, never a temporary name.
 */
import type { FileState } from '../model/jobFile';

/** How a file line reads: its transfer is still to come or under way, or it ended. */
export type FileLine = 'waiting' | 'moving' | 'done' | 'skipped' | 'failed';

/** One file of a batch (a row of queue.db's `job_files`). */
export interface QueueFile {
  /** The job (top-level source) the file belongs to. */
  jobId: string;
  /** Source path (local for an upload, remote for a download). */
  source: string;
  /** Final target path. */
  target: string;
  /** Bytes. */
  size: number;
  state: FileState;
  /** Why it failed (failed), or why it was skipped (code `SKIPPED` with the reason as message). */
  error?: { code: string; message: string };
}

/** How a stored file state reads in the list. */
export function fileLine(state: FileState): FileLine {
  switch (state) {
    case 'planned':
      return 'waiting';
    case 'moving':
    case 'verifying':
      return 'moving';
    case 'committed':
      return 'done';
    default:
      return state;
  }
}

/** ` (temporary .NAME.sluice-XXXXXXXX.part)`, as the engine adds it after a user's path (transfer/fileNames.ts). */
const TEMPORARY = / \(temporary [^()]*\)/g;
/** `WHERE: REASON`, where WHERE is a few words ending in a path (`OPEN /srv/x`, `Cannot write /l/x`, `/r/a`). */
const WHERE_REASON = /^([^():]*?(?:^|\s)(?:\/|[A-Za-z]:\\|~)[^():]*?): (.+)$/s;

/**
 * A failure as the user should read it: the engine's message without temporary names, its reason first and the
 * path it names after (`Permission denied (SSH_FX_PERMISSION_DENIED) — OPEN /srv/x.bin`); `userPath` is added when
 * the message names no path.
 */
export function failureText(message: string, userPath?: string): string {
  const clean = message.replace(TEMPORARY, '');
  const m = WHERE_REASON.exec(clean);
  const text = m ? `${m[2].charAt(0).toUpperCase()}${m[2].slice(1)} — ${m[1]}` : clean;
  return userPath && !m && !text.includes(userPath) ? `${text} — ${userPath}` : text;
}

/** A job's error from its failed files: the first one's text, and how many more failed. */
export function failureSummary(failed: ReadonlyArray<{ path: string; code: string; message: string }>): {
  code: string;
  message: string;
} {
  const [first] = failed;
  const more = failed.length > 1 ? ` (and ${failed.length - 1} more)` : '';
  return { code: first.code, message: `${failureText(first.message, first.path)}${more}` };
}
