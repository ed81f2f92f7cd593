/**
 * Messages between the coordinating thread and a connection worker (app/node/ssh/worker.ts).
 * File bytes never cross this boundary: workers read and write local files themselves.
 */
import type { SluiceErrorInfo } from '../errors';
import type { HashMethod } from './remoteHash';
import type { Algorithms } from 'ssh2';
import type { AuthMaterial } from './auth';
import type { KeyboardRound } from './keyboardInteractive';

/**
 * One jump host of a connection (ssh_config(5) ProxyJump): the worker connects to it over the previous hop's
 * direct-tcpip channel (RFC 4254 §7.2; the first hop over TCP), and opens the next hop's channel (or the target's) from
 * it.
 */
export interface JumpHopParams {
  host: string;
  port: number;
  username: string;
  /** How messages name the hop: `host:port`, or `alias (host:port)`. */
  label: string;
  auth: AuthMaterial;
  algorithms?: Algorithms;
}

export interface ConnectParams {
  host: string;
  port: number;
  username: string;
  /** Data folder of the leftovers journal (stores/leftovers.ts), for a commit that moves the old target aside. */
  dataDir: string;
  auth: AuthMaterial;
  /** The coordinator can ask the user for a password (a `password` question gets an answer, not just nothing). */
  canAskPassword?: boolean;
  algorithms?: Algorithms;
  /** SFTP channels to open on this connection (M). */
  channels: number;
  /** Outstanding SSH_FXP_READ/WRITE requests per channel (K). */
  requests: number;
  /** Receive window of each SFTP channel in bytes; ssh2's 2 MiB when absent (needs patches/ssh2+*.patch). */
  channelWindow?: number;
  /**
   * When the RTT measured during connect is at least `minRttMs`, start opening SFTP channels up to `channels` in
   * all while the first one is still opening; connect returns with `channels` above, and the next addChannels
   * takes the early ones first.
   */
  autoChannels?: { minRttMs: number; earlyRttMs: number; channels: number };
  /**
   * A job's first requests, sent right behind SSH_FXP_INIT while the channels set up (pipelined OpenSSH set-up
   * only), so their answers come with the VERSION: one round trip less before the first byte moves.
   * `stat`: SSH_FXP_STAT on the first channel; connect returns the answers (ConnectInfo.prefetchedStats). `read`:
   * SSH_FXP_OPEN for reading on every channel opened during connect; a download of the path on that channel takes the
   * handle. `probeDir`: the out-of-order write probe runs there on the first channel; `probeOutOfOrder` takes its
   * answer (per server), or probes its own folder when this one could not be written.
   */
  prefetch?: { stat?: string[]; read?: string[]; probeDir?: string };
  /** ssh2 keepaliveInterval in ms (0 disables); the connection is dropped after keepaliveCountMax misses. */
  keepaliveIntervalMs: number;
  keepaliveCountMax: number;
  /** Time allowed for TCP connect + handshake + authentication, in ms. */
  readyTimeoutMs: number;
  /** Jump hosts, in the order they are visited; the target is reached from the last one. */
  jump?: JumpHopParams[];
  /** Shared counters, COUNTERS_PER_CHANNEL float64 slots per channel. */
  counters: SharedArrayBuffer;
  /**
   * Shared bottleneck signals, SIGNAL_SLOTS float64 slots (sftp/pipeStats.ts SIG), written by ssh/worker/signals.ts.
   */
  signals?: SharedArrayBuffer;
  /**
   * Speed limits every SSH_FXP_READ/WRITE of this connection takes from (sftp/rateLimit.ts RateBucket memory): the
   * process-wide one and the site's. Changed by the coordinator while transfers run.
   */
  rateLimits: SharedArrayBuffer[];
  /** Append a packet trace of this connection to this file (ssh/packetTrace.ts; `--trace`, `SLUICE_TRACE`). */
  trace?: string;
}

export interface Negotiated {
  kex: string;
  serverHostKey: string;
  cipher: string;
  mac: string;
}

export interface ConnectInfo {
  negotiated: Negotiated;
  /** The server's identification line (RFC 4253 §4.2), e.g. `SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3`. */
  serverVersion?: string;
  /** Bytes per request actually used: min(server limits@openssh.com, our cap). */
  maxRead: number;
  maxWrite: number;
  /** SFTP extensions the server advertised (name → version). */
  extensions: Record<string, string>;
  /** The authentication method that succeeded. */
  authMethod: string;
  /** One SSH-level round trip (keepalive@openssh.com) right after authentication, in ms; undefined if unmeasured. */
  rttMs?: number;
  /** SFTP channels open on this connection. */
  channels: number;
  /**
   * The server answers an SFTP channel's requests in the order sent: OpenSSH's sftp-server (and internal-sftp, the
   * same code), which reads and handles one request at a time. Known from the SSH software version `OpenSSH_*` and
   * the OpenSSH-only `limits@openssh.com` extension. Other servers may process requests concurrently
   * (draft-ietf-secsh-filexfer-02 §6), so a request that depends on another's effect waits for its reply there.
   */
  ordersRequests: boolean;
  /**
   * The answers of the set-up's SSH_FXP_STATs (ConnectParams.prefetch.stat, following links), in the order asked;
   * a path is missing when its STAT could not ride on the set-up (a server without the pipelined set-up).
   */
  prefetchedStats?: PrefetchedStat[];
}

