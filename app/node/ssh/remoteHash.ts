/**
 * The server's SHA-256 of a remote file, for `--verify sha256`, by the strongest method the server allows:
 * `check-file-name` (draft-ietf-secsh-filexfer-extensions-00 §3: the SFTP server hashes its own copy; ProFTPD),
 * `sha256sum`/`shasum -a 256` over an exec channel (a shell account; SFTPGo answers it itself), or a re-read over
 * SFTP hashed here. What failed is remembered per connection ({@link HashTraits}), as rclone remembers a remote's
 * hash support, so a hardened server costs one refused exec, not one per file.
 */
import { createHash } from 'node:crypto';
import type { Client, ClientChannel, SFTPWrapper } from 'ssh2';
import { SluiceError, fromSftpError } from '../errors';
import { patched } from '../ssh2x';

/** How a remote hash was obtained: by the server (`check-file`, `exec`) or by reading the file back (`reread`). */
export type HashMethod = 'check-file' | 'exec' | 'reread';

/**
 * What this connection learned about the server's hashing (`false` once a method failed, never tried again), and its
 * exec channels open right now.
 */
export interface HashTraits {
  checkFile?: boolean;
  exec?: boolean;
  /** The same for a prefix of a file (conflict rule `append`): a range of check-file-name, `head -c N | sha256sum`. */
  checkFilePrefix?: boolean;
  execPrefix?: boolean;
  /** Exec channels hashing now, and the ones waiting for a session ({@link execSlotsFor}). */
  execActive?: number;
  execWaiters?: Array<() => void>;
}

/** Sessions OpenSSH allows per connection by default (sshd_config(5) MaxSessions): SFTP channels and exec together. */
export const SERVER_SESSIONS = 10;

/** Exec channels a connection may hold at once next to its `sftpChannels`: what MaxSessions leaves, at least 1. */
export function execSlotsFor(sftpChannels: number): number {
  return Math.max(1, SERVER_SESSIONS - sftpChannels);
}

/** Runs `fn` once fewer than `max` exec channels of this connection are open. */
async function withExecSlot<T>(traits: HashTraits, max: number, fn: () => Promise<T>): Promise<T> {
  traits.execWaiters ??= [];
  while ((traits.execActive ?? 0) >= max) await new Promise<void>((resolve) => traits.execWaiters!.push(resolve));
  traits.execActive = (traits.execActive ?? 0) + 1;
  try {
    return await fn();
  } finally {
    traits.execActive--;
    traits.execWaiters.shift()?.();
  }
}

/** The connection pieces a remote hash needs. */
export interface HashTarget {
  client: Client;
  sftp: SFTPWrapper;
  /** SFTP extensions the server announced in SSH_FXP_VERSION (name → data). */
  extensions: Record<string, string>;
  /** Largest SSH_FXP_READ length, bytes (limits@openssh.com). */
  maxRead: number;
  /** The server's SSH software version (`OpenSSH_9.2p1 …`, `mod_sftp`), from its identification string. */
  software: string;
  /** SFTP channels this connection has open (they count against the server's session limit). */
  sftpChannels: number;
  traits: HashTraits;
}

/** Exec hashing time allowed: 15 s plus 20 ms per MB (a server disk at 50 MB/s), so a hang ends in seconds. */
export function execTimeoutMs(size: number): number {
  return 15_000 + Math.ceil(size / 50_000);
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Runs `command` on an exec channel and returns its exit code and the first 4 KiB of its output. The channel's input
 * is closed at once (a forced command such as `sftp-server` would otherwise wait for input forever), and the channel
 * is closed on timeout. A refused exec rejects (the patched ssh2 closes the refused channel).
 * @param timeoutMs limit in ms; `code` is null when it was reached
 */
export function execCapture(
  client: Client,
  command: string,
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    client.exec(command, (e: Error | undefined, ch: ClientChannel) => {
      if (e) {
        reject(e);
        return;
      }
      let out = '';
      const timer = setTimeout(() => {
        ch.close();
        resolve({ code: null, stdout: out });
      }, timeoutMs);
      ch.on('data', (d: Buffer) => {
        if (out.length < 4096) out += d.toString('utf8');
      });
      ch.stderr.resume();
      ch.on('close', (code: number | null) => {
        clearTimeout(timer);
        resolve({ code: code ?? null, stdout: out });
      });
      ch.end();
    });
  });
}

