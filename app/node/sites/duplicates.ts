/**
 * Duplicate detection for imports: a candidate repeats a saved site, or an earlier candidate of the same source, when
 * it has the same host (case-insensitive), port and user; a Sluice export's site also when it has the same folder and
 * name (case-insensitive) as a saved site — importing one's own export twice.
 */
import type { ImportCandidateView, ImportFormat } from '../../common/model/siteImport';
import type { Site } from '../../common/model/site';
import type { Candidate } from './candidates';

type DuplicateOf = NonNullable<ImportCandidateView['duplicateOf']>;

const endpointKey = (s: { host: string; port: number; user: string }): string =>
  `${s.host.toLowerCase()}\0${s.port}\0${s.user}`;
const nameKey = (s: { folder: string; name: string }): string => `${s.folder}\0${s.name.toLowerCase()}`;
const where = (s: { folder: string; name: string }): string => `"${s.folder ? `${s.folder}/` : ''}${s.name}"`;

/**
 * What each candidate duplicates, if anything (index for index with `candidates`).
 * @param existing the saved sites
 * @param folderOf the folder a candidate would be saved in (with the import's `intoFolder`)
 */
export function findDuplicates(
  candidates: Candidate[],
  existing: Site[],
  format: ImportFormat,
  folderOf: (c: Candidate) => string = (c) => c.site.folder,
): Array<DuplicateOf | undefined> {
  const byEndpoint = new Map<string, Site>();
  const byName = new Map<string, Site>();
  for (const s of existing) {
    if (!byEndpoint.has(endpointKey(s))) byEndpoint.set(endpointKey(s), s);
    if (!byName.has(nameKey(s))) byName.set(nameKey(s), s);
  }
  const seen = new Map<string, number>();
  return candidates.map((c, index) => {
    const key = endpointKey(c.site);
    const saved = byEndpoint.get(key);
    const earlier = seen.get(key);
    if (earlier === undefined) seen.set(key, index);
    const server = `${c.site.user}@${c.site.host}:${c.site.port}`;
    if (saved)
      return {
        id: saved.id,
        name: saved.name,
        folder: saved.folder,
        reason: `${server} is already the saved site ${where(saved)}`,
      };
    if (format === 'sluice') {
      const named = byName.get(nameKey({ folder: folderOf(c), name: c.site.name }));
      if (named)
        return {
          id: named.id,
          name: named.name,
          folder: named.folder,
          reason: `a site named ${where(named)} is already saved`,
        };
    }
    if (earlier !== undefined) {
      const e = candidates[earlier].site;
      return {
        index: earlier,
        name: e.name,
        folder: e.folder,
        reason: `${server} is also ${where(e)} earlier in this source`,
      };
    }
    return undefined;
  });
}
