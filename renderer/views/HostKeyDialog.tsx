/**
 * Host-key prompt (see state/hostKeyModel.ts for the states). The changed/revoked variants are red
 * alert dialogs whose only button is Cancel.
 */
import { useId } from 'react';
import type { HostKeyAnswer, HostKeyPrompt } from '../../app/common/ipc/contract';
import { keyTypeLabel } from '../../app/common/model/hostKey';
import { hostKeyView } from '../state/hostKeyModel';
import { Dialog } from './Dialog';

export interface HostKeyDialogProps {
  prompt: HostKeyPrompt;
  siteName?: string;
  onAnswer: (answer: HostKeyAnswer) => void;
}

/** The host-key dialog for one prompt. */
export function HostKeyDialog({ prompt, siteName, onAnswer }: HostKeyDialogProps) {
  const view = hostKeyView(prompt);
  const explId = useId();
  const danger = view.tone === 'danger';
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
              <FragmentRow key={`${k.fingerprint}-${i}`} label={danger ? 'Saved key' : 'Trusted key'} keyType={k.keyType} fingerprint={k.fingerprint} />
            ))}
        </dl>
        <div className="buttons">
          {view.actions.map((a) => (
            <button
              key={a.answer}
              type="button"
              className={a.style === 'primary' ? 'primary' : undefined}
              data-autofocus={a.answer === view.defaultAnswer ? true : undefined}
              onClick={() => onAnswer(a.answer)}
            >
              {a.label}
            </button>
          ))}
        </div>
      </div>
    </Dialog>
  );
}

function FragmentRow({ label, keyType, fingerprint }: { label: string; keyType: string; fingerprint: string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>
        <span className="mono">{keyTypeLabel(keyType)}</span>{' '}
        <output className="mono" aria-label={`${label} fingerprint`}>
          {fingerprint}
        </output>
      </dd>
    </>
  );
}
