/**
 * Login questions put to the user as `auth.prompt` dialogs and answered with `auth.answer`: a site's password (again
 * after a refusal: "wrong password, try again"), keyboard-interactive rounds (RFC 4256), encrypted keys' passphrases
 * (optionally remembered in the secret store, per site and key path). {@link loginOptions} turns them into a site
 * engine's login options. Answers are never logged: each one hidden is added to the site's redacted secrets.
 */
import { randomUUID } from 'node:crypto';
import type { AuthPrompt } from '../../common/ipc/contract';
import type { Site } from '../../common/model/site';
import { SluiceError } from '../errors';
import type { EngineOptions } from '../engine/engine';
import type { PassphraseStore, Prompter } from '../ssh/auth';
import { isPasswordPrompt, type KeyboardRound } from '../ssh/keyboardInteractive';
import type { SecretStore } from '../stores/sites';
import type { ServiceHub } from './hub';

/** The user's answer to a login question. */
export interface AuthReply {
  answers: string[];
  remember: boolean;
}

interface Pending {
  count: number;
  resolve(reply: AuthReply | null): void;
}

/** The secret store's id of a key file's passphrase for a site (site passwords use the bare site id). */
export function passphraseSecretId(siteId: string, keyPath: string): string {
  return `${siteId}\npassphrase\n${keyPath}`;
}

/** The open login questions: each waits for `auth.answer`, or is closed with its connect attempt. */
export class AuthPrompts {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly hub: ServiceHub) {}

  /**
   * Emits `auth.prompt` and waits for the answer.
   * @param owner the ids of the connect attempt's open prompts: this one is added (and removed once answered)
   * @returns the answers, or null when the user cancelled or the attempt ended first
   */
  ask(prompt: Omit<AuthPrompt, 'promptId'>, owner: Set<string>): Promise<AuthReply | null> {
    const promptId = randomUUID();
    return new Promise<AuthReply | null>((resolve) => {
      this.pending.set(promptId, {
        count: prompt.prompts.length,
        resolve: (r) => {
          owner.delete(promptId);
          resolve(r);
        },
      });
      owner.add(promptId);
      this.hub.emit('auth.prompt', { ...prompt, promptId });
    });
  }

  /**
   * `auth.answer`: `answers` (one per prompt) or none (cancel).
   * @throws SluiceError NOT_FOUND when the question is no longer open; INVALID_REQUEST when the answers do not match
   */
  answer(promptId: string, answers: string[] | undefined, remember: boolean): void {
    const p = this.pending.get(promptId);
    if (!p) throw new SluiceError('NOT_FOUND', 'This login question is no longer open');
    if (answers && answers.length !== p.count)
      throw new SluiceError('INVALID_REQUEST', `${p.count} answer(s) expected, got ${answers.length}`);
    this.pending.delete(promptId);
    p.resolve(answers ? { answers, remember } : null);
    this.hub.emit('prompt.closed', { promptId });
  }

  /** Closes an open question as cancelled (its connect attempt ended); false when `promptId` is not one. */
  close(promptId: string): boolean {
    const p = this.pending.get(promptId);
    if (!p) return false;
    this.pending.delete(promptId);
    p.resolve(null);
    this.hub.emit('prompt.closed', { promptId });
    return true;
  }
}

/** What a site's session lends its logins. */
export interface LoginContext {
  site: Site;
  /** Ids of the open prompts of the connect attempt under way (closed when it ends). */
  prompts: Set<string>;
  /** Secrets redacted from the site's log lines; hidden answers are added. */
  secrets: Set<string>;
  /** The password given or typed in this session (a reconnect logs in with it). */
  password?: string;
  /** Passphrases that opened keys in this session, by key path (a reconnect does not ask again). */
  passphrases: Map<string, string>;
}

/** The login options of a site's engine (see {@link loginOptions}). */
export type LoginOptions = Pick<EngineOptions, 'askPassword' | 'askKeyboard'> & {
  prompter?: Prompter;
  passphrases?: PassphraseStore;
};

