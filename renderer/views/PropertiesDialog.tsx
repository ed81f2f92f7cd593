/**
 * A remote file's Properties (#26 item 2; the remote pane's "Properties…", Alt+Enter): path, type, size, modified,
 * owner and group, a link's target, and its permissions (views/ModeGrid.tsx); Apply changes the mode by
 * `remote.chmod`, a refusal shows the server's message here.
 */
import { useEffect, useState } from 'react';
import type { FsEntry, RemoteProps } from '../../app/common/ipc/contract';
import { formatBytes, formatDate } from '../format/format';
import { chmodRequest, modeForm, type ModeForm } from '../state/modeForm';
import { useBridge } from '../state/react';
import { Dialog } from './Dialog';
import { ModeGrid } from './ModeGrid';

const TYPE_NAMES = { file: 'File', dir: 'Folder', symlink: 'Symbolic link', other: 'Special file' } as const;

export interface PropertiesDialogProps {
  siteId: string;
  path: string;
  /** The pane's row of it: the owner's and group's names its long listing gave (STAT carries only the ids). */
  listed?: Pick<FsEntry, 'owner' | 'group'>;
  onClose: () => void;
  /** After a successful Apply (the pane reloads). */
  onApplied: () => void;
}

/** The dialog: loads the path's properties, then shows them with the permissions form. */
export function PropertiesDialog({ siteId, path, listed, onClose, onApplied }: PropertiesDialogProps) {
  const bridge = useBridge();
  const [props, setProps] = useState<RemoteProps | null>(null);
  const [form, setForm] = useState<ModeForm | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    void bridge.remoteStat({ siteId, path }).then((r) => {
      if (!r.ok) return setError(r.error.message);
      setProps(r.value);
      setForm(modeForm(r.value.mode));
    });
  }, [bridge, siteId, path]);
  const request = form && chmodRequest(form);
  const apply = async () => {
    if (!request) return;
    setBusy(true);
    setError(null);
    const r = await bridge.remoteChmod({ siteId, path, ...request });
    setBusy(false);
    if (!r.ok) return setError(r.error.message);
    onApplied();
    onClose();
  };
  return (
    <Dialog title={`Properties of ${path.split('/').pop() || path}`} onCancel={onClose} className="properties">
      {props && <PropsList props={props} listed={listed} />}
      {props && form && <ModeGrid form={form} folder={props.type === 'dir'} onChange={setForm} />}
      {error && (
        <p className="error-text server-text" role="alert" aria-label="Properties error">
          {error}
        </p>
      )}
      <div className="buttons">
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className="primary" disabled={!request || busy} onClick={() => void apply()}>
          Apply
        </button>
      </div>
    </Dialog>
  );
}

/** A name with its id (`alice (1000)`), the id alone when the listing gave no other name, `—` when unknown. */
function ownerName(name: string | undefined, id: number | undefined): string {
  if (id === undefined) return name ?? '—';
  return name && name !== String(id) ? `${name} (${id})` : String(id);
}

/** Path, type, size, modified, owner, group and a link's target. */
function PropsList({ props: p, listed }: { props: RemoteProps; listed?: Pick<FsEntry, 'owner' | 'group'> }) {
  return (
    <dl aria-label="Properties">
      <dt>Path</dt>
      <dd>{p.path}</dd>
      <dt>Type</dt>
      <dd>{TYPE_NAMES[p.type]}</dd>
      {p.link && <LinkTarget link={p.link} />}
      <dt>Size</dt>
      <dd>{p.type === 'dir' ? '—' : `${formatBytes(p.size)} (${p.size.toLocaleString()} bytes)`}</dd>
      <dt>Modified</dt>
      <dd>{formatDate(p.mtimeMs)}</dd>
      <dt>Owner</dt>
      <dd>{ownerName(listed?.owner, p.uid)}</dd>
      <dt>Group</dt>
      <dd>{ownerName(listed?.group, p.gid)}</dd>
    </dl>
  );
}

function LinkTarget({ link }: { link: NonNullable<RemoteProps['link']> }) {
  return (
    <>
      <dt>Link target</dt>
      <dd>
        {link.target}
        {link.targetType ? ` (${TYPE_NAMES[link.targetType].toLowerCase()})` : ' (missing)'}
      </dd>
    </>
  );
}
