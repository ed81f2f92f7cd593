/**
 * Site manager: a tree of folders and saved sites with create / edit / duplicate / delete,
 * new folder / delete folder, Connect, and Import… / Export… (other programs' sites, Sluice JSON).
 * Every button is labelled; the tree follows the ARIA tree pattern.
 */
import { useEffect, useMemo, useState } from 'react';
import type { SiteView } from '../../app/common/model/site';
import { unwrap } from '../bridge/bridge';
import { useAppState, useBridge, useStore } from '../state/react';
import { buildSiteTree } from '../state/siteTree';
import { newSiteForm, siteToForm, type SiteForm } from '../state/siteForm';
import { SiteManagerDialogs, type SiteModal } from './SiteManagerDialogs';
import { SiteTreeLevel, type TreeSelection } from './SiteTree';
import { ContextMenu } from './ContextMenu';

export type { TreeSelection } from './SiteTree';

export interface SiteManagerProps {
  selection: TreeSelection;
  onSelect: (sel: TreeSelection) => void;
  /** Connect: shows the site's tab, or opens one; `newTab` ("Open in new tab") always opens one. */
  onConnect: (site: SiteView, newTab?: boolean) => void;
  /** A filled form to open as a new site (the quick-connect bar's "Save as site"); taken once, then onDraftTaken. */
  /** Sites with a remote tab: Connect is off for a site connected in a tab (a live site without one gets one). */
  tabbed?: ReadonlySet<string>;
  draft?: SiteForm | null;
  onDraftTaken?: () => void;
}

/** The buttons under the tree: Connect, Edit, Duplicate, Delete of the selected site or folder. */
function SiteActions(p: {
  selection: TreeSelection;
  selectedSite: SiteView | undefined;
  canConnect: boolean;
  onConnect: (site: SiteView) => void;
  onSelect: (sel: TreeSelection) => void;
  setModal: (m: SiteModal) => void;
  run: (what: string, action: () => Promise<unknown>) => Promise<void>;
}) {
  const bridge = useBridge();
  const { selection, selectedSite, setModal } = p;
  return (
    <div className="site-actions" role="toolbar" aria-label="Site actions">
      <button
        type="button"
        className="primary"
        disabled={!p.canConnect}
        onClick={() => selectedSite && p.onConnect(selectedSite)}
      >
        Connect
      </button>
      <button
        type="button"
        disabled={!selectedSite}
        onClick={() =>
          selectedSite &&
          setModal({ kind: 'form', form: siteToForm(selectedSite), hasPassword: selectedSite.hasPassword })
        }
      >
        Edit
      </button>
      <button
        type="button"
        disabled={!selectedSite}
        onClick={() =>
          selectedSite &&
          p.run('Duplicating the site', async () => {
            const copy = await unwrap(bridge.sitesDuplicate({ siteId: selectedSite.id }));
            p.onSelect({ kind: 'site', id: copy.id });
          })
        }
      >
        Duplicate
      </button>
      <button
        type="button"
        disabled={!selection}
        onClick={() => {
          if (selectedSite) setModal({ kind: 'deleteSite', site: selectedSite });
          else if (selection?.kind === 'folder') setModal({ kind: 'deleteFolder', path: selection.path });
        }}
      >
        Delete
      </button>
    </div>
  );
}

/** The manager's title and its New site, New folder, Import… and Export… buttons. */
function SiteManagerHeader({
  currentFolder,
  canExport,
  setModal,
}: {
  currentFolder: string;
  canExport: boolean;
  setModal: (m: SiteModal) => void;
}) {
  return (
    <header>
      <h2>Sites</h2>
      <button
        type="button"
        onClick={() => setModal({ kind: 'form', form: newSiteForm(currentFolder), hasPassword: false })}
      >
        New site
      </button>
      <button type="button" onClick={() => setModal({ kind: 'newFolder', parent: currentFolder })}>
        New folder
      </button>
      <button type="button" onClick={() => setModal({ kind: 'import' })}>
        Import…
      </button>
      <button type="button" disabled={!canExport} onClick={() => setModal({ kind: 'export' })}>
        Export…
      </button>
    </header>
  );
}