/** One answer of a STAT sent during set-up: the path's attributes, null when it does not exist, or the error. */
export interface PrefetchedStat {
  path: string;
  stat?: RemoteStat | null;
  error?: SluiceErrorInfo;
}

export interface RemoteStat {
  type: 'file' | 'dir' | 'symlink' | 'other';
  size: number;
  mtimeMs: number;
  mode: number;
  /** Only where asked for (`long`): the owner's and group's numeric ids, the access time (ms), the file type bits. */
  uid?: number;
  gid?: number;
  atimeMs?: number;
  /** S_IFMT bits of the mode (a socket, a FIFO, a device among `other`); only with `long`. */
  format?: number;
  /** Only with `long`: the `ls -l` line the server sent in its SSH_FXP_NAME answer (draft-02 §7), untrusted text. */
  longname?: string;
}

export interface RemoteEntry extends RemoteStat {
  name: string;
}

/** Byte range work on one channel. Offsets in bytes; `end` exclusive. */
export interface RangeTask {
  channel: number;
  remotePath: string;
  localPath: string;
  start: number;
  end: number;
  /** Permissions an upload segment creates the temporary file with (the first open creates it). */
  mode?: number;
  /**
   * A download segment that ends where the file does: a READ at `end`, pipelined with the last data READ, must say
   * EOF (a file longer than its listed size is not saved short).
   */
  fileEnd?: boolean;
  /**
   * For a journal: fsync the file this often (ms) while the range moves, and report each durable prefix
   * [start, end) as a `durable` message (sftp/rangeCheckpoints.ts). Absent: no checkpoints inside the range.
   */
  checkpointMs?: number;
}

/**
 * Attributes an upload's temporary file gets through SSH_FXP_FSETSTAT on its handle, after its last WRITE and before
 * its CLOSE (so before the rename shows it under its final name). draft-ietf-secsh-filexfer-02 §5 (ATTRS), §6.9.
 */
export interface KeptAttributes {
  /** Modification time in seconds since the epoch (a uint32 in SFTP v3), sent as the access time too. */
  mtime?: number;
  /** Permission bits (0o7777) set exactly, whatever the server's umask did to the OPEN's mode. */
  mode?: number;
}

/** How an upload's handle ended: the size the server reports, whether it fsynced, and a refused FSETSTAT. */
export interface UploadEnd {
  size: number;
  fsynced: boolean;
  /** The server refused the FSETSTAT (the file is complete; its time or permissions are the server's own). */
  attrsRefused?: SluiceErrorInfo;
}

/**
 * Writing into the target itself instead of a temporary name (transfer/transferFile.ts `inPlace`): the target exists
 * and is opened without being created. `offset` 0 truncates it and writes it whole (an upload into a folder where
 * files cannot be created); above 0 keeps its first `offset` bytes and writes the rest after them (the conflict
 * rule `append`).
 */
export interface InPlace {
  /** Bytes of the target kept; the source's bytes from here on are written at the same offsets. */
  offset: number;
}

/**
 * A whole upload through one handle, in order: open temp (create+truncate), write, fsync, close; with `inPlace`, the
 * target itself (`remoteTemp` is then the target).
 */
export interface PutFileTask {
  channel: number;
  localPath: string;
  remoteTemp: string;
  inPlace?: InPlace;
  size: number;
  /** Unix mode bits for the new remote file. */
  mode?: number;
  /** Set on the handle before its CLOSE (see {@link KeptAttributes}). */
  keep?: KeptAttributes;
}

/**
 * A whole download through one handle into a local temporary file (created here); with `inPlace`, into the local
 * target itself (`localTemp` is then the target).
 */
export interface GetFileTask {
  channel: number;
  remotePath: string;
  localTemp: string;
  inPlace?: InPlace;
  size: number;
  /** The source's mode: the temporary file is created with {@link tempFileMode} of it. */
  mode?: number;
}

