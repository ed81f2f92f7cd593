/**
 * The payload shapes the IPC contract (contract.ts) carries besides queue, status and prompt types: directory
 * entries and listings, the sites tree, settings, conflict questions and the service's own error codes. Re-exported
 * by contract.ts, which stays the one import for the renderer, main and the service.
 */
import type { ErrorCode } from '../errors';
import type { Direction } from '../model/job';
import type { SiteView } from '../model/site';
import type { UiLayout } from '../model/layout';
import type { TransferDefaults } from '../model/transferDefaults';

/** One directory entry, local or remote. */
export interface FsEntry {
  name: string;
  type: 'file' | 'dir' | 'symlink' | 'other';
  /** Bytes. */
  size: number;
  /** Modification time, milliseconds since the epoch. */
  mtimeMs: number;
  /** POSIX mode bits when known. */
  mode?: number;
  /**
   * Remote entries: the owner and group as the server's long listing names them (its `ls -l` line), else their
   * numeric ids, `?` for one the server left out (escaped, at most 32 characters).
   */
  owner?: string;
  group?: string;
  /** Hidden by the platform's file manager without a leading dot (Windows hidden/system, macOS `chflags hidden`). */
  hidden?: boolean;
  /**
   * A symbolic link: the path it names (as stored in the link) and whether that target is missing. `type`, `size`,
   * `mtimeMs` and `mode` are then the target's; a broken link keeps `type: 'symlink'`.
   */
  link?: { target: string; broken: boolean };
}

/** A listing with the resolved absolute path (e.g. `~` or `.` resolved). */
export interface Listing {
  path: string;
  entries: FsEntry[];
  /** The file system's separator, from the engine's platform (local listings: `\` on Windows); absent: `/`. */
  sep?: '/' | '\\';
}

export interface SitesTree {
  /** Every folder path that exists (explicitly created or used by a site), sorted, `''` excluded. */
  folders: string[];
  sites: SiteView[];
}

/**
 * An unsaved site from the quick-connect bar (`sites.quick`): reachable by its id (`quick:…`) until the app quits,
 * never listed by `sites.list`; `resolvedHost` is the real host when the typed one was a `~/.ssh/config` alias.
 */
export interface QuickSite extends SiteView {
  quick: true;
  resolvedHost?: string;
}

export type Theme = 'light' | 'dark' | 'system';

export interface Settings {
  theme: Theme;
  /** Settings' editor command for editing remote files (app/node/edit/launch.ts); absent: the default application. */
  editorCommand?: string;
  /** The user agreed to store passwords although the OS offers only plain-text storage (Linux `basic_text`). */
  allowInsecureSecretStorage: boolean;
  /** Read-only: how passwords are stored. `secure: false` means the UI must warn before saving one. */
  secretStorage: { backend: string; secure: boolean };
  /** The speed limit of every transfer together, bytes per second; 0 = none. */
  speedLimit: number;
  /** The window's splitters and folded panels (app/common/model/layout.ts; DEFAULT_LAYOUT until changed). */
  layout: UiLayout;
  /** Settings → Transfers (app/common/model/transferDefaults.ts): used by every transfer the app starts. */
  transfers: TransferDefaults;
}

export interface ConflictPrompt {
  promptId: string;
  jobId: string;
  /** Full path of the target that already exists. */
  target: string;
  direction: Direction;
  existing?: { size: number; mtimeMs: number };
  incoming?: { size: number; mtimeMs: number };
  /**
   * How many more conflicts of the same batch wait behind this one ("N more like this"); the prompt is sent again,
   * same `promptId`, when that number changes.
   */
  waiting?: number;
}

/**
 * The answer to a conflict prompt (for this file, or with `forAll` for the rest of its batch): overwrite, skip,
 * rename (`NAME (1).ext`), `newer` (overwrite when the incoming file is newer, to the second, else skip) or `size`
 * (overwrite when the sizes differ, else skip). The engine decides `newer` and `size` per file (its TransferRequest
 * conflict rules of the same names).
 */
export type ConflictChoice = (typeof CONFLICT_CHOICES)[number];
/** Every {@link ConflictChoice}. */
export const CONFLICT_CHOICES = ['overwrite', 'skip', 'rename', 'newer', 'size'] as const;

/**
 * Error codes of the service and IPC themselves; a failed Result may carry any {@link ErrorCode}
 * (app/common/errors.ts).
 */
export type IpcErrorCode = Extract<
  ErrorCode,
  | 'INVALID_REQUEST'
  | 'UNKNOWN_CHANNEL'
  | 'FORBIDDEN_SENDER'
  | 'NOT_FOUND'
  | 'NOT_CONNECTED'
  | 'FOLDER_NOT_EMPTY'
  | 'INSECURE_SECRET_STORAGE'
  | 'INVALID_STATE'
  | 'INTERNAL'
>;
