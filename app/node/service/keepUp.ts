/**
 * The service's side of Keep remote up to date (#27; WinSCP's "Keep remote directory up to date"): `keepUp.start`
 * watches a local folder and keeps a remote folder of a connected site like it with sync/keepUp.ts (the code of
 * `sluice sync --watch`), each upload an engine transfer on the site's session as `--watch` makes it (overwrite, times
 * kept; one file at a time, so they stay out of the queue's batches). One keep-up per local folder. Its state goes to
 * the window as `keepUp.changed` (counts coalesced to ~10 a second): watching, `reconnecting` while the site's
 * session comes back (then a re-sync catches up), a change that failed (the operation, the local path, the server's
 * message), `failed` when it cannot go on, `stopped` by `keepUp.stop`, the site's disconnect or the service closing.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { InvokeRequests, InvokeResponses } from '../../common/ipc/contract';
import type { KeepUpEvent } from '../sync/keepUp';
import type { KeepUpView } from '../../common/ipc/keepUpIpc';
import { isTransient } from '../../common/retry';
import { listerOf, type Engine } from '../engine/engine';
import { SluiceError, fromLocalError } from '../errors';
import { startKeepUp, type KeepUpRun } from '../sync/keepUp';
import { expandRemoteHome } from '../transfer/scan';
import type { ServiceHub } from './hub';
import type { SiteSessions } from './sessions';

/** How often a keep-up's counts are sent at most (ms); a new state goes at once. */
const EMIT_MS = 100;
/** Rounds of a request tried again on the site's session after a lost connection before keep-up gives up. */
const RECONNECT_ROUNDS = 3;

type Sessions = Pick<SiteSessions, 'engineFor' | 'browse' | 'get'>;

interface Entry {
  view: KeepUpView;
  /** The local folder's real path: one keep-up per folder. */
  real: string;
  controller: AbortController;
  run?: KeepUpRun;
  timer?: NodeJS.Timeout;
}

let made = 0;