/**
 * The mode a temporary file is created with, both ways (the umask applies): the source's permission bits (0644 when
 * unknown) with read and write for its owner, who reopens it for writing for every segment. Bits the source lacks
 * there are set at commit (transfer/localFiles.ts for a download, SSH_FXP_FSETSTAT through transfer/attributes.ts for
 * an upload), never before the last write: a 0444 temporary file could not be reopened by an ordinary user (#30).
 * A source that has them (the usual 0644) needs nothing at commit.
 * @param sourceMode the source's mode (0 when unknown)
 */
export function tempFileMode(sourceMode: number): number {
  return (sourceMode & 0o777 || 0o644) | 0o600;
}

/** A statvfs@openssh.com answer (OpenSSH PROTOCOL §4.4): sizes in blocks of `frsize` bytes, inode counts. */
export interface FsStats {
  bsize: number;
  frsize: number;
  blocks: number;
  bfree: number;
  bavail: number;
  files: number;
  ffree: number;
  favail: number;
  flag: number;
  namemax: number;
}

export type CommitMode = 'overwrite' | 'no-clobber';

/** Operation name → [argument, result]. */
export interface WorkerOps {
  connect: [ConnectParams, ConnectInfo];
  /**
   * Opens up to `count` more SFTP channels on this connection (room must exist in the counters); returns the
   * channel count. Rejects only when none could be opened.
   */
  addChannels: [{ count: number }, number];
  /** Sets the receive window of every SFTP channel, now and later ones, in bytes; returns the window applied. */
  setChannelWindow: [{ bytes: number }, number];
  stat: [{ channel?: number; path: string; follow?: boolean }, RemoteStat | null];
  /** A whole folder; with `long`, each name with its owner, group, access time and the server's `ls -l` line. */
  list: [{ channel?: number; path: string; long?: boolean }, RemoteEntry[]];
  /**
   * Lists a folder as `list` does, handing its names to the caller as they arrive (CallContext.items, a batch per
   * READDIR answer, read on only while at most ITEMS_AHEAD batches wait unconsumed); resolves with the count of names.
   */
  listEach: [{ channel?: number; path: string; long?: boolean }, number];
  /** SSH_FXP_STAT (LSTAT with `follow: false`) with the owner, group and access time (RemoteStat `long` fields). */
  statLong: [{ channel?: number; path: string; follow?: boolean }, RemoteStat | null];
  /** SSH_FXP_SETSTAT of the permission bits (draft-ietf-secsh-filexfer-02 §6.9); follows a symlink, as chmod(2). */
  setMode: [{ channel?: number; path: string; mode: number }, void];
  /** SSH_FXP_SYMLINK: a link at `path` naming `target` (stored as given). */
  symlink: [{ channel?: number; target: string; path: string }, void];
  /** An empty file (SSH_FXP_OPEN CREAT|EXCL, then CLOSE); EXISTS when something has that name. */
  createFile: [{ channel?: number; path: string }, void];
  /** The server copies `from` to a new file `to` (`copy-data`, OpenSSH PROTOCOL); REMOTE_FAILURE where not offered. */
  copyData: [{ channel?: number; from: string; to: string }, void];
  /**
   * statvfs@openssh.com (OpenSSH PROTOCOL §4.4) of the file system holding `path`; REMOTE_FAILURE where not offered.
   */
  statvfs: [{ channel?: number; path: string }, FsStats];
  realpath: [{ channel?: number; path: string }, string];
  /** SSH_FXP_READLINK: what a symbolic link points to, as stored in the link (relative or absolute). */
  readlink: [{ channel?: number; path: string }, string];
  mkdir: [{ channel?: number; path: string; mode?: number }, 'created' | 'exists'];
  remove: [{ channel?: number; path: string }, void];
  rmdir: [{ channel?: number; path: string }, void];
  rename: [{ channel?: number; from: string; to: string; mode: CommitMode }, void];
  /**
   * Whether an existing remote file may be written: SSH_FXP_OPEN with WRITE alone (neither created nor truncated),
   * closed at once. False when the server answers permission denied or no such file.
   */
  canWrite: [{ channel?: number; path: string }, boolean];
  /** Range tasks keep their handles open for the file's next segment on the same channel, until releaseFile. */
  download: [RangeTask, number];
  upload: [RangeTask, number];
  /**
   * A journal checkpoint: fsyncs the file whose segments this connection moved (fsync@openssh.com on a handle this
   * channel kept, or the local file); every range whose last reply came before is then durable.
   * @returns false when nothing could be fsynced (no such extension, no kept handle)
   */
  checkpoint: [{ channel: number; direction: 'upload' | 'download'; remotePath: string; localPath: string }, boolean];
  /** Returns the remote file's size after writing (fstat), for the size check, and whether its FSETSTAT was refused. */
  putFile: [PutFileTask, UploadEnd];
  getFile: [GetFileTask, number];
  /**
   * FSETSTAT of `keep`, fsync@openssh.com where offered and the remote size, then closes the handles this connection
   * kept for the file's segments (see releaseFile).
   */
  finishUpload: [{ channel?: number; path: string; keep?: KeptAttributes }, UploadEnd];
  /**
   * Closes the handles kept open between a file's segments on this connection. Resolves once the local handles
   * are closed, and for an upload once the server confirmed its SSH_FXP_CLOSEs too.
   */
  releaseFile: [{ remotePath: string; localPath: string; direction: 'download' | 'upload' }, void];
  /**
   * Starts opening `remotePath` for an upload's segments on these channels (created with `mode` if missing, never
   * truncated), while the caller still waits for something else (the out-of-order probe); the next upload segment
   * of the path on each channel takes its handle, releaseFile closes those left. Resolves at once.
   */
  openAhead: [{ channels: number[]; remotePath: string; mode?: number }, void];
  /**
   * The server's SHA-256 of a file (remoteHash.ts): check-file-name, exec `sha256sum`, or a re-read; of its first
   * `length` bytes when given (the conflict rule `append`).
   */
  hashRemote: [
    /** `serverOnly`: no re-read; '' as `sha256` when the server cannot hash the file itself (check-file, exec). */
    { channel?: number; path: string; size: number; allowExec: boolean; length?: number; serverOnly?: boolean },
    { sha256: string; method: HashMethod; why?: string },
  ];
  /** SHA-256 of a local file, or of its first `length` bytes. */
  hashLocal: [{ path: string; length?: number }, string];
  /** Probes whether the server accepts out-of-order writes from two handles to one file. */
  probeOutOfOrder: [{ dir: string }, boolean];
  close: [Record<string, never>, void];
}

