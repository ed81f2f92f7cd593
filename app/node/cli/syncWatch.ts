/**
 * `sluice sync --watch SRC sftp://…` (#27, keep up to date): after the first sync, the local folder is kept up to date
 * on the server by sync/keepUp.ts (a file written is uploaded as it settles, a folder made is made, a rename is one
 * remote rename with `--delete`, a path removed is removed there only with `--delete`); this module says each change
 * on a line and brings the connection back: a lost one is reconnected with the CLI's retry schedule (`--retries`,
 * decorrelated jitter), and keep-up then catches up with a re-sync. The signal (Ctrl+C) stops it at once and says
 * which changes were still pending.
 */
import { DEFAULT_RETRY_POLICY, RetrySchedule } from '../../common/retry';
import { displayText } from '../../common/displayText';
import { SluiceError } from '../errors';
import type { Engine } from '../engine/engine';
import type { FilterRule } from '../sync/filters';
import type { RemoteLister } from '../sync/remoteListing';
import { startKeepUp, type KeepUpEvent } from '../sync/keepUp';
import { waitFor } from './retry';
import { formatBytes, plural } from './units';

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

/** One line per keep-up event (paths escaped: names are untrusted). */
function lineOf(e: KeepUpEvent, localRoot: string): string {
  const t = (p: string): string => displayText(p);
  switch (e.type) {
    case 'watching':
      return `watching ${t(localRoot)} (Ctrl+C stops)`;
    case 'created':
      return `created ${t(e.path)}/`;
    case 'uploaded':
      return `uploaded ${t(e.path)} (${formatBytes(e.bytes)})`;
    case 'renamed':
      return `renamed ${t(e.from)}${e.dir ? '/' : ''} -> ${t(e.path)}${e.dir ? '/' : ''}`;
    case 'deleted':
      return `deleted ${t(e.path)}${e.dir ? '/' : ''}`;
    case 'kept':
      return `${t(e.path)} removed here, kept on the server (--delete removes it)`;
    case 'failed':
      return `cannot ${e.op} ${t(e.path)}: ${t(e.message)}`;
    case 'lost':
      return `connection lost (${t(e.message)}); reconnecting`;
    case 'reconnected':
      return 'reconnected: catching up';
  }
}

/** Closes the lost engine and opens another within the retry schedule. @throws the last failure when none is left */
async function reopen(input: WatchInput, lost: SluiceError, engine: Engine): Promise<Engine> {
  await engine.close().catch(() => undefined);
  const tries = Math.max(1, input.retries ?? DEFAULT_RETRY_POLICY.tries);
  const schedule = new RetrySchedule({ ...DEFAULT_RETRY_POLICY, tries: tries + 1 });
  let code = lost.code;
  for (;;) {
    const d = schedule.next(code);
    if (!d.retry) throw new SluiceError(lost.code, `watch stopped: cannot reconnect (${lost.message})`);
    await waitFor(d.delayMs, input.signal);
    try {
      return await input.connect();
    } catch (e) {
      code = SluiceError.from(e).code;
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
  let engine = input.engine;
  const say = (line: string): void =>
    (input.say ?? ((l: string) => process.stderr.write(`${l}\n`)))(`sluice: watch: ${line}`);
  const run = startKeepUp({
    ...input,
    target: async () => ({ engine, lister: input.listerOf(engine) }),
    reconnect: async (lost) => {
      engine = await reopen(input, lost, engine);
    },
    onEvent: (e) => say(lineOf(e, input.localRoot)),
  });
  try {
    return await run.done;
  } catch (e) {
    if (input.signal.aborted) {
      const left = run.pendingPaths();
      say(
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
    await engine.close().catch(() => undefined);
  }
}