/**
 * `sha256sum` (or `shasum -a 256`) of `path` over exec, or of its first `length` bytes (`head -c`); null when the
 * server did not answer with a hash. A prefix of a file shorter than `length` hashes what there is (a different hash).
 */
export async function execSha256(client: Client, path: string, size: number, length?: number): Promise<string | null> {
  const q = shellQuote(path);
  const command =
    length === undefined
      ? `sha256sum -- ${q} 2>/dev/null || shasum -a 256 -- ${q}`
      : `head -c ${Math.floor(length)} -- ${q} | sha256sum 2>/dev/null || head -c ${Math.floor(length)} -- ${q} | shasum -a 256`;
  try {
    const r = await execCapture(client, command, execTimeoutMs(size));
    const m = /^\\?([0-9a-f]{64})\b/.exec(r.stdout);
    return r.code === 0 && m ? m[1] : null;
  } catch {
    return null;
  }
}

function sshString(s: string): Buffer {
  const b = Buffer.from(s, 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32BE(b.length);
  return Buffer.concat([len, b]);
}

/** Reads an SSH string at `off`, or undefined when the buffer is too short. */
function readString(b: Buffer, off: number): { value: Buffer; next: number } | undefined {
  if (off + 4 > b.length) return undefined;
  const len = b.readUInt32BE(off);
  return off + 4 + len > b.length ? undefined : { value: b.subarray(off + 4, off + 4 + len), next: off + 4 + len };
}

/**
 * Parses a check-file reply: `string hash-algo-used, byte[] hash` (some servers send the name "check-file" first,
 * and some wrap the hash in a string). Returns the hex SHA-256, or null when the reply names another algorithm.
 */
export function parseCheckFileReply(reply: Buffer): string | null {
  let s = readString(reply, 0);
  if (s?.value.toString() === 'check-file') s = readString(reply, s.next);
  if (!s || s.value.toString().toLowerCase() !== 'sha256') return null;
  let hash = reply.subarray(s.next);
  if (hash.length === 36 && hash.readUInt32BE(0) === 32) hash = hash.subarray(4);
  return hash.length === 32 ? hash.toString('hex') : null;
}

/**
 * Whether to try check-file-name: where announced (`check-file`, or the request names), and on servers other than
 * OpenSSH, which never implements it: ProFTPD answers it at SFTP version 3 but lists it only in `supported2`, sent
 * from version 5 on. A server without it answers SSH_FX_OP_UNSUPPORTED, once per connection.
 */
export function mayCheckFile(extensions: Record<string, string>, software: string): boolean {
  return (
    ['check-file', 'check-file-name', 'check-file-handle'].some((n) => extensions[n] !== undefined) ||
    !/^OpenSSH_/.test(software)
  );
}

/**
 * SHA-256 by `check-file-name` of the whole file (length 0), or of its first `length` bytes; one hash (block size 0).
 */
export function checkFileSha256(sftp: SFTPWrapper, path: string, length = 0): Promise<string | null> {
  // uint64 start-offset, uint64 length, uint32 block-size (draft-ietf-secsh-filexfer-extensions-00 §3)
  const range = Buffer.alloc(8 + 8 + 4);
  range.writeBigUInt64BE(BigInt(length), 8);
  const data = Buffer.concat([sshString(path), sshString('sha256'), range]);
  return new Promise((resolve, reject) => {
    patched(sftp).sluiceExtended('check-file-name', data, (e, reply) => {
      if (e) reject(fromSftpError(e, path, { op: 'check-file-name' }));
      else resolve(reply ? parseCheckFileReply(reply) : null);
    });
  });
}

/** Outstanding SSH_FXP_READs of a re-read: enough to cover a 50 ms round trip at ~80 MB/s. */
const REREAD_IN_FLIGHT = 16;

/**
 * Reads the remote file back over SFTP and hashes it here, with up to {@link REREAD_IN_FLIGHT} reads outstanding
 * (hashed in offset order). Proves what the server returns on a read, which a server with a broken read path
 * returns the same way twice: weaker than a server-side hash.
 * @param length hash only the first `length` bytes (fewer when the file is shorter)
 * @throws SluiceError VERIFY_FAILED when the file is shorter than its SSH_FXP_FSTAT size
 */
export async function rereadSha256(
  sftp: SFTPWrapper,
  path: string,
  maxRead: number,
  length = Infinity,
  onBytes?: (n: number) => void,
): Promise<string> {
  const call = <T>(op: string, fn: (cb: (e: Error | undefined, v: T) => void) => void, offset?: number) =>
    new Promise<T>((resolve, reject) =>
      fn((e, v) => (e ? reject(fromSftpError(e, path, { op, offset })) : resolve(v))),
    );
  const h = await call<Buffer>('OPEN', (cb) => sftp.open(path, 'r', cb as never));
  try {
    const st = await call<{ size: number }>('FSTAT', (cb) => sftp.fstat(h, cb as never));
    const size = Math.min(st.size, length);
    const hash = createHash('sha256');
    const reads: Array<Promise<Buffer>> = [];
    let next = 0;
    const issue = () => {
      while (reads.length < REREAD_IN_FLIGHT && next < size) {
        const pos = next;
        const buf = Buffer.allocUnsafe(Math.min(maxRead, size - pos));
        next += buf.length;
        const p = call<number>('READ', (cb) => sftp.read(h, buf, 0, buf.length, pos, cb as never), pos).then((n) => {
          if (n !== buf.length)
            throw new SluiceError(
              'VERIFY_FAILED',
              `${path}: READ at offset ${pos} returned ${n} of ${buf.length} bytes during verification`,
            );
          return buf;
        });
        p.catch(() => undefined);
        reads.push(p);
      }
    };
    issue();
    while (reads.length) {
      const buf = await reads.shift()!;
      hash.update(buf);
      onBytes?.(buf.length);
      issue();
    }
    return hash.digest('hex');
  } finally {
    sftp.close(h, () => undefined);
  }
}

/**
 * The remote file's SHA-256 by the strongest method left: check-file-name where announced, exec where allowed,
 * else a re-read. A method that fails is marked in `t.traits` and skipped for the rest of the connection (for whole
 * files and for prefixes apart: SFTPGo's built-in exec knows `sha256sum` but no pipe).
 * @param size the file's size in bytes (sizes the exec timeout)
 * @param allowExec false: never open an exec channel (the user refused it, or the app)
 * @param length hash only the file's first `length` bytes (the conflict rule `append`); default the whole file
 * @param reread false: only the server's own hash (an edit's conflict check): where it has none, `sha256` is ''
 */
export async function remoteSha256(
  t: HashTarget,
  path: string,
  size: number,
  allowExec: boolean,
  length?: number,
  onBytes?: (n: number) => void,
  reread = true,
): Promise<RemoteHash> {
  const prefix = length !== undefined;
  const checkKey = prefix ? 'checkFilePrefix' : 'checkFile';
  const execKey = prefix ? 'execPrefix' : 'exec';
  const checkFile = mayCheckFile(t.extensions, t.software);
  if (t.traits[checkKey] !== false && checkFile) {
    // A prefix of length 0 would mean "the whole file" to check-file-name: the caller hashes an empty prefix itself.
    const sha256 = await checkFileSha256(t.sftp, path, length).catch(() => null);
    if (sha256) {
      t.traits[checkKey] = true;
      return { sha256, method: 'check-file' };
    }
    t.traits[checkKey] = false;
  }
  if (allowExec && t.traits[execKey] !== false) {
    // Many files hash at once: more exec channels than the server's session limit leaves would be refused.
    const sha256 = await withExecSlot(t.traits, execSlotsFor(t.sftpChannels), () =>
      t.traits[execKey] === false ? Promise.resolve(null) : execSha256(t.client, path, size, length),
    );
    if (sha256) {
      t.traits[execKey] = true;
      return { sha256, method: 'exec' };
    }
    t.traits[execKey] = false;
  }
  // The caller who did not allow exec knows why; otherwise the server could not hash the file itself.
  const why = allowExec
    ? `${checkFile ? 'its check-file-name failed' : 'it offers no check-file-name extension'} and sha256sum over exec was refused or gave no hash`
    : undefined;
  if (!reread) return { sha256: '', method: 'reread', ...(why ? { why } : {}) };
  return {
    sha256: await rereadSha256(t.sftp, path, t.maxRead, length, onBytes),
    method: 'reread',
    ...(why ? { why } : {}),
  };
}

/** A remote file's SHA-256 and how it was obtained; `why` a re-read was needed (the server could not hash it). */
export interface RemoteHash {
  sha256: string;
  method: HashMethod;
  /**
   * For `reread` with exec allowed: why the server did not hash the file itself, e.g. "it offers no check-file-name
   * extension and sha256sum over exec was refused or gave no hash".
   */
  why?: string;
}
