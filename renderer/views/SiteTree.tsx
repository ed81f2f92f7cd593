/**
 * The site manager's tree (the ARIA tree pattern): folders, then the sites of each level; a click selects, Enter or a
 * double-click on a site connects (showing its tab when it has one), each site's icon shows its session's state; a
 * right-click, Shift+F10 or the ContextMenu key opens the site's menu (Connect, Open in new tab).
 */
import type { SessionStatus } from '../../app/common/ipc/contract';
import type { SiteView } from '../../app/common/model/site';
import type { FolderNode } from '../state/siteTree';
import { Icon } from './Icon';

/** What is selected in the tree. */
export type TreeSelection = { kind: 'site'; id: string } | { kind: 'folder'; path: string } | null;

export interface SiteTreeLevelProps {
  node: FolderNode;
  /** ARIA level of this node's items, 1 at the root. */
  level: number;
  selection: TreeSelection;
  selectedSiteId: string | undefined;
  sessions: Readonly<Record<string, SessionStatus | undefined>>;
  onSelect: (sel: TreeSelection) => void;
  onConnect: (site: SiteView) => void;
  /** The site's context menu, at a point of the viewport (px). */
  onMenu?: (site: SiteView, x: number, y: number) => void;
}

/** One site of the tree. */
function SiteItem(p: Omit<SiteTreeLevelProps, 'node'> & { site: SiteView }) {
  const { site: s, onConnect } = p;
  const selected = p.selectedSiteId === s.id;
  const state = p.sessions[s.id]?.state;
  return (
    <li
      role="treeitem"
      aria-selected={selected}
      aria-level={p.level}
      aria-label={s.name}
      tabIndex={selected ? 0 : -1}
      onKeyDown={(e) => {
        if (e.key === 'Enter') onConnect(s);
        else if (p.onMenu && (e.key === 'ContextMenu' || (e.shiftKey && e.key === 'F10'))) {
          e.preventDefault();
          const box = e.currentTarget.getBoundingClientRect();
          p.onMenu(s, box.left + 24, box.bottom);
        }
      }}
    >
      <div
        className="label"
        onClick={() => p.onSelect({ kind: 'site', id: s.id })}
        onContextMenu={(e) => {
          if (!p.onMenu) return;
          e.preventDefault();
          p.onSelect({ kind: 'site', id: s.id });
          p.onMenu(s, e.clientX, e.clientY);
        }}
        onDoubleClick={() => onConnect(s)}
        title={`${s.user}@${s.host}:${s.port}`}
      >
        <Icon name="server" className={`conn-${state ?? 'none'}`} />
        <span>{s.name}</span>
        <span className="muted">{s.host}</span>
      </div>
    </li>
  );
}

/** The items of one folder node: its folders (each with its own items nested) and its sites. */
export function SiteTreeLevel(p: SiteTreeLevelProps) {
  const { node, level, selection } = p;
  return (
    <>
      {node.folders.map((f) => {
        const selected = selection?.kind === 'folder' && selection.path === f.path;
        return (
          <li
            key={`f:${f.path}`}
            role="treeitem"
            aria-expanded="true"
            aria-selected={selected}
            aria-level={level}
            aria-label={`Folder ${f.name}`}
          >
            <div className="label folder-label" onClick={() => p.onSelect({ kind: 'folder', path: f.path })}>
              <Icon name="folder" /> {f.name}
            </div>
            <ul role="group">
              <SiteTreeLevel {...p} node={f} level={level + 1} />
            </ul>
          </li>
        );
      })}
      {node.sites.map((s) => (
        <SiteItem key={`s:${s.id}`} {...p} site={s} />
      ))}
    </>
  );
}