export type OpName = keyof WorkerOps;

/** What every worker operation gets besides its argument: its call's cancel signal and progress reporter. */
export interface CallContext {
  /** Fires when the coordinator cancels this call. */
  signal: AbortSignal;
  /** Reports bytes moved (throttled to a message every PROGRESS_INTERVAL_MS, flushed before the result). */
  progress(bytes: number): void;
  /**
   * Hands a batch of the call's results to the caller (CallOptions.onItems); resolves once fewer than ITEMS_AHEAD
   * batches wait for the caller to take them, or the call is cancelled.
   */
  items(batch: unknown[]): Promise<void>;
  /** Reports at once that the call's range is durable up to `end` (bytes, exclusive), for a journal. */
  durable(end: number): void;
}

/** Batches of a call's results (CallContext.items) sent ahead of the caller taking them. */
export const ITEMS_AHEAD = 4;

export type ToWorker =
  | { kind: 'call'; id: number; op: OpName; arg: unknown }
  /** `error`: why a refused key was refused (HOSTKEY_* code and message), the connect's error. */
  | { kind: 'hostkey-answer'; id: number; accept: boolean; error?: SluiceErrorInfo }
  | { kind: 'password-answer'; id: number; password?: string }
  /** The answers to a keyboard-interactive round, or why there are none (the login then fails with `error`). */
  | { kind: 'keyboard-answer'; id: number; answers?: string[]; error?: SluiceErrorInfo }
  /** Aborts the running call `id` (its result is then an error, ABORTED for transfers). */
  | { kind: 'cancel'; id: number }
  /** The caller took one batch of call `id`'s results (see CallContext.items). */
  | { kind: 'items-taken'; id: number };

export type FromWorker =
  | { kind: 'result'; id: number; ok: true; value: unknown }
  | { kind: 'result'; id: number; ok: false; error: SluiceErrorInfo }
  /** `hop`: the key of that jump host (ConnectParams.jump index), else the target's. */
  | { kind: 'hostkey'; id: number; key: Uint8Array; hop?: number }
  /**
   * The password is wanted (`hop`: by that jump host, else by the target); `again`: the server refused the previous
   * one.
   */
  | { kind: 'password'; id: number; again?: boolean; hop?: number }
  /** A keyboard-interactive round (RFC 4256) whose prompts the password did not answer. */
  | { kind: 'keyboard'; id: number; round: KeyboardRound }
  /** Bytes call `id` moved since its last progress message (sent before its result). */
  | { kind: 'progress'; id: number; bytes: number }
  /** A batch of call `id`'s results, before its result message (CallContext.items). */
  | { kind: 'items'; id: number; items: unknown[] }
  /** Call `id`'s range is durable from its start up to `end` (RangeTask.checkpointMs). */
  | { kind: 'durable'; id: number; end: number }
  | { kind: 'hostkeys'; keys: Uint8Array[]; /** Jump host index; absent for the target. */ hop?: number }
  /** A note for `-v` about the target's login: each method tried and how the server answered (never a secret). */
  | { kind: 'auth-note'; message: string }
  | { kind: 'closed'; code: string; message: string };
