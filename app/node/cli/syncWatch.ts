/**
 * `sluice sync --watch SRC sftp://…` (#27, keep up to date): after the first sync, the local folder is watched
 * (chokidar; a file is taken once its size stopped changing, awaitWriteFinish) and each change is applied on the
 * server as it settles: a file written is uploaded (times kept), a folder made is made, a path removed is removed
 * there only with `--delete`; a rename is a removal and a creation. A lost connection is reconnected with the CLI's
 * retry schedule (`--retries`, decorrelated jitter) and followed by a re-sync that catches up on whatever changed
 * meanwhile. The signal (Ctrl+C) stops it at once and says which changes were still pending.
 */
import fs from 'node:fs';
import path from 'node:path';
import { watchFolder } from '../sync/watch';
import { DEFAULT_RETRY_POLICY, RetrySchedule, isTransient } from '../../common/retry';
import { displayText } from '../../common/displayText';
import { SluiceError } from '../errors';
import type { Engine } from '../engine/engine';
import { compileFilters, type FilterRule } from '../sync/filters';
import { listLocalTree } from '../sync/localListing';
import { listRemoteTree, type RemoteLister } from '../sync/remoteListing';
import { planSync } from '../sync/plan';
import { isTempName } from '../sync/twoWay';
import { waitFor } from './retry';
import { formatBytes, plural } from './units';

/** How long events are gathered before they are applied (ms); a file settles first (sync/watch.ts SETTLE_MS). */
const GATHER_MS = 100;

/** What the watch needs from `sluice sync`. */
export interface WatchInput {
  engine: Engine;
  /** Opens a new engine (a reconnect: the host key checked again). */
  connect(): Promise<Engine>;
  listerOf(engine: Engine): RemoteLister;
  /** Absolute; the remote one with `~` expanded. */
  localRoot: string;
  remoteRoot: string;
  rules: FilterRule[];
  delete?: boolean;
  sizeOnly?: boolean;
  modifyWindow?: number;
  /** `--retries`: tries in all per lost connection. */
  retries?: number;
  signal: AbortSignal;
  /** Where the lines go (default stderr). */
  say?(line: string): void;
}

type Change = 'write' | 'remove';

/** The watch: pending changes, the engine of the moment, the one worker applying them. */
class Watch {
  private engine: Engine;
  private readonly pending = new Map<string, Change>();
  private readonly working = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private readonly filter;
  private failed: ((e: unknown) => void) | undefined;

  constructor(private readonly input: WatchInput) {
    this.engine = input.engine;
    this.filter = compileFilters(input.rules);
  }

  say(line: string): void {
    (this.input.say ?? ((l: string) => process.stderr.write(`${l}\n`)))(`sluice: watch: ${line}`);
  }

  /** The engine in use (the caller closes the last one). */
  get current(): Engine {
    return this.engine;
  }

  /** Paths changed and not yet applied (or being applied), sorted. */
  pendingPaths(): string[] {
    return [...new Set([...this.working, ...this.pending.keys()])].sort();
  }

