/**
 * Site manager: a tree of folders and saved sites with create / edit / duplicate / delete,
 * new folder / delete folder, Connect, and Import… / Export… (other programs' sites, Sluice JSON).
 * Every button is labelled; the tree follows the ARIA tree pattern.
 */
import { useEffect, useMemo, useState } from 'react';
import type { SiteView } from '../../app/common/model/site';
import { unwrap } from '../bridge/bridge';
import { useAppState, useBridge, useStore } from '../state/react';
import { buildSiteTree, type FolderNode } from '../state/siteTree';
import { newSiteForm, siteToForm, type SiteForm } from '../state/siteForm';
import { ConfirmDialog, PromptDialog } from './Dialog';
import { ExportDialog } from './ExportDialog';
import { ImportDialog } from './ImportDialog';
import { Icon } from './Icon';
import { SiteFormDialog } from './SiteForm';

/** What is selected in the tree. */
export type TreeSelection = { kind: 'site'; id: string } | { kind: 'folder'; path: string } | null;

export interface SiteManagerProps {
  selection: TreeSelection;
  onSelect: (sel: TreeSelection) => void;
  onConnect: (site: SiteView) => void;
  /** A filled form to open as a new site (the quick-connect bar's "Save as site"); taken once, then onDraftTaken. */
  draft?: SiteForm | null;
  onDraftTaken?: () => void;
}

type Modal =
  | { kind: 'form'; form: SiteForm; hasPassword: boolean }
  | { kind: 'newFolder'; parent: string }
  | { kind: 'deleteSite'; site: SiteView }
  | { kind: 'deleteFolder'; path: string }
  | { kind: 'import' }
  | { kind: 'export' }
  | null;

