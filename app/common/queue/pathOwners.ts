/**
 * Which job a file belongs to: a run sends several top-level sources (one per job) as one transfer, and each file the
 * transfer names belongs to the job whose source is that file or the deepest folder above it. One mapping for the
 * app's run books (runTally.ts) and the engine's journal (app/node/engine/journal.ts). Pure; paths may use `/` or
 * `\` (a Windows download folder).
 */

/** `p` without trailing separators (a lone `/` stays). */
export function trimSeparators(p: string): string {
  return p.length > 1 ? p.replace(/[\\/]+$/, '') : p;
}

/** The part of `p` before its last separator, or undefined at the top (`/a` -> `/`, `C:\a` -> `C:`). */
function parentOf(p: string): string | undefined {
  const cut = Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\'));
  if (cut < 0 || p === '/') return undefined;
  return cut === 0 ? '/' : p.slice(0, cut);
}

/**
 * Owners of paths, looked up by the deepest owned path that is a path itself or a folder above it: a lookup costs one
 * map probe per folder level of the path, whatever the number of owners.
 */
export class PathOwners<T> {
  private readonly byPath = new Map<string, T>();
  private readonly first: T;

  /**
   * @param owners paths and their owners, at least one; of equal paths the first counts
   * @throws Error when `owners` is empty
   */
  constructor(owners: ReadonlyArray<readonly [path: string, owner: T]>) {
    if (owners.length === 0) throw new Error('PathOwners needs at least one owner');
    this.first = owners[0][1];
    for (const [p, owner] of owners) {
      const key = trimSeparators(p);
      if (!this.byPath.has(key)) this.byPath.set(key, owner);
    }
  }

  /** The owner of the deepest owned path that is `path` or a folder above it; else the first owner. */
  ownerOf(path: string): T {
    for (let p: string | undefined = trimSeparators(path); p !== undefined; p = parentOf(p)) {
      const owner = this.byPath.get(p);
      if (owner !== undefined) return owner;
    }
    return this.first;
  }

  /** The owner of exactly `path` (trailing separators aside), if it is owned. */
  exactly(path: string): T | undefined {
    return this.byPath.get(trimSeparators(path));
  }
}
