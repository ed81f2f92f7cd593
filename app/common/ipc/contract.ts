/**
 * The IPC contract between the renderer and the engine: every invocation channel with its request
 * validator and response type, every event with its payload type, and the `Bridge` interface derived
 * from them (implemented by main/preload/preload.ts, the e2e WebSocket harness and renderer fakes).
 *
 * Invocations answer `Result<T>` (app/common/ipc/result.ts): errors cross IPC as data.
 * Requests are validated at the boundary (main/ipc/validatedIpc.ts) with the zod schemas below.
 * Secrets: a password or passphrase travels renderer -> engine only (sites.save, session.connect, auth.answer); no
 * response or event carries one (an import preview says only whether a source holds one; `sites.export` writes them
 * to a file only when asked).
 */
import { z } from 'zod';
import type { Result } from './result';
import type { Job } from '../model/job';
import type { Site } from '../model/site';
import type { AlgorithmCatalog } from '../algorithms';
import type { SiteTestReport } from '../model/siteTest';
import {
  exportSchema,
  importPreviewSchema,
  importSchema,
  type ExportResult,
  type ImportPreview,
  type ImportResult,
} from '../model/siteImport';
import { siteInputSchema } from './siteInput';
import { remoteChmodSchema, remoteStatSchema, type ChmodReport, type RemoteProps } from './remoteProps';
import { fileOpSchemas, type FileOpResponses } from './fileOps';
import { SYNC_EVENT_NAMES, syncInvokeSchemas, type SyncEvents, type SyncResponses } from './syncIpc';
import { bookmarkInvokeSchemas, type BookmarkResponses } from './bookmarks';
import { findInvokeSchemas, type FindHits, type FindResponses } from './find';
import type { QueueFile } from '../queue/files';
import type { QueueEvent } from '../queue/reducer';
import type { LogLine, ProgressSample, SessionStatus } from './status';
import type { AuthPrompt, HostKeyPrompt, HostKeysLearned, KnownHostEntry } from './prompts';
import type { AlgorithmsMeasurementView } from '../model/cipherSpeed';
import { CONFLICT_DEFAULTS } from '../model/transferDefaults';
import { EDIT_CHOICES, type EditView } from '../model/edit';
import { CONFLICT_CHOICES } from './payloads';
import type { Listing, SitesTree, QuickSite, Settings, ConflictPrompt } from './payloads';

export type { LogLine, PoolStatus, ProgressSample, SessionState, SessionStatus } from './status';
export type {
  AuthPrompt,
  HostKeyAnswer,
  HostKeyId,
  HostKeyPrompt,
  HostKeysLearned,
  KnownHostEntry,
  SavedHostKey,
} from './prompts';
export { CONFLICT_CHOICES } from './payloads';
export { siteInputSchema } from './siteInput';
export { CHMOD_SCOPES, type ChmodReport, type ChmodScope, type RemoteProps } from './remoteProps';
export type { SyncPreview, SyncPreviewItem, SyncRunResult } from './syncIpc';
export type {
  ConflictChoice,
  ConflictPrompt,
  FsEntry,
  IpcErrorCode,
  Listing,
  QuickSite,
  Settings,
  SitesTree,
  Theme,
} from './payloads';

// ---------------------------------------------------------------------------------------------
// Request validators
// ---------------------------------------------------------------------------------------------

const id = z.string().min(1).max(200);
const path = z.string().min(1).max(4096);
const folderPath = z.string().max(1024);
const none = z.undefined();
const siteRef = z.strictObject({ siteId: id });
const remotePath = z.strictObject({ siteId: id, path });
const localPath = z.strictObject({ path });
const jobRef = z.strictObject({ jobId: id });
/** A job intent aims at one job, or at every job of a batch (a row of the queue view) that accepts it. */
const jobOrBatch = z.union([jobRef, z.strictObject({ batchId: id })]);
/** A bulk intent aims at the whole queue, or at one site's jobs. */
const siteScope = z.strictObject({ siteId: id.optional() });

/**
 * Every invocation: name -> request validator. Response types are in {@link InvokeResponses}.
 * Adding a channel here without a response type (or vice versa) fails to compile.
 */
