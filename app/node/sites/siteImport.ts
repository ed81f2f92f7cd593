/**
 * Import and export of saved sites over the sites store, shared by the service (the app) and `sluice sites`: a preview
 * (the source read and parsed, duplicates marked, nothing saved), the import of the candidates picked from that same
 * source (refused when the source changed since the preview), and the Sluice JSON export.
 */
import fs from 'node:fs';
import path from 'node:path';
import { normalizeFolder, type Site } from '../../common/model/site';
import type { ExportResult, ImportFormat, ImportPreview, ImportResult } from '../../common/model/siteImport';
import { SluiceError, fromLocalError } from '../errors';
import type { SitesStore } from '../stores/sites';
import type { Candidate } from './candidates';
import { findDuplicates } from './duplicates';
import { parseSource } from './parse';
import { buildExport, type SluiceExport } from './sluiceJson';
import { readSource } from './source';

/** What an import works with. */
export interface SiteImportContext {
  store: SitesStore;
  /** The login name when a source names none (the local user name, as ssh uses). */
  defaultUser: string;
  /** For `~`, the usual places and the registry (tests); default process.env and process.platform. */
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
}

/** The source to read: its format, and a path or a text (neither: the format's usual place). */
export interface SourceRequest {
  format: ImportFormat;
  path?: string;
  text?: string;
}

/** Where an import's passwords go: stored by `store`, or not stored for the reason `skip`. */
export type PasswordSink = { store: (siteId: string, password: string) => Promise<void> } | { skip: string };

/** What a preview read: the view, and the candidates with their passwords (for the import itself). */
export interface ReadPreview {
  preview: ImportPreview;
  candidates: Candidate[];
  /** A Sluice export's folders (empty ones too). */
  folders: string[];
}

/**
 * Reads and parses a source and marks duplicates of the saved sites; saves nothing.
 * @throws SluiceError from reading (LOCAL_IO, USAGE) or parsing (INVALID_REQUEST) the source
 */
export async function previewImport(ctx: SiteImportContext, req: SourceRequest): Promise<ReadPreview> {
  const read = await readSource(req.format, req, ctx.env, ctx.platform);
  const parsed = parseSource(req.format, read.data, { defaultUser: ctx.defaultUser });
  const duplicates = findDuplicates(parsed.candidates, ctx.store.list().sites, req.format);
  const preview: ImportPreview = {
    format: req.format,
    source: read.source,
    digest: read.digest,
    notes: parsed.notes,
    candidates: parsed.candidates.map((c, index) => ({
      index,
      origin: c.origin,
      site: c.site,
      hasPassword: c.password !== undefined,
      notes: c.notes,
      ...(duplicates[index] ? { duplicateOf: duplicates[index] } : {}),
    })),
  };
  return { preview, candidates: parsed.candidates, folders: parsed.folders ?? [] };
}

/** `into` + `folder`, normalised (`''` when both are empty). */
function under(into: string, folder: string): string {
  return normalizeFolder(into ? `${into}/${folder}` : folder);
}

/**
 * Saves the picked candidates of a source, read again: it must be what the preview read (`digest`).
 * @param pick candidate indices (repeats ignored)
 * @param intoFolder a folder every imported site and folder goes under
 * @throws SluiceError INVALID_STATE when the source changed since the preview; INVALID_REQUEST for an index the source
 *   does not have (nothing is saved then)
 */
export async function applyImport(
  ctx: SiteImportContext,
  req: SourceRequest & { digest: string; pick: number[]; intoFolder?: string },
  passwords: PasswordSink,
): Promise<ImportResult> {
  const { preview, candidates, folders } = await previewImport(ctx, req);
  if (preview.digest !== req.digest) {
    throw new SluiceError('INVALID_STATE', `${preview.source} changed since it was previewed: preview it again`);
  }
  const picked = [...new Set(req.pick)];
  const missing = picked.find((i) => i >= candidates.length);
  if (missing !== undefined)
    throw new SluiceError('INVALID_REQUEST', `The source has no candidate ${missing} (it has ${candidates.length})`);
  const into = normalizeFolder(req.intoFolder ?? '');
  for (const f of folders) ctx.store.createFolder(under(into, f));
  const result: ImportResult = { imported: [], passwordsStored: 0, notes: [] };
  for (const index of picked.sort((a, b) => a - b)) {
    const c = candidates[index];
    const saved = ctx.store.save({ ...c.site, folder: under(into, c.site.folder) });
    result.imported.push({ index, id: saved.id, name: saved.name, folder: saved.folder });
    if (c.bookmarks) ctx.store.bookmarks.copy(c.bookmarks, saved.id);
    if (c.password === undefined) continue;
    if ('skip' in passwords) {
      result.notes.push(`${c.origin}: password not imported: ${passwords.skip}`);
      continue;
    }
    try {
      await passwords.store(saved.id, c.password);
      result.passwordsStored++;
    } catch (e) {
      result.notes.push(`${c.origin}: password not stored: ${(e as Error).message}`);
    }
  }
  return result;
}

/** A folder and its ancestors: `a/b` -> `a`, `a/b`. */
function withAncestors(folder: string): string[] {
  const parts = folder.split('/').filter((p) => p.length > 0);
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
}

/**
 * The Sluice export of every saved site (or of `siteIds`, with their folders), with passwords when `passwordOf` is
 * given.
 * @throws SluiceError NOT_FOUND for an id that names no site
 */
export async function exportSites(
  store: SitesStore,
  opts: { siteIds?: string[]; passwordOf?: (siteId: string) => Promise<string | undefined>; now?: number },
): Promise<{ doc: SluiceExport; passwords: number }> {
  const all = store.list();
  let sites: Site[] = all.sites;
  let folders = all.folders;
  if (opts.siteIds) {
    const byId = new Map(all.sites.map((s) => [s.id, s]));
    sites = opts.siteIds.map((id) => {
      const s = byId.get(id);
      if (!s) throw new SluiceError('NOT_FOUND', `No site with id ${id}`);
      return s;
    });
    folders = [...new Set(sites.flatMap((s) => withAncestors(s.folder)))].sort();
  }
  const passwords = new Map<string, string>();
  if (opts.passwordOf) {
    for (const s of sites) {
      const p = await opts.passwordOf(s.id);
      if (p !== undefined) passwords.set(s.id, p);
    }
  }
  return {
    doc: buildExport(sites, folders, opts.now ?? Date.now(), opts.passwordOf ? passwords : undefined, (id) =>
      store.bookmarks.list(id),
    ),
    passwords: passwords.size,
  };
}

/**
 * Writes an export to a file, readable by its owner only (0600: it may hold passwords), through a temporary name.
 * @returns what was written
 * @throws SluiceError EXISTS when the file exists and `overwrite` is not set; LOCAL_IO when it cannot be written
 */
export function writeExport(file: string, doc: SluiceExport, passwords: number, overwrite: boolean): ExportResult {
  const target = path.resolve(file);
  if (!overwrite && fs.existsSync(target))
    throw new SluiceError('EXISTS', `${target} exists (choose another name, or overwrite it)`);
  const tmp = `${target}.${process.pid}.sluice-tmp`;
  try {
    fs.writeFileSync(tmp, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
    fs.renameSync(tmp, target);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw fromLocalError(e, target, 'write');
  }
  return { path: target, sites: doc.sites.length, passwords };
}
