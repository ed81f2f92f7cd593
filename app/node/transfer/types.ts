/** Shapes of a transfer job, its report and the engine's events. */
import type { Bottleneck } from '../../common/stats/bottleneck';
import type { PoolEvent } from '../ssh/poolOptions';
import type { NamePlatform } from './localNames';
import type { ByteRange as StoredRange } from '../stores/byteRanges';

/**
 * What to do with a file whose target exists (transfer/conflict.ts):
 * - `overwrite`: replace it (like `cp` and OpenSSH's `sftp`);
 * - `skip`: leave it (`--no-clobber`);
 * - `newer`: replace it when the incoming file's modification time is later, compared in whole seconds (SFTP v3
 *   carries seconds), else skip;
 * - `size`: replace it when the sizes differ, else skip;
 * - `rename`: write beside it under the first free name `NAME (1).ext`, `NAME (2).ext`, …;
 * - `append`: resume a partial copy not made by Sluice: when the target is shorter than the source and its bytes
 *   have the SHA-256 of the source's same-length prefix, only the rest is sent, written into the target in place;
 *   otherwise the file is sent whole (the job says why).
 */
export type ConflictRule = 'overwrite' | 'skip' | 'newer' | 'size' | 'rename' | 'append';
/** Every {@link ConflictRule}, in the order the CLI's help lists them. */
export const CONFLICT_RULES: readonly ConflictRule[] = ['overwrite', 'skip', 'newer', 'size', 'rename', 'append'];
/** A policy function's answer for one file: any rule, applied to that file alone. */
export type ConflictAnswer = ConflictRule;
/** What to do when the target exists: one rule for every file, or a function asked per file (the app's "ask"). */
export type ConflictPolicy = ConflictRule | ((target: string, files: ConflictFiles) => Promise<ConflictAnswer>);

/** Size (bytes) and modification time (ms since epoch) of a file. */
export interface FileTimes {
  size: number;
  mtimeMs: number;
}

/** The two files of a conflict, as the engine saw them when it found the target existing. */
export interface ConflictFiles {
  /** The source file that would replace the target. */
  incoming: FileTimes;
  /** The file already at the target. */
  existing: FileTimes;
}

/**
 * What a file's verification proved, weakest first: `size` (the server's size matches), `sha256-reread` (the file was
 * read back over SFTP and hashed here: a server whose read path corrupts data the same way twice can fool it),
 * `sha256-remote` (the server hashed its own copy: `sha256sum` over exec, or `check-file-name`,
 * draft-ietf-secsh-filexfer-extensions-00 §3).
 */
export type VerifyLevel = 'size' | 'sha256-reread' | 'sha256-remote';

/** A byte range [start, end) of a file: the journal's shape (stores/byteRanges.ts). */
export type ByteRange = StoredRange;

/** What the journal knows of a file the job is about to move (see {@link TransferJournal.planFile}). */
export interface JournalledFile {
  /** The file's temporary name: the one recorded by an earlier run, else the name the job proposed. */
  temp: string;
  /** Ranges an earlier run recorded as durably done at `temp` (empty: start from zero). */
  done: readonly ByteRange[];
  /** An earlier run already committed this file, and its source is unchanged: nothing to send. */
  committed: boolean;
  /** Temporary names of an earlier run whose source has changed since: remove them. */
  discarded: readonly string[];
  /**
   * Partial copies of the same target that another, interrupted command left (its journal no longer holds them):
   * this run starts the file over, so they are removed, and the user told where they were.
   */
  abandoned?: readonly string[];
}

/**
 * Where a job records what is durably done, so that running it again resumes instead of starting over (issue #14).
 * A range is recorded only once it is durable: fsynced on the server (fsync@openssh.com) for an upload, fsynced
 * locally for a download. Implementations may buffer records; `flush` writes them out.
 */
export interface TransferJournal {
  /** An earlier run is being resumed: planning a file may ask the server (STAT of its target or partial copy). */
  readonly resuming: boolean;
  /**
   * A file the job is about to move (source unchanged = same size and mtime, and for a local source the same SHA-256
   * of its first and last MiB).
   * @param proposedTemp the temporary name the job would use for a fresh start
   */
  planFile(
    f: { src: string; dst: string; size: number; mtimeMs: number },
    proposedTemp: string,
  ): Promise<JournalledFile>;
  /** Bytes [start, end) of the file are durable at its temporary name. */
  recordRange(src: string, start: number, end: number): void;
  /** The earlier partial copy cannot be used (gone, or shorter than recorded): forget its ranges. */
  restartFile(src: string, why: string): void;
  /** The file reached a final state. */
  fileEnded(src: string, state: 'committed' | 'skipped' | 'failed', error?: { code: string; message: string }): void;
  /**
   * Where an earlier run of the job committed this file, when it did and the source is unchanged since (as
   * {@link planFile} tells it). A resumed job skips such a file as its own before its conflict stage: the target is
   * there because of it. Optional: without it the file goes through the conflict stage first.
   */
  committedTarget?(f: { src: string; size: number; mtimeMs: number }): Promise<string | undefined>;
  /**
   * How an earlier run of the job read its destination (see TransferRequest.destIsDir), when it recorded it.
   * Optional: without it every run reads the destination afresh.
   */
  destIsDir?(): boolean | undefined;
  /** Records how this run read the destination, before anything is created there. */
  recordDestIsDir?(isDir: boolean): void;
  /** Writes out buffered records (at the job's end, and when it is interrupted). */
  flush(): void;
}

