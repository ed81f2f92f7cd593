/**
 * chmod of remote files by SSH_FXP_SETSTAT (draft-ietf-secsh-filexfer-02 §6.9), and `chmod -R`: a tree changed with
 * many requests in flight across its folders (OpenSSH's sftp sends one at a time). Symlinks met inside the tree are
 * left alone, as chmod -R does (a SETSTAT would change what they point to); a symlink named as the operand is
 * followed, as chmod(1) does.
 *
 * Order: a folder is listed before its own mode changes (so a MODE taking away r or x from folders still reaches
 * what is inside), except when it cannot be listed: then its mode changes first and it is listed again (so a MODE
 * giving r and x back reaches inside too).
 */
import type { ModeChange } from '../../common/fileMode';
import { SluiceError, displayText, isSluiceError } from '../errors';
import type { RemoteEntry, RemoteStat } from '../ssh/workerProtocol';
import { FILE_OPS_IN_FLIGHT, InFlight, RemoteFiles, remoteChild, unlessAborted } from './remoteFiles';

export interface ChmodOutcome {
  /** SETSTATs sent and answered OK. */
  changed: number;
  /** Entries whose mode was already the one asked for (no request sent). */
  unchanged: number;
  /** Symlinks inside the tree, left alone. */
  links: number;
  failed: SluiceError[];
}

export interface ChmodOptions {
  recursive?: boolean;
  inFlight?: number;
  signal?: AbortSignal;
  /** Each path changed, with its old and new bits (`sluice chmod -v`). */
  onChanged?: (path: string, from: number, to: number) => void;
}

class ModeWalk {
  readonly outcome: ChmodOutcome = { changed: 0, unchanged: 0, links: 0, failed: [] };
  private readonly slots: InFlight;

  constructor(
    private readonly files: RemoteFiles,
    private readonly change: ModeChange,
    private readonly o: ChmodOptions,
  ) {
    this.slots = new InFlight(o.inFlight ?? FILE_OPS_IN_FLIGHT, o.signal);
  }

  private fail(e: unknown): void {
    const err = SluiceError.from(e);
    if (err.code === 'ABORTED') throw err;
    this.outcome.failed.push(err);
  }

  /** SETSTAT of one path, unless its mode is already the one asked for. */
  async one(p: string, st: Pick<RemoteStat, 'mode' | 'type'>): Promise<void> {
    const to = this.change(st.mode, st.type === 'dir');
    if (to === (st.mode & 0o7777)) {
      this.outcome.unchanged++;
      return;
    }
    try {
      await this.slots.run(() => this.files.setMode(p, to));
      this.outcome.changed++;
      this.o.onChanged?.(p, st.mode & 0o7777, to);
    } catch (e) {
      this.fail(e);
    }
  }

  /** Lists `dir`, starting each entry's change as its name arrives. */
  private async listInto(dir: string, started: Array<Promise<void>>): Promise<void> {
    await this.slots.run(() =>
      this.files.pool.call(
        'listEach',
        { path: dir },
        {
          signal: this.o.signal,
          onItems: (batch) => {
            for (const e of batch as RemoteEntry[]) started.push(this.entry(remoteChild(dir, e.name), e));
          },
        },
      ),
    );
  }

  private entry(p: string, e: RemoteEntry): Promise<void> {
    if (e.type === 'symlink') {
      this.outcome.links++;
      return Promise.resolve();
    }
    return e.type === 'dir' ? this.folder(p, e) : this.one(p, e);
  }

  /** A folder and everything below it. */
  async folder(dir: string, st: Pick<RemoteStat, 'mode' | 'type'>): Promise<void> {
    const started: Array<Promise<void>> = [];
    let ownDone = false;
    try {
      await this.listInto(dir, started);
    } catch (e) {
      if (!isSluiceError(e, 'PERMISSION_DENIED') || started.length) {
        await Promise.all(started);
        return this.fail(e);
      }
      await this.one(dir, st);
      ownDone = true;
      try {
        await this.listInto(dir, started);
      } catch (again) {
        this.fail(again);
      }
    }
    if (!ownDone) started.push(this.one(dir, st));
    await Promise.all(started);
  }
}

/**
 * Changes the mode of `p` (following a symlink), and with `recursive` of everything below a folder.
 * @returns the outcome: failures are collected, not thrown (each names its path and the server's text)
 * @throws SluiceError NO_SUCH_FILE when `p` does not exist; ABORTED at once when `o.signal` fires
 */
export async function chmodRemote(
  files: RemoteFiles,
  p: string,
  change: ModeChange,
  o: ChmodOptions = {},
): Promise<ChmodOutcome> {
  const st = await files.stat(p, true);
  if (!st) throw new SluiceError('NO_SUCH_FILE', `cannot change the mode of ${displayText(p)}: no such file or folder`);
  const walk = new ModeWalk(files, change, o);
  const run = o.recursive && st.type === 'dir' ? walk.folder(p, st) : walk.one(p, st);
  return unlessAborted(
    run.then(() => walk.outcome),
    'chmod',
    o.signal,
  );
}
