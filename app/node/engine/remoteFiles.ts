/**
 * The file manager's remote operations over a site's pool, one request each (the recursive ones are
 * engine/remoteTree.ts, engine/remoteRemove.ts and engine/remoteChmod.ts): STAT with owner and group, MKDIR (with
 * parents), a move, a symlink, SETSTAT of a mode, statvfs. Requests go out on the first connection's channels in
 * turn, at most `inFlight` at once ({@link InFlight}).
 */
import { setMaxListeners } from 'node:events';
import path from 'node:path';
import { SluiceError, displayText, isSluiceError } from '../errors';
import type { ConnectionPool } from '../ssh/connectionPool';
import type { FsStats, RemoteStat, WorkerOps } from '../ssh/workerProtocol';
import { expandRemoteHome } from '../transfer/scan';

/** Requests one recursive operation keeps in flight by default, across folders (OpenSSH's sftp sends one). */
export const FILE_OPS_IN_FLIGHT = 64;

/**
 * A bound on requests in flight: `run` waits for a free slot; once `signal` fires nothing new starts and every
 * waiter rejects with ABORTED at once (answers still on their way are not waited for).
 */
export class InFlight {
  private used = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(
    readonly limit: number,
    private readonly signal?: AbortSignal,
  ) {
    // Each call in flight listens to the signal (ssh/connection.ts cancels it): past Node's 10, not a leak.
    if (signal) setMaxListeners(limit * 2 + 16, signal);
    signal?.addEventListener(
      'abort',
      () => {
        for (const w of this.waiters.splice(0)) w();
      },
      { once: true },
    );
  }

  /** Throws ABORTED once the signal fired. */
  check(): void {
    if (this.signal?.aborted) throw new SluiceError('ABORTED', 'cancelled');
  }

  /** Runs `fn` within a slot. @throws SluiceError ABORTED after the signal, else what `fn` throws */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    this.check();
    while (this.used >= this.limit) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
      this.check();
    }
    this.used++;
    try {
      return await fn();
    } finally {
      this.used--;
      this.waiters.shift()?.();
    }
  }
}

/** Rejects with ABORTED (`what` cancelled) as soon as `signal` fires, else settles as `p` does. */
export function unlessAborted<T>(p: Promise<T>, what: string, signal?: AbortSignal): Promise<T> {
  p.catch(() => undefined);
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new SluiceError('ABORTED', `${what} cancelled`));
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** `dir/name` for a remote path (POSIX, one `/` between). */
export function remoteChild(dir: string, name: string): string {
  return dir.endsWith('/') ? `${dir}${name}` : `${dir}/${name}`;
}

/** The remote file operations of one open engine. */
export class RemoteFiles {
  private next = 0;

  constructor(readonly pool: ConnectionPool) {}

  /** SFTP channels of the first connection (requests are spread over them). */
  private get channels(): number {
    return this.pool.connections[0]?.channels ?? 1;
  }

  /** Sends one worker operation on the next channel in turn. */
  call<K extends keyof WorkerOps>(op: K, arg: WorkerOps[K][0], signal?: AbortSignal): Promise<WorkerOps[K][1]> {
    const channel = this.next++ % this.channels;
    return this.pool.call(op, { ...arg, channel }, signal ? { signal } : undefined);
  }

  /** The SFTP extensions the server offered (name → version). */
  get extensions(): Record<string, string> {
    return this.pool.connections[0]?.info?.extensions ?? {};
  }

  /** `''`, `~` and `~/x` against the login folder (SSH_FXP_REALPATH of `.`); other paths as they are. */
  resolve(p: string): Promise<string> {
    return expandRemoteHome(this.pool, p);
  }

  /** STAT (LSTAT with `follow` false) with owner, group and access time; null when nothing is there. */
  stat(p: string, follow = true): Promise<RemoteStat | null> {
    return this.call('statLong', { path: p, follow });
  }

  /** SSH_FXP_READLINK: the target a symlink names, as stored. */
  readlink(p: string): Promise<string> {
    return this.call('readlink', { path: p });
  }

