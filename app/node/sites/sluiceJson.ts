/**
 * Sluice's own export format: JSON with a format marker and a version, every folder (empty ones too) and every site
 * with the fields of app/common/model/site.ts, without ids or timestamps (an import makes new sites), and a
 * `password` only when the export was asked to include passwords.
 *
 * ```json
 * { "format": "sluice-sites", "version": 1, "exportedAt": "2026-11-23T10:00:00.000Z",
 *   "folders": ["Work", "Work/Prod"],
 *   "sites": [{ "name": "web", "folder": "Work/Prod", "host": "web.example.com", "port": 22, "user": "deploy",
 *               "authMethod": "key", "keyPath": "~/.ssh/id_ed25519",
 *               "bookmarks": [{ "side": "remote", "path": "/var/www" }] }] }
 * ```
 *
 * `bookmarks` (a site's directory bookmarks) came after version 1's first release: an older Sluice notes them as not
 * imported and imports the site.
 *
 * Reading validates with zod: a newer version is refused; a site field this version does not know (a newer export)
 * is left out with a note, and a site the site validator refuses is skipped with its reason.
 */
import { z } from 'zod';
import { normalizeFolder, type Site } from '../../common/model/site';
import { MAX_BOOKMARKS_PER_SIDE, bookmarkSchema, type SiteBookmark } from '../../common/ipc/bookmarks';
import { SluiceError } from '../errors';
import { CandidateList, type ParseOptions, type ParsedSites } from './candidates';

export const SLUICE_EXPORT_FORMAT = 'sluice-sites';
export const SLUICE_EXPORT_VERSION = 1;

/** The fields a site has in the export (version 1). */
const SITE_FIELDS = [
  'name',
  'folder',
  'host',
  'port',
  'user',
  'authMethod',
  'keyPath',
  'localDir',
  'remoteDir',
  'connections',
  'channels',
  'ciphers',
  'kex',
  'macs',
  'hostKeyAlgorithms',
  'speedLimit',
] as const;

const fileSchema = z.object({
  format: z.literal(SLUICE_EXPORT_FORMAT),
  version: z.number().int().min(1),
  exportedAt: z.string().optional(),
  folders: z.array(z.string().max(1024)).max(100_000).default([]),
  sites: z.array(z.record(z.string(), z.unknown())).max(100_000),
});

/** One exported site. */
export type ExportedSite = Pick<Site, (typeof SITE_FIELDS)[number]> & {
  password?: string;
  /** Its directory bookmarks (#26 item 3); an older Sluice notes them as not imported. */
  bookmarks?: SiteBookmark[];
};

const exportedBookmarks = z.array(bookmarkSchema.omit({ siteId: true })).max(2 * MAX_BOOKMARKS_PER_SIDE);

/** The export document. */
export interface SluiceExport {
  format: typeof SLUICE_EXPORT_FORMAT;
  version: number;
  exportedAt: string;
  folders: string[];
  sites: ExportedSite[];
}

/**
 * The export of some sites.
 * @param passwords the passwords to include, by site id (absent: none are included)
 * @param now the export time, ms since the epoch
 * @param bookmarksOf a site's directory bookmarks (none: the export has none)
 */
export function buildExport(
  sites: Site[],
  folders: string[],
  now: number,
  passwords?: Map<string, string>,
  bookmarksOf?: (siteId: string) => SiteBookmark[],
): SluiceExport {
  return {
    format: SLUICE_EXPORT_FORMAT,
    version: SLUICE_EXPORT_VERSION,
    exportedAt: new Date(now).toISOString(),
    folders,
    sites: sites.map((s) => {
      const out: Record<string, unknown> = {};
      for (const k of SITE_FIELDS) if (s[k] !== undefined) out[k] = s[k];
      const password = passwords?.get(s.id);
      if (password !== undefined) out.password = password;
      const bookmarks = bookmarksOf?.(s.id) ?? [];
      if (bookmarks.length) out.bookmarks = bookmarks;
      return out as ExportedSite;
    }),
  };
}

/** A number or string field of an exported site, typed loosely (the site validator checks it). */
function field<T>(o: Record<string, unknown>, k: string): T | undefined {
  return o[k] as T | undefined;
}

/**
 * Parses a Sluice export.
 * @returns its sites as candidates (their passwords when the file has them); `folders` are the file's folders (to
 *   create, empty ones included)
 * @throws SluiceError INVALID_REQUEST for text that is not JSON, not a Sluice export, or of a newer version
 */
export function parseSluiceExport(text: string, opts: ParseOptions): ParsedSites & { folders: string[] } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new SluiceError('INVALID_REQUEST', `Not a Sluice export: ${(e as Error).message}`);
  }
  const parsed = fileSchema.safeParse(data);
  if (!parsed.success) {
    throw new SluiceError(
      'INVALID_REQUEST',
      `Not a Sluice export: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(file)'}: ${i.message}`).join('; ')}`,
    );
  }
  const doc = parsed.data;
  if (doc.version > SLUICE_EXPORT_VERSION) {
    throw new SluiceError(
      'INVALID_REQUEST',
      `This export is version ${doc.version}, made by a newer Sluice; this one reads version ${SLUICE_EXPORT_VERSION}`,
    );
  }
  const list = new CandidateList(opts);
  doc.sites.forEach((s, i) => {
    const name = typeof s.name === 'string' ? s.name : `site ${i + 1}`;
    const origin = `"${typeof s.folder === 'string' && s.folder ? `${s.folder}/` : ''}${name}"`;
    const unknown = Object.keys(s).filter(
      (k) => k !== 'password' && k !== 'bookmarks' && !(SITE_FIELDS as readonly string[]).includes(k),
    );
    const notes = unknown.map((k) => `not imported: ${k} (not known to this version of Sluice)`);
    const bookmarks = s.bookmarks === undefined ? undefined : exportedBookmarks.safeParse(s.bookmarks);
    if (bookmarks && !bookmarks.success) notes.push('not imported: bookmarks (not a list of folders)');
    if (typeof s.host !== 'string' || typeof s.user !== 'string') return list.skip(origin, 'no host or user');
    list.add(
      origin,
      {
        name,
        folder: field(s, 'folder'),
        host: s.host,
        port: field(s, 'port'),
        user: s.user,
        authMethod: field(s, 'authMethod'),
        keyPath: field(s, 'keyPath'),
        localDir: field(s, 'localDir'),
        remoteDir: field(s, 'remoteDir'),
        connections: field(s, 'connections'),
        channels: field(s, 'channels'),
        ciphers: field(s, 'ciphers'),
        kex: field(s, 'kex'),
        macs: field(s, 'macs'),
        hostKeyAlgorithms: field(s, 'hostKeyAlgorithms'),
        speedLimit: field(s, 'speedLimit'),
        password: typeof s.password === 'string' ? s.password : undefined,
        bookmarks: bookmarks?.success ? bookmarks.data : undefined,
      },
      notes,
    );
  });
  return { ...list.result(), folders: doc.folders.map(normalizeFolder).filter((f) => f.length > 0) };
}
