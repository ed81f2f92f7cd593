/**
 * The attributes a job keeps from its sources: the modification time (unless `preserveTimes` is false) and the
 * permission bits (when `preservePermissions`), and the one warning a job gives when a server or the local file
 * system would not take them (the files still commit).
 */
import { SluiceError } from '../errors';
import { tempFileMode, type KeptAttributes } from '../ssh/workerProtocol';
import type { EventSink, TransferRequest } from './types';

/** SFTP v3 times are uint32 seconds since the epoch (draft-ietf-secsh-filexfer-02 §5). */
const MAX_SFTP_TIME = 0xffff_ffff;

/**
 * The bits a file uploaded from Windows gets on the server. Windows has no permission bits: Node reports every file
 * as 0666 (0444 when read-only), which kept as they are would make the server's copy world-writable. As WinSCP and
 * FileZilla do: 0644, 0444 for a read-only file, 0755 for one Node marks executable.
 */
export function modeFromWindows(mode: number): number {
  if (mode & 0o111) return 0o755;
  return mode & 0o200 ? 0o644 : 0o444;
}

/**
 * What to keep of one source file for `req`: its mode also without `preservePermissions` when it lacks owner read or
 * write (a read-only upload's temporary file is created writable, {@link tempFileMode}).
 * @param item the source's mtime (ms since the epoch; NaN when the server sent none) and mode (0 when unknown)
 * @param platform the local platform: an upload from Windows maps the mode ({@link modeFromWindows})
 * @returns the mtime in whole seconds (a time outside 1970–2106 is not kept) and the bits, or undefined for neither
 */
export function attributesToKeep(
  req: TransferRequest,
  item: { mtimeMs: number; mode: number },
  platform: NodeJS.Platform = process.platform,
): KeptAttributes | undefined {
  const keep: KeptAttributes = {};
  const seconds = Math.floor(item.mtimeMs / 1000);
  if (req.preserveTimes !== false && seconds >= 0 && seconds <= MAX_SFTP_TIME) keep.mtime = seconds;
  const fromWindows = req.direction === 'put' && platform === 'win32';
  if (req.preservePermissions === true && item.mode > 0) {
    keep.mode = fromWindows ? modeFromWindows(item.mode) : item.mode & 0o7777;
  } else if (req.direction === 'put' && item.mode > 0 && tempFileMode(item.mode) !== (item.mode & 0o777)) {
    // The server's temporary file is created writable by its owner (tempFileMode): the bits it lacks, at commit.
    keep.mode = fromWindows ? modeFromWindows(item.mode) : item.mode & 0o777;
  }
  return keep.mtime === undefined && keep.mode === undefined ? undefined : keep;
}

/** Jobs (by their books, one per run) that already warned. */
const warned = new WeakSet<object>();

/**
 * Warns once per job that attributes could not be kept (later refusals in the same job are not repeated).
 * @param e the refusal, in the user's terms (names the request, the user's path and the server's status and text)
 */
export function warnAttributesNotKept(
  job: { books: { events: EventSink } },
  keep: KeptAttributes,
  e: SluiceError,
): void {
  if (warned.has(job.books)) return;
  warned.add(job.books);
  const what =
    keep.mode === undefined
      ? 'modification times'
      : keep.mtime === undefined
        ? 'permissions'
        : 'modification times and permissions';
  job.books.events({
    type: 'log',
    level: 'warn',
    message: `${what} could not be kept (${e.message}); the files are committed without them (not repeated for this job's other files)`,
  });
}