  /**
   * MKDIR, like mkdir(1): without `parents` an existing path is an error; with it, missing parents are made first and
   * an existing folder is fine.
   * @returns whether the folder was created (false: it existed, with `parents`)
   * @throws SluiceError EXISTS (a file there, or a folder without `parents`), the server's refusal naming the path
   */
  async mkdir(p: string, parents = false): Promise<boolean> {
    try {
      const done = await this.call('mkdir', { path: p });
      if (done === 'created') return true;
      if (parents) return false;
      throw new SluiceError('EXISTS', `cannot create folder ${displayText(p)}: it exists`);
    } catch (e) {
      if (!parents || !isSluiceError(e, 'NO_SUCH_FILE')) throw await this.existsReason(p, e);
    }
    const parent = path.posix.dirname(p);
    if (parent === p) throw new SluiceError('NO_SUCH_FILE', `cannot create folder ${displayText(p)}`);
    await this.mkdir(parent, true);
    return this.mkdir(p, true);
  }

  /** A file in the way of a MKDIR says so (the server's own failure is less clear: SSH_FX_FAILURE). */
  private async existsReason(p: string, e: unknown): Promise<unknown> {
    if (isSluiceError(e, 'EXISTS') || isSluiceError(e, 'NO_SUCH_FILE')) return e;
    const st = await this.stat(p, false).catch(() => null);
    if (st && st.type !== 'dir')
      return new SluiceError('EXISTS', `cannot create folder ${displayText(p)}: a ${kindName(st)} of that name exists`);
    return e;
  }

  /**
   * Moves `from` to `to` (a full target path). Without `force` an existing target is refused (SSH_FXP_RENAME's own
   * rule, draft-ietf-secsh-filexfer-02 §6.5); with it the target is replaced (posix-rename@openssh.com where offered,
   * else a sequence that never deletes the target first: ssh/worker/remoteOps.ts rename).
   * @throws SluiceError EXISTS, NO_SUCH_FILE, the server's refusal
   */
  async move(from: string, to: string, force = false): Promise<void> {
    try {
      await this.call('rename', { from, to, mode: force ? 'overwrite' : 'no-clobber' });
    } catch (e) {
      if (isSluiceError(e, 'EXISTS')) {
        throw new SluiceError(
          'EXISTS',
          `cannot move ${displayText(from)} to ${displayText(to)}: the target exists (use -f to replace it)`,
        );
      }
      // The worker's RENAME names the target; a missing source is the user's path to name.
      if (isSluiceError(e, 'NO_SUCH_FILE') && !(await this.stat(from, false).catch(() => true))) {
        throw new SluiceError('NO_SUCH_FILE', `cannot move ${displayText(from)}: no such file or folder`, { cause: e });
      }
      throw e;
    }
  }

  /**
   * SSH_FXP_SYMLINK: a link at `linkPath` naming `target` (as given). @throws SluiceError EXISTS when something is
   * there
   */
  async symlink(target: string, linkPath: string): Promise<void> {
    try {
      await this.call('symlink', { target, path: linkPath });
    } catch (e) {
      const st = await this.stat(linkPath, false).catch(() => null);
      if (st)
        throw new SluiceError(
          'EXISTS',
          `cannot create symlink ${displayText(linkPath)}: a ${kindName(st)} of that name exists`,
        );
      throw e;
    }
  }

  /** An empty file at `p` (SSH_FXP_OPEN CREAT|EXCL, CLOSE). @throws SluiceError EXISTS, the server's refusal */
  createFile(p: string): Promise<void> {
    return this.call('createFile', { path: p });
  }

  /** Whether the server copies files itself (`copy-data`, OpenSSH 9.0 and later). */
  get copiesData(): boolean {
    return this.extensions['copy-data'] === '1';
  }

  /** The server's copy of the file `from` as a new file `to` (`copy-data`). @throws SluiceError EXISTS, refusals */
  copyData(from: string, to: string): Promise<void> {
    return this.call('copyData', { from, to });
  }

  /** SSH_FXP_SETSTAT of the permission bits. */
  setMode(p: string, mode: number): Promise<void> {
    return this.call('setMode', { path: p, mode });
  }

  /** statvfs@openssh.com of the file system holding `p`. @throws SluiceError REMOTE_FAILURE where not offered */
  statvfs(p: string): Promise<FsStats> {
    return this.call('statvfs', { path: p });
  }
}

/** How a message names a type: file, folder, symlink, special file. */
export function kindName(st: Pick<RemoteStat, 'type'>): string {
  return st.type === 'dir'
    ? 'folder'
    : st.type === 'symlink'
      ? 'symlink'
      : st.type === 'file'
        ? 'file'
        : 'special file';
}
