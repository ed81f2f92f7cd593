/**
 * Nested folder tree of saved sites for the site manager. Pure; unit-tested.
 */
import type { SitesTree } from '../../app/common/ipc/contract';
import type { SiteView } from '../../app/common/model/site';

/** A folder node: its full path (`Work/Prod`), its last segment, subfolders and sites (both sorted by name). */
export interface FolderNode {
  path: string;
  name: string;
  folders: FolderNode[];
  sites: SiteView[];
}

const byName = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** Builds the tree rooted at `''` from the flat folder list and every site's folder (missing parents are created). */
export function buildSiteTree(tree: SitesTree): FolderNode {
  const root: FolderNode = { path: '', name: '', folders: [], sites: [] };
  const index = new Map<string, FolderNode>([['', root]]);
  const ensure = (path: string): FolderNode => {
    const found = index.get(path);
    if (found) return found;
    const cut = path.lastIndexOf('/');
    const parent = ensure(cut < 0 ? '' : path.slice(0, cut));
    const node: FolderNode = { path, name: cut < 0 ? path : path.slice(cut + 1), folders: [], sites: [] };
    parent.folders.push(node);
    index.set(path, node);
    return node;
  };
  for (const f of tree.folders) if (f) ensure(f);
  for (const s of tree.sites) ensure(s.folder).sites.push(s);
  const sort = (n: FolderNode) => {
    n.folders.sort((a, b) => byName.compare(a.name, b.name));
    n.sites.sort((a, b) => byName.compare(a.name, b.name));
    n.folders.forEach(sort);
  };
  sort(root);
  return root;
}