export interface TransferRequest {
  /** Job id used in events. */
  id: string;
  direction: 'get' | 'put';
  /** Local paths (put) or remote paths (get). */
  sources: string[];
  /** Remote folder or path (put), local folder or path (get); cp semantics. */
  dest: string;
  /**
   * How an earlier try of the same run read `dest` (cli/retry.ts, from {@link onDestination}) — an existing folder
   * the sources go into, or their new name — so that a retry after that try created it does not put the sources
   * inside it. Absent: the journal's record, else `dest` as it is now.
   */
  destIsDir?: boolean;
  /** Told once how this try reads `dest` (a folder the sources go into, or their new name), before anything is made. */
  onDestination?(isDir: boolean): void;
  /** Walk folders (-r). */
  recursive: boolean;
  /**
   * The files to move as a listing saw them (a sync batch: sync/runBatch.ts): each source file and its final target,
   * with the source's size, mtime (ms) and mode. When given, `sources` and `dest` only name the job: nothing is walked
   * or resolved cp-style and no source is STATed again (a source changed since fails SOURCE_CHANGED at its commit);
   * the targets' folders must exist, or be on their way: a file with `ready` waits for it (its folder being made; a
   * rejection fails that file with its error).
   */
  files?: ReadonlyArray<{
    src: string;
    dst: string;
    size: number;
    mtimeMs: number;
    mode?: number;
    ready?: Promise<void>;
  }>;
  conflict?: ConflictPolicy;
  /** 'size' (default) or 'sha256' (hash both sides before committing). */
  verify?: 'size' | 'sha256';
  /** Allow `sha256sum` over an exec channel (default true); otherwise the remote side is re-read. */
  allowExec?: boolean;
  /**
   * Symlinks in a folder walk, one policy both ways (`-L`, like `cp -L`): true follows every link; false (default)
   * copies a file link only when its target (a get: its SSH_FXP_REALPATH) lies inside the tree being copied, and
   * reports and skips the others (folder links too).
   */
  followSymlinks?: boolean;
  /**
   * A get's folder walk (`--max-depth`): folders nested deeper than this below a source are failed, not walked
   * (default 64, as OpenSSH's sftp; 0 copies only the source folder's own files).
   */
  maxDepth?: number;
  /**
   * A get's naming rules are this platform's (transfer/localNames.ts), not the running one's: for tests on Linux, and
   * for a download meant for another computer. Default: `process.platform`.
   */
  namePlatform?: NamePlatform;
  /**
   * Writes into a folder symlink found inside the destination (`-K`, rsync's --keep-dirlinks), both ways. By default
   * such a folder is failed, named, and nothing is written through it: the check is on the file system (lstat, or
   * SSH_FXP_LSTAT for a put), not on the names. DEST itself, as the user wrote it, may be a link.
   */
  keepDirlinks?: boolean;
  /**
   * A get replaces a read-only local target (`-f`, like cp -f); by default the file fails, naming it, and the target
   * is kept as it is (cp and sftp refuse it too).
   */
  force?: boolean;
  /** Records durable progress and resumes an interrupted run of the same job (see {@link TransferJournal}). */
  journal?: TransferJournal;
  /**
   * Give each target its source's modification time, in whole seconds, as its access time too (default true; CLI
   * `--no-times`). Set before the target appears under its final name: uploads by SSH_FXP_FSETSTAT on the handle,
   * downloads by utimes on the temporary file. Where that is refused the file still commits, and the job warns once.
   */
  preserveTimes?: boolean;
  /**
   * Give each target its source's permission bits exactly (CLI `-p`, `--perms`), the same way as the times. Default
   * false: a new file is created with the source's bits less the umask of the side that creates it (like `cp`).
   */
  preservePermissions?: boolean;
}

export interface FileFailure {
  path: string;
  code: string;
  message: string;
}

