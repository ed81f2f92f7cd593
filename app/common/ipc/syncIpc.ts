/**
 * The Synchronize… dialog's channels (#27, the app side): `sync.preview` (both folders listed recursively through the
 * site's session and planned by sync/plan.ts, as `sluice sync --dry-run` plans), `sync.cancel` (a preview still
 * listing) and `sync.run` (the previewed plan, less the unticked paths, put in the queue as one batch); with them
 * Keep remote up to date's (keepUpIpc.ts), so the contract spreads #27's channels and events from here.
 */
import { z } from 'zod';
import { KEEP_UP_EVENT_NAMES, keepUpInvokeSchemas, type KeepUpEvents, type KeepUpResponses } from './keepUpIpc';

const id = z.string().min(1).max(200);
const path = z.string().min(1).max(4096);
const rel = z.string().min(1).max(4096);

/** What counts as different: size and time (the default), the size alone, or the server's hash of same-size files. */
export const SYNC_COMPARE_MODES = ['size-time', 'size', 'checksum'] as const;
export type SyncCompareMode = (typeof SYNC_COMPARE_MODES)[number];

export const syncPreviewSchema = z.strictObject({
  siteId: id,
  /** Chosen by the renderer: `sync.cancel` stops this preview, `sync.run` runs its plan. */
  previewId: id,
  /** `upload`: the local folder is SRC and the remote one DEST (local → remote); `download` the reverse. */
  direction: z.enum(['upload', 'download']),
  localPath: path,
  remotePath: path,
  compare: z.enum(SYNC_COMPARE_MODES),
  /** Delete from DEST what SRC does not have (never after a listing error). */
  delete: z.boolean(),
  /** `--include` / `--exclude` globs in order, first match wins (sync/filters.ts). */
  rules: z
    .array(z.strictObject({ kind: z.enum(['include', 'exclude']), pattern: z.string().min(1).max(4096) }))
    .max(200),
});

/** Stops a preview still listing; answers whether one was. */
export const syncCancelSchema = z.strictObject({ previewId: id });

export const syncRunSchema = z.strictObject({
  siteId: id,
  previewId: id,
  /** Paths of the plan the user unticked (relative, `/`-separated): neither copied nor deleted. */
  leaveOut: z.array(rel).max(1_000_000),
});

/** One line of the preview: what is done to a path, why, and how many bytes it moves or frees. */
export interface SyncPreviewItem {
  /** Relative to both folders, `/`-separated (untrusted names: the renderer shows them as text). */
  path: string;
  kind: 'file' | 'dir';
  action: 'create' | 'update' | 'delete';
  /** The reason in words (sync/plan.ts REASON_TEXT). */
  reason: string;
  bytes: number;
}

/** A previewed plan. */
export interface SyncPreview {
  previewId: string;
  direction: 'upload' | 'download';
  /** The folders as listed (the remote one resolved). */
  localRoot: string;
  remoteRoot: string;
  /** Create, update and delete items, in the plan's order (creates and updates by path, then deletions). */
  items: SyncPreviewItem[];
  /** Paths both sides have alike (left alone). */
  same: number;
  /** DEST's paths SRC lacks that are kept (deletion off, or withheld). */
  onlyInDest: number;
  /** Paths left out: links, special files, a file against a folder. */
  skipped: number;
  /** Folders that could not be listed, with the side and the server's or the disk's message. */
  errors: Array<{ side: 'local' | 'remote'; path: string; message: string }>;
  /** Set when deletion was asked but none is planned (a listing error): why, in words. */
  deletionsWithheld?: string;
}

/** What `sync.run` queued. */
export interface SyncRunResult {
  batchId: string;
  jobIds: string[];
  copies: number;
  bytes: number;
  deletions: number;
}

/** Synchronize…'s and keep-up's channels (#27), spread into the contract's invoke schemas. */
export const syncInvokeSchemas = {
  'sync.preview': syncPreviewSchema,
  'sync.cancel': syncCancelSchema,
  'sync.run': syncRunSchema,
  ...keepUpInvokeSchemas,
} as const;

/** #27's events (keep-up's state), spread into the contract's events. */
export type SyncEvents = KeepUpEvents;
export const SYNC_EVENT_NAMES = KEEP_UP_EVENT_NAMES;

/** What Synchronize…'s and keep-up's channels answer. */
export interface SyncResponses extends KeepUpResponses {
  'sync.preview': SyncPreview;
  /** Whether a preview was still listing. */
  'sync.cancel': boolean;
  'sync.run': SyncRunResult;
}
