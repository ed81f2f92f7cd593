/**
 * Host-key prompt (see state/hostKeyModel.ts for the states). The changed/revoked variants are red alert dialogs
 * whose default is Cancel; a changed key may be replaced (after typing the host name) or added.
 */
import { useId, useState } from 'react';
import type { HostKeyAnswer, HostKeyPrompt, SavedHostKey } from '../../app/common/ipc/contract';
import { keyTypeLabel } from '../../app/common/model/hostKey';
import { CERT_AUTHORITY_NOTE, hostKeyView, seenText } from '../state/hostKeyModel';
import { Dialog } from './Dialog';

export interface HostKeyDialogProps {
  prompt: HostKeyPrompt;
  siteName?: string;
  /** `confirmHost`: the typed host name, for `replace`. */
  onAnswer: (answer: HostKeyAnswer, confirmHost?: string) => void;
}

/** The host-key dialog for one prompt. */
export function HostKeyDialog({ prompt, siteName, onAnswer }: HostKeyDialogProps) {
  const view = hostKeyView(prompt);
  const explId = useId();
  const danger = view.tone === 'danger';
  const [confirming, setConfirming] = useState(false);
  return (
    <Dialog
      title={view.title}
      onCancel={() => onAnswer('reject')}
      className={danger ? 'changed' : 'hostkey'}
      alert={danger}
      describedBy={explId}
    >
      <div data-hostkey-kind={prompt.kind}>
        <p id={explId}>{view.explanation}</p>
        {prompt.certAuthority && <p className="note">{CERT_AUTHORITY_NOTE}</p>}
        <dl>
          {siteName && (
            <>
              <dt>Site</dt>
              <dd>{siteName}</dd>
            </>
          )}
          <dt>Host</dt>
          <dd className="mono">{prompt.port === 22 ? prompt.host : `${prompt.host}:${prompt.port}`}</dd>
          <dt>{danger ? 'New key' : 'Key'}</dt>
          <dd>
            <span className="mono" aria-label={danger ? 'New key type' : 'Key type'}>
              {keyTypeLabel(prompt.presented.keyType)}
            </span>{' '}
            <output className="mono" aria-label={danger ? 'New fingerprint' : 'Fingerprint'}>
              {prompt.presented.fingerprint}
            </output>
          </dd>
          {view.showPrevious &&
            (prompt.previous ?? []).map((k, i) => (
              <SavedKeyRow key={`${k.fingerprint}-${i}`} label={danger ? 'Saved key' : 'Trusted key'} saved={k} />
            ))}
        </dl>
        {confirming ? (
          <ReplaceConfirm
            host={prompt.host}
            onCancel={() => setConfirming(false)}
            onReplace={(typed) => onAnswer('replace', typed)}
          />
        ) : (
          <div className="buttons">
            {view.actions.map((a) => (
              <button
                key={a.answer}
                type="button"
                className={a.style === 'primary' ? 'primary' : undefined}
                data-autofocus={a.answer === view.defaultAnswer ? true : undefined}
                onClick={() => (a.confirmHost ? setConfirming(true) : onAnswer(a.answer))}
              >
                {a.label}
              </button>
            ))}
          </div>
        )}
      </div>
    </Dialog>
  );
}

/** The typed confirmation of "Replace the saved key": the button is enabled only for the exact host name. */
function ReplaceConfirm({
  host,
  onCancel,
  onReplace,
}: {
  host: string;
  onCancel: () => void;
  onReplace: (typed: string) => void;
}) {
  const [typed, setTyped] = useState('');
  const inputId = useId();
  const exact = typed === host;
  return (
    <form
      className="confirm-replace"
      onSubmit={(e) => {
        e.preventDefault();
        if (exact) onReplace(typed);
      }}
    >
      <label htmlFor={inputId}>
        Type the host name <span className="mono">{host}</span> to replace the saved key
      </label>
      <input
        id={inputId}
        className="mono"
        autoFocus
        autoComplete="off"
        spellCheck={false}
        value={typed}
        onChange={(e) => setTyped(e.target.value)}
      />
      <div className="buttons">
        <button type="button" onClick={onCancel}>
          Back
        </button>
        <button type="submit" className="danger" disabled={!exact}>
          Replace the saved key
        </button>
      </div>
    </form>
  );
}

function SavedKeyRow({ label, saved }: { label: string; saved: SavedHostKey }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>
        <span className="mono">{keyTypeLabel(saved.keyType)}</span>{' '}
        <output className="mono" aria-label={`${label} fingerprint`}>
          {saved.fingerprint}
        </output>
        {saved.file && (
          <div className="small mono" aria-label={`${label} location`}>
            {saved.file}:{saved.line}
          </div>
        )}
        {saved.firstSeen !== undefined && (
          <div className="small" aria-label={`${label} seen`}>
            first seen {seenText(saved.firstSeen)}, last seen {seenText(saved.lastSeen)}
          </div>
        )}
      </dd>
    </>
  );
}