export const invokeSchemas = {
  'sites.list': none,
  /** Create (no id) or update a site. `password`: string = store, null = forget, absent = unchanged. */
  'sites.save': z.strictObject({ site: siteInputSchema, password: z.string().max(4096).nullable().optional() }),
  'sites.delete': siteRef,
  'sites.duplicate': siteRef,
  /** Reads and parses another program's sites (or a Sluice export), marks duplicates; saves nothing (issue #15). */
  'sites.importPreview': importPreviewSchema,
  /** Saves the picked candidates of a previewed source (same digest); their passwords go to the secret store. */
  'sites.import': importSchema,
  /** Writes the sites as Sluice JSON to a file (mode 0600), passwords only with `withPasswords`. */
  'sites.export': exportSchema,
  /**
   * Connects with a site form's settings (saved or not; `password` as in `sites.save`, else the stored one when `id`
   * names a saved site), host key and login asked as for `session.connect`, opens SFTP, reports and disconnects.
   * A failed connection is a report naming the step (not a failed Result).
   */
  /** `testId` (chosen by the caller) lets `sites.testCancel` stop the test. */
  'sites.test': z.strictObject({
    site: siteInputSchema,
    password: z.string().max(4096).optional(),
    testId: id.optional(),
  }),
  'sites.testCancel': z.strictObject({ testId: id }),
  /**
   * The quick-connect bar: `user@host:port`, an `sftp://` URL or a `~/.ssh/config` alias (read as the CLI reads its
   * operands, resolved through ssh_config) as an unsaved site to pass to `session.connect`. USAGE for an unreadable
   * one.
   */
  'sites.quick': z.strictObject({ target: z.string().max(2048) }),
  /**
   * The system's file dialog (Electron's, in the main process; the e2e harness stands in): a private key for the site
   * form's Browse…, starting in `defaultPath` (else ~/.ssh), hidden files shown. Answers the path, or null when
   * cancelled.
   */
  'dialog.openFile': z.strictObject({ purpose: z.enum(['keyFile']), defaultPath: path.optional() }),
  /** Per algorithm family: the names the engine supports, its default order, and the weak ones with their reason. */
  'algorithms.catalog': none,
  'folders.create': z.strictObject({ path: folderPath.min(1) }),
  /** Fails with FOLDER_NOT_EMPTY when a site or subfolder is inside. */
  'folders.delete': z.strictObject({ path: folderPath.min(1) }),

  /**
   * Opens (or reuses) the site's session; resolves once connected (an unknown host key is asked via
   * `hostKey.prompt` meanwhile, login questions via `auth.prompt`). `password` (password sites) is used for this
   * session only; without it the stored one is used, and with neither it is asked through `auth.prompt`. A session
   * that loses every connection reconnects by itself (state `reconnecting`); meanwhile this waits for it.
   */
  'session.connect': z.strictObject({ siteId: id, password: z.string().max(4096).optional() }),
  /** `transfers`: what happens to the site's running and queued jobs (default `pause`: they resume on reconnect). */
  'session.disconnect': z.strictObject({ siteId: id, transfers: z.enum(['pause', 'cancel']).optional() }),
  'session.list': none,
  /**
   * `accept-once` / `accept-save` only for an unknown key; `replace` / `add` only for a changed key (refused with
   * INVALID_STATE otherwise); `replace` needs `confirmHost` equal to the prompt's host (USAGE otherwise).
   */
  'hostKey.answer': z.strictObject({
    promptId: id,
    answer: z.enum(['accept-once', 'accept-save', 'reject', 'replace', 'add']),
    confirmHost: z.string().max(1024).optional(),
  }),
  /** Every key line of the known_hosts files Sluice reads, with first/last seen and the saved sites it matches. */
  'knownHosts.list': none,
  /** Removes one line of the file Sluice writes, if it still holds that key (INVALID_STATE otherwise). */
  'knownHosts.remove': z.strictObject({
    file: z.string().min(1).max(4096),
    line: z.number().int().min(1),
    fingerprint: z.string().min(1).max(200),
  }),
  /**
   * Answers an `auth.prompt`: one answer per prompt, in order; no `answers` cancels (the connect then fails
   * AUTH_FAILED, or goes on without the key for a passphrase). `remember` keeps a passphrase in the secret store.
   */
  'auth.answer': z.strictObject({
    promptId: id,
    answers: z.array(z.string().max(4096)).min(1).max(16).optional(),
    remember: z.boolean().optional(),
  }),

  'remote.list': remotePath,
  'remote.mkdir': remotePath,
  /** A rename or a move (#26 item 6); `overwrite` replaces an existing target (else EXISTS). */
  'remote.rename': z.strictObject({ siteId: id, from: path, to: path, overwrite: z.boolean().optional() }),
  'remote.remove': z.strictObject({ siteId: id, path, recursive: z.boolean().optional() }),
  /** The Properties dialog (#26 item 2): app/common/ipc/remoteProps.ts. */
  'remote.stat': remoteStatSchema,
  'remote.chmod': remoteChmodSchema,
  ...syncInvokeSchemas,
  ...findInvokeSchemas,
  ...bookmarkInvokeSchemas,

  'local.list': localPath,
  'local.mkdir': localPath,
  'local.rename': z.strictObject({ from: path, to: path, overwrite: z.boolean().optional() }),
  'local.remove': z.strictObject({ path, recursive: z.boolean().optional() }),
  'local.home': none,
  ...fileOpSchemas,

  /**
   * One job per source, all in one new batch (one engine transfer, one row of the queue view); sources are absolute
   * paths (local for upload, remote for download); dest is a folder.
   */
  'queue.enqueue': z.strictObject({
    siteId: id,
    direction: z.enum(['upload', 'download']),
    sources: z.array(path).min(1).max(100_000),
    dest: path,
  }),
  'queue.snapshot': none,
  /**
   * The job intents, for one job or for each job of a batch: accepted in the states app/common/queue/rules.ts allows
   * (for a batch: when one of its jobs accepts it), else refused with INVALID_STATE.
   */
  'queue.pause': jobOrBatch,
  'queue.resume': jobOrBatch,
  'queue.cancel': jobOrBatch,
  'queue.retry': jobOrBatch,
  /** Pause every queued or running job (of the site); refused (INVALID_STATE) when there is none. */
  'queue.pauseAll': siteScope,
  /** Resume every paused job (of the site). */
  'queue.resumeAll': siteScope,
  /** Retry every failed job (of the site); cancelled jobs stay cancelled. */
  'queue.retryFailed': siteScope,
  /** Moves a batch (with all its jobs) to the top, the bottom, or before another batch. */
  'queue.move': z.strictObject({
    batchId: id,
    to: z.union([z.enum(['top', 'bottom']), z.strictObject({ before: id })]),
  }),
  /** The files of a batch known so far (planned or ended), in the order they were found; at most `limit` (500). */
  'queue.files': z.strictObject({ batchId: id, limit: z.number().int().min(1).max(5000).optional() }),
  /** Removes done and cancelled jobs; refused (INVALID_STATE) when there are none. */
  'queue.clearFinished': none,
  'conflict.answer': z.strictObject({ promptId: id, choice: z.enum(CONFLICT_CHOICES), forAll: z.boolean() }),

  /**
   * Edit a remote file in a local editor (#26 item 1): downloads it through the queue into a private folder, opens it
   * (Settings' editor command, else the system's default application) and uploads each save; answers once opened.
   */
  'edit.open': remotePath,
  /** The "Open files" list: every edited file and where it stands. */
  'edit.list': none,
  /**
   * Settles a conflict (`overwrite`, `rename`: a free name beside it, `reopen`: the server's file) or retries a
   * failure.
   */
  'edit.resolve': z.strictObject({ editId: id, choice: z.enum(EDIT_CHOICES) }),
  /** Removes the private copy; INVALID_STATE while a save is not uploaded, unless `force`. */
  'edit.close': z.strictObject({ editId: id, force: z.boolean().optional() }),

  'settings.get': none,
  'settings.set': z.strictObject({
    theme: z.enum(['light', 'dark', 'system']).optional(),
    /** The command files open in for editing (`code -w`, `gvim -f {file}`); '' = the system's default application. */
    editorCommand: z.string().max(4096).optional(),
    allowInsecureSecretStorage: z.boolean().optional(),
    /** Bytes per second, 0 = none (at least 1 KiB/s otherwise). */
    speedLimit: z
      .number()
      .int()
      .min(0)
      .max(2 ** 40)
      .refine((n) => n === 0 || n >= 1024, 'a speed limit is 0 (none) or at least 1024 bytes/s')
      .optional(),
    layout: z
      .strictObject({
        bottomHeight: z.number().int().min(0).max(10_000),
        sideWidth: z.number().int().min(0).max(10_000),
        graphShare: z.number().min(0.1).max(0.9),
        graphCollapsed: z.boolean(),
        logCollapsed: z.boolean(),
      })
      .optional(),
    transfers: z
      .strictObject({
        connections: z.number().int().min(1).max(16).nullable(),
        channels: z.number().int().min(1).max(8).nullable(),
        conflict: z.enum(CONFLICT_DEFAULTS),
        verify: z.enum(['size', 'sha256']),
        preserveTimes: z.boolean(),
        preservePermissions: z.boolean(),
      })
      .optional(),
  }),

  /**
   * This machine's stored cipher measurement (issue #15), the cipher and MAC orders new connections offer, the
   * machine's facts.
   */
  'algorithms.measurement': none,
  /**
   * Times every AEAD cipher and CTR + MAC pair on this machine (`seconds` each, default 0.25: about 5 s in all), stores
   * it as this machine's measurement and answers as `algorithms.measurement` (the defaults now follow it).
   */
  'algorithms.measure': z.strictObject({ seconds: z.number().min(0.01).max(5).optional() }),
} as const;