/**
 * A site engine's login options: its password asked (password sites) and asked again after a refusal, every
 * keyboard-interactive round asked (an informational one is logged), and for key sites an encrypted key's passphrase
 * asked and kept (this session; the secret store when the user ticks Remember).
 */
export function loginOptions(
  dialogs: AuthPrompts,
  c: LoginContext,
  store: SecretStore,
  hub: Pick<ServiceHub, 'log'>,
): LoginOptions {
  const { site } = c;
  const base = { siteId: site.id, host: site.host, port: site.port, user: site.user };
  const hidden = (answer: string): void => {
    if (answer !== '') c.secrets.add(answer);
  };
  const askKeyboard = async (round: KeyboardRound): Promise<string[]> => {
    if (round.prompts.length === 0) {
      const text = [round.name, round.instructions].filter((t) => t.trim() !== '').join(': ');
      if (text) hub.log('info', `The server says: ${text}`, site.id);
      return [];
    }
    const reply = await dialogs.ask(
      {
        ...base,
        kind: 'keyboard-interactive',
        retry: round.again,
        name: round.name,
        instructions: round.instructions,
        prompts: round.prompts,
      },
      c.prompts,
    );
    if (!reply) throw new SluiceError('AUTH_FAILED', `Login to ${site.user}@${site.host} cancelled`);
    round.prompts.forEach((p, i) => {
      if (!p.echo) hidden(reply.answers[i]);
      if (isPasswordPrompt(p.prompt) && site.authMethod === 'password') c.password = reply.answers[i];
    });
    return reply.answers;
  };
  const options: LoginOptions = { askKeyboard };
  if (site.authMethod === 'password') {
    options.askPassword = async (again) => {
      const reply = await dialogs.ask(
        { ...base, kind: 'password', retry: again, prompts: [{ prompt: 'Password', echo: false }] },
        c.prompts,
      );
      if (!reply) return undefined;
      hidden(reply.answers[0]);
      c.password = reply.answers[0];
      return c.password;
    };
  }
  if (site.authMethod === 'key') Object.assign(options, keyLoginOptions(dialogs, c, store, base, hidden));
  return options;
}

/** A key site's login options: an encrypted key's passphrase asked, kept for the session, stored when remembered. */
function keyLoginOptions(
  dialogs: AuthPrompts,
  c: LoginContext,
  store: SecretStore,
  base: Pick<AuthPrompt, 'siteId' | 'host' | 'port' | 'user'>,
  hidden: (answer: string) => void,
): Pick<LoginOptions, 'prompter' | 'passphrases'> {
  const siteId = c.site.id;
  const prompter: Prompter = {
    // Unused: ssh/passphrase.ts asks through passphrase() when the prompter has it.
    secret: async () => '',
    passphrase: async ({ keyPath, again }) => {
      const reply = await dialogs.ask(
        {
          ...base,
          kind: 'passphrase',
          retry: again,
          keyPath,
          canRemember: true,
          prompts: [{ prompt: 'Passphrase', echo: false }],
        },
        c.prompts,
      );
      if (!reply) return { passphrase: '' };
      hidden(reply.answers[0]);
      return { passphrase: reply.answers[0], remember: reply.remember };
    },
  };
  const passphrases: PassphraseStore = {
    get: async (keyPath) => c.passphrases.get(keyPath) ?? (await store.get(passphraseSecretId(siteId, keyPath))),
    set: (keyPath, passphrase) => store.set(passphraseSecretId(siteId, keyPath), passphrase),
    delete: async (keyPath) => {
      c.passphrases.delete(keyPath);
      await store.delete(passphraseSecretId(siteId, keyPath));
    },
    opened: (keyPath, passphrase) => {
      c.passphrases.set(keyPath, passphrase);
      hidden(passphrase);
    },
  };
  return { prompter, passphrases };
}
