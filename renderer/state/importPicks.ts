/**
 * The import dialog's choices over a preview (issue #15): which candidates are ticked (all but duplicates at first),
 * and what each row says. Pure; unit-tested.
 */
import type { ImportCandidateView, ImportFormat, ImportPreview } from '../../app/common/model/siteImport';

/** The candidates ticked when a preview arrives: every one that duplicates nothing. */
export function defaultPicks(p: ImportPreview): Set<number> {
  return new Set(p.candidates.filter((c) => !c.duplicateOf).map((c) => c.index));
}

/** `picks` with `index` ticked or unticked. */
export function toggled(picks: ReadonlySet<number>, index: number, on: boolean): Set<number> {
  const next = new Set(picks);
  if (on) next.add(index);
  else next.delete(index);
  return next;
}

/** How many ticked candidates hold a password. */
export function pickedPasswords(p: ImportPreview, picks: ReadonlySet<number>): number {
  return p.candidates.filter((c) => picks.has(c.index) && c.hasPassword).length;
}

/** `user@host:port` (the port only when it is not 22). */
export function serverOf(c: ImportCandidateView): string {
  return `${c.site.user}@${c.site.host}${c.site.port === 22 ? '' : `:${c.site.port}`}`;
}

/** The notes a row shows: the duplicate's reason first, then the candidate's own notes. */
export function rowNotes(c: ImportCandidateView): string[] {
  return [...(c.duplicateOf ? [`duplicate: ${c.duplicateOf.reason}`] : []), ...c.notes];
}

/** What the path field says when left empty. */
export const PATH_PLACEHOLDERS: Readonly<Record<ImportFormat, string>> = {
  openssh: 'empty: ~/.ssh/config',
  filezilla: "empty: FileZilla's sitemanager.xml in its usual place",
  winscp: 'the WinSCP.ini file (empty on Windows: the registry)',
  putty: 'empty: ~/.putty/sessions (on Windows: the registry)',
  sluice: 'the .json file of a Sluice export',
};
