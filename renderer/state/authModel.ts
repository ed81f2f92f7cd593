/**
 * The login dialog as explicit states, one per `auth.prompt` kind: its title, the line that says a previous answer was
 * refused, the server's text (keyboard-interactive, RFC 4256 §3.3: name and instruction shown), the fields (hidden
 * unless the prompt's echo flag says otherwise) and whether a Remember box is offered. Pure; unit-tested.
 */
import type { AuthPrompt } from '../../app/common/ipc/contract';

/** One field of the dialog. */
export interface AuthField {
  label: string;
  /** `password` hides what is typed (the prompt's echo flag is false). */
  type: 'password' | 'text';
}

/** What the dialog shows for a prompt. */
export interface AuthView {
  title: string;
  /** Shown as an alert when the previous answer was refused. */
  retryText?: string;
  /** The server's name and instruction lines (keyboard-interactive), else what is asked. */
  explanation: string;
  fields: AuthField[];
  submitLabel: string;
  /** The Remember box (passphrases: kept in the OS secret store). */
  remember: boolean;
}

/** `user@host`, with the port when not 22. */
function who(p: AuthPrompt): string {
  return `${p.user}@${p.host}${p.port === 22 ? '' : `:${p.port}`}`;
}

/** A prompt's text as a field label: the server's text without its trailing colon and spaces. */
export function fieldLabel(prompt: string): string {
  const label = prompt.trim().replace(/:$/, '').trim();
  return label === '' ? 'Answer' : label;
}

/** Maps a login prompt to its dialog state. */
export function authView(p: AuthPrompt): AuthView {
  const fields = p.prompts.map((q) => ({
    label: fieldLabel(q.prompt),
    type: q.echo ? ('text' as const) : ('password' as const),
  }));
  switch (p.kind) {
    case 'password':
      return {
        title: `Password for ${p.user}@${p.host}`,
        retryText: p.retry ? 'Wrong password, try again.' : undefined,
        explanation: `The server ${who(p)} asks for the account's password. It is used for this session only.`,
        fields,
        submitLabel: 'Connect',
        remember: false,
      };
    case 'passphrase':
      return {
        title: 'Passphrase for key',
        retryText: p.retry ? 'Wrong passphrase, try again.' : undefined,
        explanation: `The key file ${p.keyPath ?? ''} is encrypted. Its passphrase unlocks it for ${who(p)}.`,
        fields,
        submitLabel: 'Unlock',
        remember: p.canRemember === true,
      };
    case 'keyboard-interactive': {
      const server = [p.name, p.instructions]
        .map((t) => t?.trim() ?? '')
        .filter((t) => t !== '')
        .join('\n');
      return {
        title: `Login to ${p.user}@${p.host}`,
        retryText: p.retry ? 'The server refused the answer, try again.' : undefined,
        explanation: server || `The server ${who(p)} asks:`,
        fields,
        submitLabel: 'Continue',
        remember: false,
      };
    }
  }
}