/** A site's context menu: Connect (its tab, or a new one), Open in new tab (always a new one: the same site twice). */
function SiteMenu(p: {
  site: SiteView;
  x: number;
  y: number;
  onConnect: SiteManagerProps['onConnect'];
  onClose: () => void;
}) {
  return (
    <ContextMenu
      label={`${p.site.name} menu`}
      x={p.x}
      y={p.y}
      items={[
        { id: 'connect', label: 'Connect', run: () => p.onConnect(p.site) },
        { id: 'new-tab', label: 'Open in new tab', run: () => p.onConnect(p.site, true) },
      ]}
      onClose={p.onClose}
    />
  );
}

/** The left-hand site list. */
export function SiteManager({ selection, onSelect, onConnect, tabbed, draft, onDraftTaken }: SiteManagerProps) {
  const sites = useAppState((s) => s.sites);
  const settings = useAppState((s) => s.settings);
  const sessions = useAppState((s) => s.sessions);
  const store = useStore();
  const tree = useMemo(() => buildSiteTree(sites), [sites]);
  const [modal, setModal] = useState<SiteModal>(null);
  const [menu, setMenu] = useState<{ site: SiteView; x: number; y: number } | null>(null);
  useEffect(() => {
    if (!draft) return;
    setModal({ kind: 'form', form: draft, hasPassword: false });
    onDraftTaken?.();
  }, [draft, onDraftTaken]);
  const selectedSite = selection?.kind === 'site' ? sites.sites.find((s) => s.id === selection.id) : undefined;
  const selectedState = selectedSite ? sessions[selectedSite.id]?.state : undefined;
  /**
   * Connect applies to a site with no session under way (connected, connecting or reconnecting: Disconnect does), or
   * to one kept connected for its transfers after its last tab closed (Connect opens a tab on it).
   */
  const canConnect =
    !!selectedSite &&
    ((selectedState !== 'connected' && selectedState !== 'connecting' && selectedState !== 'reconnecting') ||
      (tabbed !== undefined && !tabbed.has(selectedSite.id)));
  const currentFolder = selection?.kind === 'folder' ? selection.path : (selectedSite?.folder ?? '');

  const run = async (what: string, action: () => Promise<unknown>) => {
    try {
      await action();
    } catch (e) {
      store.localLog('error', `${what} failed: ${(e as Error).message}`);
    }
    await store.refreshSites();
  };

  const empty = sites.sites.length === 0 && sites.folders.length === 0;
  return (
    <aside className="sites" aria-label="Site manager">
      <SiteManagerHeader currentFolder={currentFolder} canExport={sites.sites.length > 0} setModal={setModal} />
      <ul role="tree" aria-label="Saved sites">
        <SiteTreeLevel
          node={tree}
          level={1}
          selection={selection}
          selectedSiteId={selectedSite?.id}
          sessions={sessions}
          onSelect={onSelect}
          onConnect={onConnect}
          onMenu={(site, x, y) => setMenu({ site, x, y })}
        />
        {empty && <li className="muted">No saved sites yet.</li>}
      </ul>
      <SiteActions
        selection={selection}
        selectedSite={selectedSite}
        canConnect={canConnect}
        onConnect={onConnect}
        onSelect={onSelect}
        setModal={setModal}
        run={run}
      />
      {menu && <SiteMenu {...menu} onConnect={onConnect} onClose={() => setMenu(null)} />}
      <SiteManagerDialogs
        modal={modal}
        setModal={setModal}
        folders={sites.folders}
        settings={settings}
        onSelect={onSelect}
        run={run}
      />
    </aside>
  );
}
