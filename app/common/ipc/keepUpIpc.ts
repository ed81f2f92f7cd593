/**
 * Keep remote up to date's channels (#27, the app side; WinSCP's "Keep remote directory up to date"): `keepUp.start`
 * (the local pane's folder watched by the service and each change uploaded to the remote folder as it settles, the
 * same code as `sluice sync --watch`: app/node/sync/keepUp.ts), `keepUp.stop` and `keepUp.list`; the state of each
 * comes as the `keepUp.changed` event. Spread into the contract through syncIpc.ts.
 */
import { z } from 'zod';

const id = z.string().min(1).max(200);
const path = z.string().min(1).max(4096);

export const keepUpStartSchema = z.strictObject({
  siteId: id,
  /** The local folder watched (one keep-up per folder). */
  localPath: path,
  /** The remote folder kept like it (`~` is the login folder). */
  remotePath: path,
  /** Remove on the server what is removed here (and rename there what is renamed here). */
  delete: z.boolean(),
  /** `--include` / `--exclude` globs in order, first match wins (sync/filters.ts), as in Synchronize…. */
  rules: z
    .array(z.strictObject({ kind: z.enum(['include', 'exclude']), pattern: z.string().min(1).max(4096) }))
    .max(200),
  /** First make the remote folder like the local one (upload what differs; with `delete`, remove what it lacks). */
  syncFirst: z.boolean(),
});

/** Stops a keep-up (a failed one's line is dismissed). */
export const keepUpStopSchema = z.strictObject({ keepUpId: id });

/** Where a keep-up stands. */
export type KeepUpState = 'starting' | 'watching' | 'reconnecting' | 'failed' | 'stopped';

/** The last change applied on the server (paths relative to both folders, `/`-separated, untrusted: shown escaped). */
export interface KeepUpChange {
  what: 'uploaded' | 'created' | 'renamed' | 'deleted' | 'kept';
  path: string;
  /** A rename's old name. */
  from?: string;
  /** ms since the epoch. */
  at: number;
}

/** One keep-up as the status bar shows it. */
export interface KeepUpView {
  keepUpId: string;
  siteId: string;
  localRoot: string;
  /** Resolved (no `~`). */
  remoteRoot: string;
  delete: boolean;
  state: KeepUpState;
  /** Files uploaded, removed and renamed on the server since it started. */
  uploaded: number;
  deleted: number;
  renamed: number;
  /** Bytes uploaded. */
  bytes: number;
  last?: KeepUpChange;
  /**
   * The last failure: the operation, the user's path (the local one) and the server's or the disk's message; with
   * state `failed` it ended the keep-up, else one change failed and it goes on.
   */
  error?: { op: string; path: string; message: string };
}

/** Keep-up's channels, spread into the contract's invoke schemas (through syncIpc.ts). */
export const keepUpInvokeSchemas = {
  'keepUp.start': keepUpStartSchema,
  'keepUp.stop': keepUpStopSchema,
  'keepUp.list': z.undefined(),
} as const;

/** What keep-up's channels answer. */
export interface KeepUpResponses {
  /** Answers once the folder is watched (and, with `syncFirst`, the differences are planned). */
  'keepUp.start': KeepUpView;
  /** Whether one was running. */
  'keepUp.stop': boolean;
  'keepUp.list': KeepUpView[];
}

/** Keep-up's event: a keep-up's new state (a `stopped` one is gone from `keepUp.list`). */
export interface KeepUpEvents {
  'keepUp.changed': KeepUpView;
}

/** The event names of {@link KeepUpEvents}, for the contract's record of every event. */
export const KEEP_UP_EVENT_NAMES: { readonly [E in keyof KeepUpEvents]: true } = { 'keepUp.changed': true };