export type InvokeChannel = keyof typeof invokeSchemas;

/** Request payload type of each channel (from its validator; `undefined` = no payload). */
export type InvokeRequests = { [C in InvokeChannel]: z.infer<(typeof invokeSchemas)[C]> };

/** Response value type of each channel (the `value` of a successful Result). */
export interface InvokeResponses extends FileOpResponses, FindResponses, BookmarkResponses, SyncResponses {
  'sites.list': SitesTree;
  'sites.save': Site;
  'sites.delete': void;
  'sites.duplicate': Site;
  'sites.importPreview': ImportPreview;
  'sites.import': ImportResult;
  'sites.export': ExportResult;
  'sites.test': SiteTestReport;
  /** Whether a running test had that id (it then reports ABORTED at once). */
  'sites.testCancel': boolean;
  'sites.quick': QuickSite;
  'dialog.openFile': string | null;
  'algorithms.catalog': AlgorithmCatalog;
  'folders.create': void;
  'folders.delete': void;
  'session.connect': SessionStatus;
  'session.disconnect': void;
  'session.list': SessionStatus[];
  'hostKey.answer': void;
  'auth.answer': void;
  'knownHosts.list': { entries: KnownHostEntry[]; writePath: string };
  'knownHosts.remove': void;
  'remote.list': Listing;
  'remote.mkdir': void;
  'remote.rename': void;
  'remote.remove': void;
  'remote.stat': RemoteProps;
  'remote.chmod': ChmodReport;
  'local.list': Listing;
  'local.mkdir': void;
  'local.rename': void;
  'local.remove': void;
  'local.home': string;
  'queue.enqueue': { jobIds: string[] };
  'queue.snapshot': { jobs: Job[] };
  'queue.pause': void;
  'queue.resume': void;
  'queue.cancel': void;
  'queue.retry': void;
  'queue.pauseAll': void;
  'queue.resumeAll': void;
  'queue.retryFailed': void;
  'queue.move': void;
  /** `total`: how many files the batch has in all. */
  'queue.files': { files: QueueFile[]; total: number };
  'queue.clearFinished': void;
  'conflict.answer': void;
  'edit.open': EditView;
  'edit.list': EditView[];
  'edit.resolve': EditView;
  'edit.close': void;
  'settings.get': Settings;
  'settings.set': Settings;
  'algorithms.measurement': AlgorithmsMeasurementView;
  'algorithms.measure': AlgorithmsMeasurementView;
}

