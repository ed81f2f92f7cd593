/**
 * The site manager's dialogs: the site form (new, edit, a quick-connect draft), Import…, Export…, a new folder's
 * name, and the confirmation of a site's or a folder's deletion. Each change is saved through the bridge, then the
 * sites are read again (`run` logs a failure).
 */
import type { Settings } from '../../app/common/ipc/contract';
import type { SiteView } from '../../app/common/model/site';
import { unwrap } from '../bridge/bridge';
import { useBridge, useStore } from '../state/react';
import type { SiteForm } from '../state/siteForm';
import { ConfirmDialog, PromptDialog } from './Dialog';
import { ExportDialog } from './ExportDialog';
import { ImportDialog } from './ImportDialog';
import { SiteFormDialog } from './SiteForm';
import type { TreeSelection } from './SiteTree';

/** The site manager's open dialog. */
export type SiteModal =
  | { kind: 'form'; form: SiteForm; hasPassword: boolean }
  | { kind: 'newFolder'; parent: string }
  | { kind: 'deleteSite'; site: SiteView }
  | { kind: 'deleteFolder'; path: string }
  | { kind: 'import' }
  | { kind: 'export' }
  | null;

export interface SiteManagerDialogsProps {
  modal: SiteModal;
  setModal: (m: SiteModal) => void;
  folders: string[];
  settings: Settings | null;
  onSelect: (sel: TreeSelection) => void;
  /** Runs a change, logs its failure as "<what> failed: …" and reads the sites again. */
  run: (what: string, action: () => Promise<unknown>) => Promise<void>;
}

/** The delete confirmation of a site or a folder. */
function DeleteDialog(p: SiteManagerDialogsProps & { site: SiteView | null; folder: string }) {
  const bridge = useBridge();
  const { site, folder } = p;
  return (
    <ConfirmDialog
      title={site ? 'Delete site' : 'Delete folder'}
      message={
        site
          ? `Delete the site "${site.name}"? Its stored password is deleted too.`
          : `Delete the folder "${folder}"? Only empty folders can be deleted.`
      }
      confirmLabel="Delete"
      danger
      onCancel={() => p.setModal(null)}
      onConfirm={() => {
        p.setModal(null);
        p.onSelect(null);
        if (site) void p.run('Deleting the site', () => unwrap(bridge.sitesDelete({ siteId: site.id })));
        else void p.run('Deleting the folder', () => unwrap(bridge.foldersDelete({ path: folder })));
      }}
    />
  );
}

/** The site form, saving the site (and, when asked, allowing insecure secret storage first). */
function FormDialog(p: SiteManagerDialogsProps & { form: SiteForm; hasPassword: boolean }) {
  const store = useStore();
  const bridge = useBridge();
  return (
    <SiteFormDialog
      initial={p.form}
      folders={p.folders}
      hasPassword={p.hasPassword}
      settings={p.settings}
      onCancel={() => p.setModal(null)}
      onSave={async (site, password, allowInsecure) => {
        if (allowInsecure) {
          const r = await bridge.settingsSet({ allowInsecureSecretStorage: true });
          if (!r.ok) return r.error.message;
          await store.refreshSettings();
        }
        const r = await bridge.sitesSave(password === undefined ? { site } : { site, password });
        if (!r.ok) return r.error.message;
        p.setModal(null);
        await store.refreshSites();
        p.onSelect({ kind: 'site', id: r.value.id });
        return null;
      }}
    />
  );
}

/** The open dialog of the site manager, if any. */
export function SiteManagerDialogs(p: SiteManagerDialogsProps) {
  const store = useStore();
  const bridge = useBridge();
  const { modal, setModal } = p;
  if (modal === null) return null;
  switch (modal.kind) {
    case 'form':
      return <FormDialog {...p} form={modal.form} hasPassword={modal.hasPassword} />;
    case 'import':
      return (
        <ImportDialog
          settings={p.settings}
          onImported={() => void store.refreshSites()}
          onClose={() => setModal(null)}
        />
      );
    case 'export':
      return <ExportDialog onClose={() => setModal(null)} />;
    case 'newFolder':
      return (
        <PromptDialog
          title="New folder"
          label="Folder name"
          submitLabel="Create"
          validate={(v) => (v.trim() === '' ? 'Name is required' : v.includes('/') ? 'Use a single name (no /)' : null)}
          onCancel={() => setModal(null)}
          onSubmit={(name) => {
            const path = modal.parent ? `${modal.parent}/${name.trim()}` : name.trim();
            setModal(null);
            void p.run('Creating the folder', () => unwrap(bridge.foldersCreate({ path })));
          }}
        />
      );
    case 'deleteSite':
      return <DeleteDialog {...p} site={modal.site} folder="" />;
    case 'deleteFolder':
      return <DeleteDialog {...p} site={null} folder={modal.path} />;
  }
}