  /** Records one watcher event (a path below the root) and schedules the worker. */
  note(event: string, full: string): void {
    const rel = path.relative(this.input.localRoot, full).split(path.sep).join('/');
    if (rel === '' || rel.startsWith('..') || isTempName(rel)) return;
    const dir = event === 'addDir' || event === 'unlinkDir';
    if (!this.filter.includes(rel, dir)) return;
    this.pending.set(rel, event === 'unlink' || event === 'unlinkDir' ? 'remove' : 'write');
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.kick(), GATHER_MS);
  }

  /** Runs the worker after the one running now; a fatal failure (no reconnect) ends the watch. */
  kick(): void {
    this.running = this.running.then(() => this.drain()).catch((e: unknown) => this.failed?.(e));
  }

  /** Resolves never; rejects when the watch cannot go on. */
  failure(): Promise<never> {
    return new Promise((_, reject) => (this.failed = reject));
  }

  private remote(rel: string): string {
    return path.posix.join(this.input.remoteRoot, rel);
  }

  /** Applies what is pending, in path order (a folder before what is in it); reconnects on a lost connection. */
  private async drain(): Promise<void> {
    while (this.pending.size && !this.input.signal.aborted) {
      const batch = [...this.pending].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      this.pending.clear();
      for (const [rel] of batch) this.working.add(rel);
      try {
        for (const [rel, change] of batch) {
          await this.apply(rel, change);
          this.working.delete(rel);
        }
      } catch (e) {
        const err = SluiceError.from(e);
        if (!isTransient(err.code)) throw err;
        await this.reconnect(err);
      } finally {
        this.working.clear();
      }
    }
  }

  /** One change, as the local folder has it now. @throws transient errors (the caller reconnects) */
  private async apply(rel: string, change: Change): Promise<void> {
    const full = path.join(this.input.localRoot, ...rel.split('/'));
    const st = await fs.promises.lstat(full).catch(() => null);
    try {
      if (st?.isDirectory()) await this.mkdirs(rel, true);
      else if (st?.isFile()) await this.upload(rel, full, st.size, Math.trunc(st.mtimeMs));
      else if (!st && change === 'remove') await this.removeRemote(rel);
    } catch (e) {
      const err = SluiceError.from(e);
      if (isTransient(err.code) || err.code === 'ABORTED') throw err;
      this.say(`cannot apply ${displayText(rel)}: ${err.message}`);
    }
  }

  /** Makes `rel` (when `self`) and its parents on the server. */
  private async mkdirs(rel: string, self: boolean): Promise<void> {
    const names = rel.split('/');
    for (let i = 1; i <= names.length - (self ? 0 : 1); i++) {
      const made = await this.engine.mkdir(this.remote(names.slice(0, i).join('/')));
      if (made === 'created') this.say(`created ${displayText(names.slice(0, i).join('/'))}/`);
    }
  }

  private async upload(rel: string, full: string, size: number, mtimeMs: number): Promise<void> {
    await this.mkdirs(rel, false);
    const report = await this.engine.transfer(
      {
        id: `watch-${rel}`,
        direction: 'put',
        sources: [full],
        dest: path.posix.dirname(this.remote(rel)),
        recursive: false,
        files: [{ src: full, dst: this.remote(rel), size, mtimeMs }],
        conflict: 'overwrite',
        preserveTimes: true,
      },
      { signal: this.input.signal },
    );
    const f = report.failed[0];
    if (f) throw new SluiceError(f.code as never, f.message);
    this.say(`uploaded ${displayText(rel)} (${formatBytes(size)})`);
  }

  private async removeRemote(rel: string): Promise<void> {
    if (!this.input.delete) {
      this.say(`${displayText(rel)} removed here, kept on the server (--delete removes it)`);
      return;
    }
    const st = await this.engine.stat(this.remote(rel));
    if (!st) return;
    await this.engine.remove(this.remote(rel), st.type === 'dir');
    this.say(`deleted ${displayText(rel)}${st.type === 'dir' ? '/' : ''}`);
  }

  /** Reconnects within the retry schedule, then catches up. @throws the last failure when no try is left */
  private async reconnect(lost: SluiceError): Promise<void> {
    this.say(`connection lost (${lost.message}); reconnecting`);
    await this.engine.close().catch(() => undefined);
    const tries = Math.max(1, this.input.retries ?? DEFAULT_RETRY_POLICY.tries);
    const schedule = new RetrySchedule({ ...DEFAULT_RETRY_POLICY, tries: tries + 1 });
    let code = lost.code;
    for (;;) {
      const d = schedule.next(code);
      if (!d.retry) throw new SluiceError(lost.code, `watch stopped: cannot reconnect (${lost.message})`);
      await waitFor(d.delayMs, this.input.signal);
      try {
        this.engine = await this.input.connect();
        break;
      } catch (e) {
        code = SluiceError.from(e).code;
      }
    }
    this.say('reconnected: catching up');
    await this.catchUp();
  }

  /** A re-sync: both sides listed and planned as `sluice sync` does, each difference applied as a change. */
  async catchUp(): Promise<void> {
    const limits = { filter: this.filter, signal: this.input.signal };
    const [local, remote] = await Promise.all([
      listLocalTree(this.input.localRoot, limits),
      listRemoteTree(this.input.listerOf(this.engine), this.input.remoteRoot, { ...limits, concurrency: 64 }),
    ]);
    const plan = planSync(local, remote, {
      delete: this.input.delete,
      sizeOnly: this.input.sizeOnly,
      modifyWindowMs: this.input.modifyWindow,
    });
    for (const it of plan.items) {
      if (isTempName(it.path)) continue;
      if (it.action === 'create' || it.action === 'update') this.pending.set(it.path, 'write');
      else if (it.action === 'delete') this.pending.set(it.path, 'remove');
    }
  }
}

/**
 * Watches `localRoot` and keeps `remoteRoot` up to date until `signal` fires (see the module comment).
 * @returns never normally: ends by throwing
 * @throws SluiceError ABORTED when `signal` fires (after saying what was pending), the connection's error when no
 *   reconnect succeeded within `--retries`
 */
export async function watchAndUpload(input: WatchInput): Promise<Engine> {
  const w = new Watch(input);
  let watchError: (e: Error) => void = () => undefined;
  const watcher = watchFolder(
    input.localRoot,
    (event, p) => w.note(event, p),
    (e) => watchError(e),
  );
  const broken = new Promise<never>(
    (_, reject) =>
      (watchError = (e) => reject(new SluiceError('LOCAL_IO', `watching ${input.localRoot}: ${e.message}`))),
  );
  broken.catch(() => undefined);
  const stopped = new Promise<never>((_, reject) => {
    const stop = (): void => reject(new SluiceError('ABORTED', 'watch stopped'));
    if (input.signal.aborted) stop();
    input.signal.addEventListener('abort', stop, { once: true });
  });
  try {
    await Promise.race([watcher.ready, stopped]);
    // What changed while the first sync ran: caught up once the watcher sees every later change.
    await Promise.race([w.catchUp(), stopped]);
    w.kick();
    w.say(`watching ${displayText(input.localRoot)} (Ctrl+C stops)`);
    await Promise.race([stopped, w.failure(), broken]);
    return w.current;
  } catch (e) {
    if (input.signal.aborted) {
      const left = w.pendingPaths();
      w.say(
        left.length
          ? `stopped; ${plural(left.length, 'change')} not applied: ${left
              .slice(0, 5)
              .map((p) => displayText(p))
              .join(', ')}${left.length > 5 ? ', …' : ''}`
          : 'stopped; nothing pending',
      );
    }
    throw e;
  } finally {
    await watcher.close();
    await w.current.close().catch(() => undefined);
  }
}
