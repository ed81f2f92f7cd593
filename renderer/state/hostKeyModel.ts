/**
 * Host-key dialog as explicit states (no booleans scattered in JSX): each prompt kind maps to a tone,
 * a title, an explanation and the only answers it allows. Pure; unit-tested.
 *
 * - unknown: neutral; accept once / accept and save / cancel.
 * - changed: red; old (with file:line and first/last seen) and new fingerprints; Cancel (reject) is the default;
 *   when the saved keys are in the file Sluice writes, also "Add as an additional key" and "Replace the saved key"
 *   (the latter only after the host name is typed exactly). Neither connects: the app connects again afterwards.
 * - revoked: red; the only answer is Cancel.
 * - rotated: neutral; the server proved a new key for a host already trusted: save it, or not now.
 */
import { formatDate, type DateStyle } from '../format/format';
import type { HostKeyAnswer, HostKeyPrompt } from '../../app/common/ipc/contract';

/** One button of the dialog. */
export interface HostKeyAction {
  answer: HostKeyAnswer;
  label: string;
  style: 'primary' | 'plain';
  /** Needs the host name typed exactly before it is sent (`replace`). */
  confirmHost?: boolean;
}

/** The note shown when a `@cert-authority` line matches the host (Sluice does not trust host certificates). */
export const CERT_AUTHORITY_NOTE =
  'known_hosts has a @cert-authority line for this host, but host certificates are not trusted by Sluice: the key is checked as a plain key.';

/** A date of the first/last-seen table as the dialogs show it (the app's one date format); `null`/absent = unknown. */
export function seenText(ms: number | null | undefined, style?: DateStyle): string {
  if (ms === null || ms === undefined) return 'unknown';
  return formatDate(ms, style);
}

/** What the dialog shows for a prompt. */
export interface HostKeyView {
  tone: 'neutral' | 'danger';
  title: string;
  explanation: string;
  actions: HostKeyAction[];
  /** The answer whose button has the initial focus (Enter). Always the safe one. */
  defaultAnswer: HostKeyAnswer;
  showPrevious: boolean;
}

/** Maps a prompt to its dialog state. */
export function hostKeyView(prompt: HostKeyPrompt): HostKeyView {
  const name = prompt.port === 22 ? prompt.host : `[${prompt.host}]:${prompt.port}`;
  // A jump host's key (ProxyJump) is checked like the site's own; the dialog says whose it is.
  const where = prompt.jumpHost ? `the jump host ${name}` : name;
  switch (prompt.kind) {
    case 'unknown':
      return {
        tone: 'neutral',
        title: 'Unknown host key',
        explanation: `This is the first connection to ${where}. Compare the fingerprint with the one your server administrator gave you before you trust it.`,
        actions: [
          { answer: 'reject', label: 'Cancel', style: 'plain' },
          { answer: 'accept-once', label: 'Accept once', style: 'plain' },
          { answer: 'accept-save', label: 'Accept and save', style: 'primary' },
        ],
        defaultAnswer: 'reject',
        showPrevious: false,
      };
    case 'changed':
      return {
        tone: 'danger',
        title: 'WARNING: host key has changed',
        explanation:
          `The key presented by ${where} does not match the key saved for it. Someone may be intercepting the connection ` +
          '(a man-in-the-middle attack), or the server was reinstalled. The connection has been stopped and nothing will be transferred. ' +
          (prompt.canEdit
            ? "Only if the server's administrator confirmed the new fingerprint: replace the saved key, or add the new one " +
              'next to it (several servers behind one name).'
            : `If the change is expected, remove the old key (ssh-keygen -R ${name}) and connect again.`),
        actions: [
          { answer: 'reject', label: 'Cancel', style: 'plain' },
          ...(prompt.canEdit
            ? ([
                { answer: 'add', label: 'Add as an additional key', style: 'plain' },
                { answer: 'replace', label: 'Replace the saved key…', style: 'plain', confirmHost: true },
              ] satisfies HostKeyAction[])
            : []),
        ],
        defaultAnswer: 'reject',
        showPrevious: true,
      };
    case 'revoked':
      return {
        tone: 'danger',
        title: 'WARNING: host key is revoked',
        explanation: `The key presented by ${where} is marked @revoked in known_hosts. The connection has been stopped and nothing will be transferred.`,
        actions: [{ answer: 'reject', label: 'Cancel', style: 'plain' }],
        defaultAnswer: 'reject',
        showPrevious: false,
      };
    case 'rotated':
      return {
        tone: 'neutral',
        title: 'Server offers a new host key',
        explanation: `${where} proved it also holds the key below (OpenSSH host-key rotation). Save it so future connections can use it.`,
        actions: [
          { answer: 'reject', label: 'Not now', style: 'plain' },
          { answer: 'accept-save', label: 'Save new key', style: 'primary' },
        ],
        defaultAnswer: 'reject',
        showPrevious: true,
      };
  }
}