// Compile-time check that schemas and responses list the same channels.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _channelsMatch: Same<InvokeChannel, keyof InvokeResponses> = true;
void _channelsMatch;

/** Every invocation channel name, in contract order. */
export const INVOKE_CHANNELS = Object.keys(invokeSchemas) as InvokeChannel[];

// ---------------------------------------------------------------------------------------------
// Events (engine -> renderer)
// ---------------------------------------------------------------------------------------------

export interface EventPayloads extends SyncEvents {
  /** Full queue state; sent when a window (re)subscribes. Replay with the shared reducer. */
  'queue.snapshot': { jobs: Job[] };
  /** Queue changes in order (added / updated / removed), coalesced to ~10 batches per second. */
  'queue.delta': { events: QueueEvent[] };
  /** Throughput samples for the graph, possibly several per batch (one per site per engine tick). */
  progress: { samples: ProgressSample[] };
  'hostKey.prompt': HostKeyPrompt;
  /** A login question (password, keyboard-interactive round, key passphrase): answer with `auth.answer`. */
  'auth.prompt': AuthPrompt;
  /** A trusted server announced new host keys and they were saved (shown as a neutral notice). */
  'hostKey.learned': HostKeysLearned;
  'conflict.prompt': ConflictPrompt;
  /** A pending host-key, login or conflict prompt is no longer answerable (answered elsewhere, connection gone). */
  'prompt.closed': { promptId: string };
  'session.status': SessionStatus;
  /** Log lines, redacted (no passwords, no key material). */
  log: { lines: LogLine[] };
  /** An edited file's state changed (downloading, editing, uploading, uploaded, conflict, failed). */
  'edit.changed': EditView;
  /** An edited file was closed: its private copy is gone. */
  'edit.closed': { editId: string };
  'find.hits': FindHits;
}