export interface TransferReport {
  files: number;
  skipped: number;
  bytes: number;
  failed: FileFailure[];
  /** The weakest verification level reached over the files committed; undefined when no file was committed. */
  verify?: VerifyLevel;
  elapsedMs: number;
  /** Whether uploads were segmented (server accepted out-of-order writes), when it was probed. */
  segmentedUploads?: boolean;
  /** Bytes an earlier, interrupted run had already moved and that this run did not send again (journal). */
  resumedBytes?: number;
  /**
   * Payload bytes this run moved over the wire: SSH_FXP_WRITE data the server acknowledged, SSH_FXP_READ data
   * received. Unlike {@link bytes} it counts the bytes of tasks that failed (and were counted back out to be sent
   * again), and not the resumed ones; verification re-reads are not in it.
   */
  movedBytes: number;
  /**
   * Bytes the conflict rule `append` found already at targets (prefixes whose SHA-256 matched the source's) and
   * did not send; `bytes` counts only what was sent.
   */
  appendedAfterBytes?: number;
  /**
   * Of {@link skipped}, the files an earlier, interrupted run of the job had committed (journal), and their bytes:
   * done before this run, not sent again.
   */
  earlierFiles?: number;
  earlierBytes?: number;
}

export interface ConnectionSample {
  id: number;
  /** Bytes moved by this connection during the job. */
  bytes: number;
  /** Bytes per second over the sliding window. */
  rate: number;
  inFlightBytes: number;
  outstanding: number;
  channels: Array<{ bytes: number; rate: number; inFlightBytes: number; outstanding: number }>;
  /** What limits this connection now (app/common/stats/bottleneck.ts), updated every second. */
  bottleneck?: Bottleneck;
}

/** What a transfer tells its sink: progress samples (every 250 ms) and each file's end. */
export type TransferEvent =
  | {
      type: 'progress';
      jobId: string;
      t: number;
      bytesDone: number;
      bytesTotal: number;
      filesDone: number;
      filesTotal: number;
      /** Bytes per second over the sliding window. */
      rate: number;
      scanning: boolean;
      connections: ConnectionSample[];
      files: Array<{ path: string; bytes: number; size: number }>;
      /** What limits the transfer now: the verdict carrying the most bytes over its connections' (issue #16). */
      bottleneck?: Bottleneck;
      /**
       * Files (and their bytes) of filesTotal/bytesTotal that ended without being sent: skipped by the conflict rule,
       * or committed by an earlier run of the job. Not in filesDone/bytesDone; a bar adds them to reach 100 %.
       */
      filesSkipped?: number;
      bytesSkipped?: number;
      /**
       * Under `--verify sha256`, when every file still in flight is having its hashes compared (nothing moves: the
       * verifying phase): those files, their bytes, and the bytes hashed so far (the slower side of each file: a
       * server hashing with sha256sum or check-file-name reports no progress, the local side then counts).
       */
      verifying?: { files: number; bytes: number; hashedBytes: number };
    }
  | {
      type: 'file';
      jobId: string;
      path: string;
      target: string;
      size: number;
      state: 'done' | 'failed' | 'skipped';
      verify?: VerifyLevel;
      error?: { code: string; message: string };
      /**
       * Why a file was skipped (a special file, a symlink outside the tree, an existing target, "the target is newer",
       * "same size", …).
       */
      reason?: string;
      /** Skipped because an earlier run of the job committed it (the journal): the job's own file, done. */
      earlier?: boolean;
      /** The conflict rule `rename` wrote it beside this existing target, under `target` (`NAME (1).ext`). */
      renamedFrom?: string;
      /** A skip the scan also said as a warn `log` event (a special file, a symlink not followed): print it once. */
      warned?: boolean;
    }
  /** A transfer's log line (a skipped special file, the probe's answer, a fallback, attributes not kept). */
  | { type: 'log'; level: 'info' | 'warn' | 'error'; message: string };

/** Every event of the engine: a transfer's (to its own sink) and the pool's (ssh/poolOptions.ts PoolEvent). */
export type EngineEvent = TransferEvent | PoolEvent;

/** Where one transfer's events go: its own sink, given to runTransfer (engine.transfer's `onEvent`). */
export type EventSink = (e: TransferEvent) => void;

/**
 * What transfers learn about a server and keep for the next job on it: whether it keeps out-of-order writes
 * (draft-ietf-secsh-filexfer-02 §6 lets a server apply writes through several handles as it likes; the probe,
 * transfer/outOfOrderProbe.ts, asks once). The engine holds it with the rest of what it knows (engine/serverTraits.ts).
 */
export interface ServerLearnings {
  /** Segmented uploads allowed; undefined before the probe. A refused segmented upload sets it false. */
  outOfOrderWrites?: boolean;
}

/** How one transfer runs (transfer/run.ts runTransfer). */
export interface TransferOptions {
  /** Stops the job (ABORTED): running requests are cancelled, kept partial files stay for the next run. */
  signal?: AbortSignal;
  /** The job's own event sink: its progress samples, file ends and log lines. Absent: they are dropped. */
  onEvent?: EventSink;
  /** What is known of the server, read and added to by this job; absent: a fresh record (the probe asks again). */
  server?: ServerLearnings;
}

/** What a job reports and learns besides its files: its event sink, and what it learns about the server. */
export interface RunFeedback {
  events: EventSink;
  server: ServerLearnings;
}