/** The left-hand site list. */
export function SiteManager({ selection, onSelect, onConnect, draft, onDraftTaken }: SiteManagerProps) {
  const sites = useAppState((s) => s.sites);
  const settings = useAppState((s) => s.settings);
  const sessions = useAppState((s) => s.sessions);
  const store = useStore();
  const bridge = useBridge();
  const tree = useMemo(() => buildSiteTree(sites), [sites]);
  const [modal, setModal] = useState<Modal>(null);
  useEffect(() => {
    if (!draft) return;
    setModal({ kind: 'form', form: draft, hasPassword: false });
    onDraftTaken?.();
  }, [draft, onDraftTaken]);
  const selectedSite = selection?.kind === 'site' ? sites.sites.find((s) => s.id === selection.id) : undefined;
  const selectedState = selectedSite ? sessions[selectedSite.id]?.state : undefined;
  /** Connect applies to a site with no session under way (connected, connecting or reconnecting: Disconnect does). */
  const canConnect = !!selectedSite && selectedState !== 'connected' && selectedState !== 'connecting' && selectedState !== 'reconnecting';
  const currentFolder = selection?.kind === 'folder' ? selection.path : (selectedSite?.folder ?? '');

  const run = async (what: string, action: () => Promise<unknown>) => {
    try {
      await action();
    } catch (e) {
      store.localLog('error', `${what} failed: ${(e as Error).message}`);
    }
    await store.refreshSites();
  };

  const renderFolder = (node: FolderNode, level: number) => (
    <>
      {node.folders.map((f) => {
        const selected = selection?.kind === 'folder' && selection.path === f.path;
        return (
          <li key={`f:${f.path}`} role="treeitem" aria-expanded="true" aria-selected={selected} aria-level={level} aria-label={`Folder ${f.name}`}>
            <div className="label folder-label" onClick={() => onSelect({ kind: 'folder', path: f.path })}>
              <Icon name="folder" /> {f.name}
            </div>
            <ul role="group">{renderFolder(f, level + 1)}</ul>
          </li>
        );
      })}
      {node.sites.map((s) => {
        const selected = selectedSite?.id === s.id;
        const state = sessions[s.id]?.state;
        return (
          <li
            key={`s:${s.id}`}
            role="treeitem"
            aria-selected={selected}
            aria-level={level}
            aria-label={s.name}
            tabIndex={selected ? 0 : -1}
            onKeyDown={(e) => {
              if (e.key === 'Enter') onConnect(s);
            }}
          >
            <div
              className="label"
              onClick={() => onSelect({ kind: 'site', id: s.id })}
              onDoubleClick={() => onConnect(s)}
              title={`${s.user}@${s.host}:${s.port}`}
            >
              <Icon name="server" className={`conn-${state ?? 'none'}`} />
              <span>{s.name}</span>
              <span className="muted">{s.host}</span>
            </div>
          </li>
        );
      })}
    </>
  );

  const empty = sites.sites.length === 0 && sites.folders.length === 0;
  return (
    <aside className="sites" aria-label="Site manager">
      <header>
        <h2>Sites</h2>
        <button type="button" onClick={() => setModal({ kind: 'form', form: newSiteForm(currentFolder), hasPassword: false })}>
          New site
        </button>
        <button type="button" onClick={() => setModal({ kind: 'newFolder', parent: currentFolder })}>
          New folder
        </button>
        <button type="button" onClick={() => setModal({ kind: 'import' })}>
          Import…
        </button>
        <button type="button" disabled={sites.sites.length === 0} onClick={() => setModal({ kind: 'export' })}>
          Export…
        </button>
      </header>
      <ul role="tree" aria-label="Saved sites">
        {renderFolder(tree, 1)}
        {empty && <li className="muted">No saved sites yet.</li>}
      </ul>
      <div className="site-actions" role="toolbar" aria-label="Site actions">
        <button type="button" className="primary" disabled={!canConnect} onClick={() => selectedSite && onConnect(selectedSite)}>
          Connect
        </button>
        <button
          type="button"
          disabled={!selectedSite}
          onClick={() => selectedSite && setModal({ kind: 'form', form: siteToForm(selectedSite), hasPassword: selectedSite.hasPassword })}
        >
          Edit
        </button>
        <button
          type="button"
          disabled={!selectedSite}
          onClick={() =>
            selectedSite &&
            run('Duplicating the site', async () => {
              const copy = await unwrap(bridge.sitesDuplicate({ siteId: selectedSite.id }));
              onSelect({ kind: 'site', id: copy.id });
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

      {modal?.kind === 'form' && (
        <SiteFormDialog
          initial={modal.form}
          folders={sites.folders}
          hasPassword={modal.hasPassword}
          settings={settings}
          onCancel={() => setModal(null)}
          onSave={async (site, password, allowInsecure) => {
            if (allowInsecure) {
              const r = await bridge.settingsSet({ allowInsecureSecretStorage: true });
              if (!r.ok) return r.error.message;
              await store.refreshSettings();
            }
            const r = await bridge.sitesSave(password === undefined ? { site } : { site, password });
            if (!r.ok) return r.error.message;
            setModal(null);
            await store.refreshSites();
            onSelect({ kind: 'site', id: r.value.id });
            return null;
          }}
        />
      )}
      {modal?.kind === 'import' && (
        <ImportDialog settings={settings} onImported={() => void store.refreshSites()} onClose={() => setModal(null)} />
      )}
      {modal?.kind === 'export' && <ExportDialog onClose={() => setModal(null)} />}
      {modal?.kind === 'newFolder' && (
        <PromptDialog
          title="New folder"
          label="Folder name"
          submitLabel="Create"
          validate={(v) => (v.trim() === '' ? 'Name is required' : v.includes('/') ? 'Use a single name (no /)' : null)}
          onCancel={() => setModal(null)}
          onSubmit={(name) => {
            const path = modal.parent ? `${modal.parent}/${name.trim()}` : name.trim();
            setModal(null);
            void run('Creating the folder', () => unwrap(bridge.foldersCreate({ path })));
          }}
        />
      )}
      {(modal?.kind === 'deleteSite' || modal?.kind === 'deleteFolder') && (() => {
        const site = modal.kind === 'deleteSite' ? modal.site : null;
        const folder = modal.kind === 'deleteFolder' ? modal.path : '';
        return (
          <ConfirmDialog
            title={site ? 'Delete site' : 'Delete folder'}
            message={site
              ? `Delete the site "${site.name}"? Its stored password is deleted too.`
              : `Delete the folder "${folder}"? Only empty folders can be deleted.`}
            confirmLabel="Delete"
            danger
            onCancel={() => setModal(null)}
            onConfirm={() => {
              setModal(null);
              onSelect(null);
              if (site) void run('Deleting the site', () => unwrap(bridge.sitesDelete({ siteId: site.id })));
              else void run('Deleting the folder', () => unwrap(bridge.foldersDelete({ path: folder })));
            }}
          />
        );
      })()}
    </aside>
  );
}