export type EventName = keyof EventPayloads;

const EVENT_NAME_RECORD: { [E in EventName]: true } = {
  'queue.snapshot': true,
  'queue.delta': true,
  progress: true,
  'hostKey.prompt': true,
  'auth.prompt': true,
  'hostKey.learned': true,
  'conflict.prompt': true,
  'prompt.closed': true,
  'session.status': true,
  log: true,
  'edit.changed': true,
  'edit.closed': true,
  'find.hits': true,
  ...SYNC_EVENT_NAMES,
};

/** Every event name. */
export const EVENT_NAMES = Object.keys(EVENT_NAME_RECORD) as EventName[];

/** Electron IPC channel carrying an invocation (`ipcRenderer.invoke`). */
export function invokeIpcChannel(channel: InvokeChannel): string {
  return `sluice:invoke:${channel}`;
}

/** Electron IPC channel carrying an event (`webContents.send`). */
export function eventIpcChannel(event: EventName): string {
  return `sluice:event:${event}`;
}

// ---------------------------------------------------------------------------------------------
// Bridge (window.sluice)
// ---------------------------------------------------------------------------------------------

/** `sites.list` -> `sitesList`, `hostKey.answer` -> `hostKeyAnswer`, `queue.clearFinished` -> `queueClearFinished`. */
export type MethodName<C extends string> = C extends `${infer A}.${infer B}` ? `${A}${Capitalize<B>}` : C;

/** Runtime twin of {@link MethodName}. */
export function methodName<C extends InvokeChannel>(channel: C): MethodName<C> {
  const dot = channel.indexOf('.');
  return (channel.slice(0, dot) + channel.charAt(dot + 1).toUpperCase() + channel.slice(dot + 2)) as MethodName<C>;
}

type Method<C extends InvokeChannel> = [InvokeRequests[C]] extends [undefined]
  ? () => Promise<Result<InvokeResponses[C]>>
  : (request: InvokeRequests[C]) => Promise<Result<InvokeResponses[C]>>;

/** One named method per invocation channel. */
export type BridgeMethods = { [C in InvokeChannel as MethodName<C>]: Method<C> };

/**
 * What the renderer sees as `window.sluice`. Implemented by the preload (Electron), the e2e harness
 * (WebSocket) and fakes in renderer tests.
 */
export interface Bridge extends BridgeMethods {
  /** Subscribes to an event; returns the unsubscribe function. */
  on<E extends EventName>(event: E, listener: (payload: EventPayloads[E]) => void): () => void;
  /** Absolute path of a file dropped from the OS (Electron `webUtils.getPathForFile`); `''` when unknown. */
  pathForFile(file: object): string;
}

/** Bridge method names, in contract order (what the preload must expose besides `on` and `pathForFile`). */
export const BRIDGE_METHOD_NAMES: string[] = INVOKE_CHANNELS.map((c) => methodName(c));
