/**
 * Saved sites from other programs and Sluice's own JSON (issue #15): the formats, what a preview shows (never a
 * password: a preview says only whether the source holds one), what an import and an export answer, and the request
 * validators of `sites.importPreview`, `sites.import` and `sites.export` (app/common/ipc/contract.ts).
 */
import { z } from 'zod';
import type { SiteInput } from './site';

/** Every format Sluice imports: OpenSSH client config, FileZilla, WinSCP, PuTTY, and Sluice's own export. */
export const IMPORT_FORMATS = ['openssh', 'filezilla', 'winscp', 'putty', 'sluice'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** What each format reads, as the UI and the CLI's help name it. */
export const IMPORT_FORMAT_LABELS: Readonly<Record<ImportFormat, string>> = {
  openssh: 'OpenSSH client config (~/.ssh/config)',
  filezilla: 'FileZilla (sitemanager.xml)',
  winscp: 'WinSCP (WinSCP.ini, or a .reg export)',
  putty: 'PuTTY saved sessions (~/.putty/sessions, or a .reg export)',
  sluice: 'Sluice JSON export',
};

/** A site of the source as the preview shows it. */
export interface ImportCandidateView {
  /** Its position among the source's candidates: what `sites.import` picks. */
  index: number;
  /** Where it is in the source: `Host web1`, a FileZilla folder path and name, a session name. */
  origin: string;
  /** The site as it would be saved (before `intoFolder`). */
  site: Omit<SiteInput, 'id'>;
  /** The source holds a password for it (stored in the secret store on import unless declined; never shown). */
  hasPassword: boolean;
  /**
   * A saved site (`id`) or an earlier candidate of the same source (`index`) this one repeats: the same host, port and
   * user — for Sluice JSON also the same folder and name. The preview leaves duplicates unticked.
   */
  duplicateOf?: { id?: string; index?: number; name: string; folder: string; reason: string };
  /** What was dropped or changed for this site, e.g. `not imported: ProxyJump bastion`, `password not imported`. */
  notes: string[];
}

/** What `sites.importPreview` answers. */
export interface ImportPreview {
  format: ImportFormat;
  /** The file or folder read (absolute), or `(text)` for pasted text. */
  source: string;
  /** SHA-256 (hex) of what was read; `sites.import` refuses a source that changed since. */
  digest: string;
  candidates: ImportCandidateView[];
  /** Entries of the source that give no candidate, and notes about the whole source (`skipped: FTP entry "x"`). */
  notes: string[];
}

/** What `sites.import` answers. */
export interface ImportResult {
  /** The sites saved, with the candidate index each came from. */
  imported: Array<{ index: number; id: string; name: string; folder: string }>;
  /** Passwords put into the secret store. */
  passwordsStored: number;
  /** Passwords the source held that were not stored, and why. */
  notes: string[];
}

/** What `sites.export` answers. */
export interface ExportResult {
  /** The file written (absolute). */
  path: string;
  sites: number;
  /** Passwords written into the file (0 unless asked). */
  passwords: number;
}

const filePath = z.string().min(1).max(4096);
const source = {
  format: z.enum(IMPORT_FORMATS),
  /** The file (or PuTTY's sessions folder) to read; `~/` is the home folder; absent: the format's usual place. */
  path: filePath.optional(),
  /** The source's text instead of a file (tests, pasted text). */
  text: z
    .string()
    .max(16 * 1024 * 1024)
    .optional(),
};
const notBoth = (r: { path?: string; text?: string }): boolean => r.path === undefined || r.text === undefined;

/** `sites.importPreview`: read and parse a source, mark duplicates; nothing is saved. */
export const importPreviewSchema = z.strictObject(source).refine(notBoth, 'give a path or a text, not both');

/** `sites.import`: the picked candidates of the same source (same digest) saved, passwords into the secret store. */
export const importSchema = z
  .strictObject({
    ...source,
    digest: z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 in hex'),
    pick: z.array(z.number().int().min(0)).max(100_000),
    /** A folder the imported sites (and their folders) go under, e.g. `Imported/FileZilla`. */
    intoFolder: z.string().max(1024).optional(),
    /** Store the source's passwords (default true). */
    passwords: z.boolean().optional(),
  })
  .refine(notBoth, 'give a path or a text, not both');

/** `sites.export`: every site (or the given ones) as Sluice JSON in a file, passwords only when asked. */
export const exportSchema = z.strictObject({
  path: filePath,
  withPasswords: z.boolean(),
  siteIds: z.array(z.string().min(1).max(200)).max(100_000).optional(),
  /** Replace an existing file (default: refuse it). */
  overwrite: z.boolean().optional(),
});
