/**
 * The remote find (#26 item 5): `remote.find` walks the tree under a folder with many SSH_FXP_READDIR requests in
 * flight (app/node/engine/remoteTree.ts) and matches each name against a pattern; the matches stream as `find.hits`
 * events and the answer is the whole walk's report. `remote.findCancel` ends a find at once (its answer then says
 * `cancelled`). Bounded: at most `maxResults` matches are sent (the rest are counted), at most `maxFolders` folders
 * listed.
 */
import { z } from 'zod';

/** Matches sent at most (the rest counted: "more not shown"). */
export const FIND_MAX_RESULTS = 1000;
/** Folders listed at most by one find. */
export const FIND_MAX_FOLDERS = 20_000;
/** Folders that could not be listed (or links not entered) named at most in a report. */
export const FIND_MAX_NOTES = 50;

export const FIND_MATCHES = ['substring', 'glob'] as const;
export type FindMatch = (typeof FIND_MATCHES)[number];

const id = z.string().min(1).max(200);

export const remoteFindSchema = z.strictObject({
  siteId: id,
  /** Chosen by the caller: its `find.hits` events carry it, and `remote.findCancel` names it. */
  findId: id,
  /** The folder to search from. */
  root: z.string().min(1).max(4096),
  pattern: z.string().min(1).max(1024),
  /** `substring` (the name contains it) or `glob` (the whole name: `*`, `?`, `[abc]`). */
  match: z.enum(FIND_MATCHES),
  /** Default false: upper and lower case alike. */
  caseSensitive: z.boolean().optional(),
  maxResults: z.number().int().min(1).max(FIND_MAX_RESULTS).optional(),
  maxFolders: z.number().int().min(1).max(FIND_MAX_FOLDERS).optional(),
});

export const findCancelSchema = z.strictObject({ findId: id });

/** One match (its name and path are the server's: untrusted text, shown escaped). */
export interface FindHit {
  /** The folder it is in, as walked. */
  dir: string;
  name: string;
  type: 'file' | 'dir' | 'symlink' | 'other';
  /** Bytes. */
  size: number;
  /** Modification time, ms since the epoch. */
  mtimeMs: number;
}

/** A folder not entered or not listed. */
export interface FindNote {
  path: string;
  /** loop: a symlink to one of its own parent folders (visited once); seen: to a folder listed elsewhere; depth; an
   * error: the server's message. */
  kind: 'loop' | 'seen' | 'depth' | 'error';
  /** What a link leads to, or the server's message. */
  detail: string;
}

/** A batch of matches (`find.hits` event), as folders are listed. */
export interface FindHits {
  findId: string;
  hits: FindHit[];
  /** Folders listed so far. */
  folders: number;
  /** Matches so far (sent or not). */
  matched: number;
  /** Notes since the last batch. */
  notes: FindNote[];
}

/** How a find ended. */
export interface FindReport {
  findId: string;
  /** The folder searched, as the server resolved it. */
  root: string;
  ended: 'done' | 'cancelled' | 'folderLimit';
  folders: number;
  matched: number;
  /** Matches sent (matched - shown: "more not shown"). */
  shown: number;
  /** Notes past {@link FIND_MAX_NOTES} are counted here. */
  moreNotes: number;
}

/** The channels (app/common/ipc/contract.ts); the matches come as the `find.hits` event. */
export const findInvokeSchemas = { 'remote.find': remoteFindSchema, 'remote.findCancel': findCancelSchema } as const;

export interface FindResponses {
  'remote.find': FindReport;
  /** Whether a find had that id (it then answers `cancelled` at once). */
  'remote.findCancel': boolean;
}