/** The running keep-ups of the service. */
export class KeepUps {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly hub: ServiceHub,
    private readonly sessions: Sessions,
  ) {}

  list(): KeepUpView[] {
    return [...this.entries.values()].map((e) => ({ ...e.view }));
  }

  /**
   * Starts one; answers once the folder is watched (with `syncFirst`, the differences are planned and being applied).
   * @throws SluiceError USAGE (not a folder), NO_SUCH_FILE, INVALID_STATE (the folder is kept up to date already),
   *   NOT_CONNECTED, the server's error for the remote folder
   */
  async start(req: InvokeRequests['keepUp.start']): Promise<KeepUpView> {
    const localRoot = path.resolve(req.localPath);
    const real = await localFolder(localRoot);
    const other = [...this.entries.values()].find((e) => e.real === real && e.view.state !== 'failed');
    if (other)
      throw new SluiceError(
        'INVALID_STATE',
        `${localRoot} is already kept up to date (to ${other.view.remoteRoot}): stop that one first`,
      );
    const remoteRoot = await this.sessions.browse(req.siteId, (e) => remoteFolder(e, req.remotePath));
    const keepUpId = `keepup-${Date.now()}-${++made}`;
    const entry: Entry = {
      view: {
        keepUpId,
        siteId: req.siteId,
        localRoot,
        remoteRoot,
        delete: req.delete,
        state: 'starting',
        uploaded: 0,
        deleted: 0,
        renamed: 0,
        bytes: 0,
      },
      real,
      controller: new AbortController(),
    };
    this.entries.set(keepUpId, entry);
    this.send(entry, true);
    entry.run = startKeepUp({
      localRoot,
      remoteRoot,
      rules: req.rules,
      delete: req.delete,
      catchUp: req.syncFirst,
      signal: entry.controller.signal,
      target: async () => {
        const engine = await this.sessions.engineFor(req.siteId);
        return { engine, lister: listerOf(engine) };
      },
      reconnect: (lost) => this.backAfter(req.siteId, remoteRoot, lost, entry.controller.signal),
      onEvent: (e) => this.heard(entry, e),
    });
    void entry.run.done.catch((e: unknown) => this.ended(entry, SluiceError.from(e)));
    try {
      await entry.run.ready;
    } catch (e) {
      this.entries.delete(keepUpId);
      throw e;
    }
    return { ...entry.view };
  }

  /** Stops one (a failed one's line goes). @returns whether there was one */
  stop(keepUpId: string): boolean {
    const entry = this.entries.get(keepUpId);
    if (!entry) return false;
    if (entry.view.state === 'failed') this.finish(entry, 'stopped');
    else entry.controller.abort();
    return true;
  }

  /** The site lost every connection: its keep-ups say `reconnecting` (the session comes back by itself). */
  siteLost(siteId: string): void {
    for (const e of this.of(siteId)) this.setState(e, 'reconnecting');
  }

  /** The site is back: its keep-ups watch again (what failed meanwhile is caught up by a re-sync). */
  siteBack(siteId: string): void {
    for (const e of this.of(siteId)) if (e.view.state === 'reconnecting') this.setState(e, 'watching');
  }

  /** The site disconnects (the user, or a reconnect gave up): its keep-ups stop, or fail with the session's error. */
  siteGone(siteId: string): void {
    const status = this.sessions.get(siteId)?.status;
    for (const e of this.of(siteId)) {
      if (status?.state === 'failed' && status.error) {
        e.view.error = { op: 'reconnect', path: e.view.localRoot, message: status.error.message };
        this.finish(e, 'failed');
      }
      e.controller.abort();
    }
  }

  /** Stops every keep-up and waits for their watchers to close (the service closing). */
  async stopAll(): Promise<void> {
    const runs = [...this.entries.values()].map((e) => {
      e.controller.abort();
      return e.run?.done.catch(() => undefined);
    });
    await Promise.all(runs);
  }

  private of(siteId: string): Entry[] {
    return [...this.entries.values()].filter((e) => e.view.siteId === siteId && e.view.state !== 'failed');
  }

  /** Waits for the site's session to serve again (it reconnects by itself). @throws when it does not come back */
  private async backAfter(siteId: string, remoteRoot: string, lost: SluiceError, signal: AbortSignal): Promise<void> {
    let last: unknown = lost;
    for (let round = 0; round < RECONNECT_ROUNDS && !signal.aborted; round++) {
      try {
        await this.sessions.browse(siteId, (e) => e.stat(remoteRoot));
        return;
      } catch (e) {
        last = e;
        if (!isTransient(SluiceError.from(e).code)) break;
      }
    }
    throw last;
  }

  private heard(entry: Entry, e: KeepUpEvent): void {
    const v = entry.view;
    const at = this.hub.clock();
    const local = (rel: string): string => path.join(v.localRoot, ...rel.split('/'));
    switch (e.type) {
      case 'watching':
        return this.setState(entry, 'watching');
      case 'lost':
        this.hub.log('warn', `Keep up to date ${v.localRoot}: connection lost (${e.message}); reconnecting`, v.siteId);
        return this.setState(entry, 'reconnecting');
      case 'reconnected':
        this.hub.log('info', `Keep up to date ${v.localRoot}: reconnected, catching up`, v.siteId);
        return this.setState(entry, 'watching');
      case 'failed':
        v.error = { op: e.op, path: local(e.path), message: e.message };
        this.hub.log('error', `Keep up to date: cannot ${e.op} ${local(e.path)}: ${e.message}`, v.siteId);
        return this.send(entry, true);
      case 'uploaded':
        v.uploaded++;
        v.bytes += e.bytes;
        break;
      case 'deleted':
        v.deleted++;
        break;
      case 'renamed':
        v.renamed++;
        break;
    }
    v.last = { what: e.type, path: e.path, ...(e.type === 'renamed' ? { from: e.from } : {}), at };
    this.send(entry, false);
  }

  /** The run ended: stopped (its signal), else failed with why. */
  private ended(entry: Entry, e: SluiceError): void {
    if (entry.controller.signal.aborted || e.code === 'ABORTED') {
      if (entry.view.state !== 'failed') this.finish(entry, 'stopped');
      return;
    }
    entry.view.error = { op: 'keep up to date', path: entry.view.localRoot, message: e.message };
    this.hub.log('error', `Keep up to date ${entry.view.localRoot} stopped: ${e.message}`, entry.view.siteId);
    this.finish(entry, 'failed');
  }

  /** A keep-up ends: a stopped one leaves the list, a failed one stays until stopped (dismissed). */
  private finish(entry: Entry, state: 'stopped' | 'failed'): void {
    if (state === 'stopped') this.entries.delete(entry.view.keepUpId);
    this.setState(entry, state);
  }

  private setState(entry: Entry, state: KeepUpView['state']): void {
    if (entry.view.state === state || entry.view.state === 'stopped') return;
    entry.view.state = state;
    this.send(entry, true);
  }

  /** Sends the view: at once, or within {@link EMIT_MS} with what else changed by then. */
  private send(entry: Entry, now: boolean): void {
    if (!now) {
      entry.timer ??= setTimeout(() => this.send(entry, true), EMIT_MS);
      return;
    }
    clearTimeout(entry.timer);
    entry.timer = undefined;
    this.hub.emit('keepUp.changed', { ...entry.view });
  }
}

/** The local folder's real path. @throws SluiceError USAGE when it is not a folder, the disk's error */
async function localFolder(p: string): Promise<string> {
  const st = await fs.promises.stat(p).catch((e: unknown) => {
    throw fromLocalError(e, p);
  });
  if (!st.isDirectory()) throw new SluiceError('USAGE', `${p} is not a folder (keep up to date watches a folder)`);
  return fs.promises.realpath(p);
}

/** The remote folder resolved (`~`), made when missing. @throws SluiceError USAGE when it is a file */
async function remoteFolder(engine: Engine, p: string): Promise<string> {
  const root = await expandRemoteHome(engine, p);
  const st = await engine.stat(root);
  if (st && st.type !== 'dir') throw new SluiceError('USAGE', `${root} on the server is not a folder`);
  if (!st) await engine.mkdir(root);
  return root;
}

type KeepUpChannel = 'keepUp.start' | 'keepUp.stop' | 'keepUp.list';

/** The service's `keepUp.*` channels. */
export function keepUpHandlers(keepUps: KeepUps): {
  [C in KeepUpChannel]: (req: InvokeRequests[C]) => Promise<InvokeResponses[C]>;
} {
  return {
    'keepUp.start': (req) => keepUps.start(req),
    'keepUp.stop': async ({ keepUpId }) => keepUps.stop(keepUpId),
    'keepUp.list': async () => keepUps.list(),
  };
}
