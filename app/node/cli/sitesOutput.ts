/** What `sluice sites` prints: one line per site, and an import's preview (human lines or JSON lines). */
import type { Site } from '../../common/model/site';
import type { ImportPreview } from '../../common/model/siteImport';
import { formatRemote } from '../engine/remoteSpec';

/** The columns of a site's line: id, folder/name, URL, authentication. */
function siteColumns(s: Site): [string, string, string, string] {
  const url = formatRemote({ user: s.user, host: s.host, port: s.port, path: s.remoteDir ?? '' });
  const auth = s.authMethod === 'key' ? `key ${s.keyPath ?? '?'}` : s.authMethod;
  return [s.id.slice(0, 8), `${s.folder ? `${s.folder}/` : ''}${s.name}`, url, auth];
}

/** `3f2a9c1e  Work/web  sftp://deploy@web.example.com:2222/var/www  key ~/.ssh/id_ed25519` */
export function siteLine(s: Site): string {
  return siteColumns(s).join('  ');
}

/**
 * `sites list`: a header (ID, NAME, URL, AUTH) and one line per site, the name and URL columns as wide as their widest
 * entry; no line when there is no site.
 */
export function siteTable(sites: readonly Site[]): string[] {
  if (sites.length === 0) return [];
  const rows = sites.map(siteColumns);
  const header: [string, string, string, string] = ['ID', 'NAME', 'URL', 'AUTH'];
  const width = (i: number): number => Math.max(...[header, ...rows].map((r) => r[i].length));
  const line = (r: readonly string[]): string =>
    [r[0].padEnd(8), r[1].padEnd(width(1)), r[2].padEnd(width(2)), r[3]].join('  ');
  return [line(header), ...rows.map(line)];
}

/**
 * The preview of an import: per candidate `[x]` (to import) or `[ ]` (a duplicate, left out) with its name, server
 * and notes, then the source's notes; under `json`, one `candidate` line each and a `preview` line.
 * @param picked the candidate indices that will be imported
 */
export function previewLines(p: ImportPreview, picked: Set<number>, json: boolean): string[] {
  if (json) {
    return [
      ...p.candidates.map((c) => JSON.stringify({ type: 'candidate', picked: picked.has(c.index), ...c })),
      JSON.stringify({
        type: 'preview',
        format: p.format,
        source: p.source,
        candidates: p.candidates.length,
        picked: picked.size,
        notes: p.notes,
      }),
    ];
  }
  const lines = [`${p.source}: ${p.candidates.length} ${p.candidates.length === 1 ? 'site' : 'sites'}`];
  for (const c of p.candidates) {
    const where = `${c.site.folder ? `${c.site.folder}/` : ''}${c.site.name}`;
    const server = formatRemote({
      user: c.site.user,
      host: c.site.host,
      port: c.site.port,
      path: c.site.remoteDir ?? '',
    });
    const auth = c.site.authMethod === 'key' ? `key ${c.site.keyPath}` : c.site.authMethod;
    lines.push(
      `  [${picked.has(c.index) ? 'x' : ' '}] ${where}  ${server}  ${auth}${c.hasPassword ? ' (the source has its password)' : ''}`,
    );
    if (c.duplicateOf) lines.push(`        duplicate: ${c.duplicateOf.reason}`);
    for (const n of c.notes) lines.push(`        ${n}`);
  }
  for (const n of p.notes) lines.push(`  ${n}`);
  return lines;
}
