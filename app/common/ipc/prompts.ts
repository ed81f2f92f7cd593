/**
 * The dialogs' questions in the IPC contract (app/common/ipc/contract.ts re-exports them): host keys (unknown,
 * changed, revoked; known_hosts entries; keys a trusted server announced) and login questions (password,
 * keyboard-interactive rounds, key passphrases).
 */
/**
 * Host key dialog content.
 * - `unknown`: neutral dialog; answers accept-once / accept-save / reject; the connect waits for the answer.
 * - `changed` / `revoked`: the red dialog. The connect has already failed (HOSTKEY_CHANGED / HOSTKEY_REVOKED).
 *   `reject` (Cancel) only closes it. For `changed` only, and only when `canEdit`: `replace` (with `confirmHost`
 *   equal to `host`) removes the saved key line(s) of that host/key type and saves the presented key; `add` saves the
 *   presented key next to the old ones (hosts behind a load balancer). Neither connects: connect again afterwards.
 * - `rotated`: reserved. The engine learns keys a trusted server announces (hostkeys-00@openssh.com) without asking
 *   and reports them with the `hostKey.learned` event (a neutral notice, no dialog).
 */
export interface HostKeyPrompt {
  promptId: string;
  siteId: string;
  host: string;
  port: number;
  /** The key is a jump host's (ProxyJump, the site's jump host) on the way to the site, not the site's own. */
  jumpHost?: boolean;
  kind: 'unknown' | 'changed' | 'rotated' | 'revoked';
  /** The key the server presented. */
  presented: HostKeyId;
  /** For `changed` / `rotated`: the key(s) we trusted before, with where they are and when they were seen. */
  previous?: SavedHostKey[];
  /** For `changed`: whether `replace` / `add` are possible (the saved keys are all in the file Sluice writes). */
  canEdit?: boolean;
  /**
   * A `@cert-authority` line in known_hosts matches this host. Sluice does not trust host certificates (ssh2 offers
   * no `*-cert-v01@openssh.com` host-key algorithm, so the server's plain key is checked); the dialog says so.
   */
  certAuthority?: boolean;
}

/** A saved key as a dialog shows it. Dates are ms since the epoch; `null` = unknown (e.g. saved by `ssh`). */
export interface SavedHostKey extends HostKeyId {
  file?: string;
  /** 1-based line in `file`. */
  line?: number;
  firstSeen?: number | null;
  lastSeen?: number | null;
}

/**
 * One key line of a known_hosts file, for the known-hosts manager (sshd(8) SSH_KNOWN_HOSTS FILE FORMAT).
 * `hosts` is the host field as written: a pattern list, or `|1|salt|hash` when `hashed`.
 */
export interface KnownHostEntry {
  file: string;
  /** 1-based line. */
  line: number;
  marker: 'none' | 'cert-authority' | 'revoked';
  hosts: string;
  hashed: boolean;
  keyType: string;
  fingerprint: string;
  /** ms since the epoch; `null` = unknown (not seen or saved by Sluice). */
  firstSeen: number | null;
  lastSeen: number | null;
  /** Names of the saved sites whose host:port this line matches. */
  sites: string[];
  /** Whether Sluice may remove it (it is in the file Sluice writes). */
  editable: boolean;
}

/** A host key as the user sees it: its type (`ssh-ed25519`) and `SHA256:` fingerprint. */
export interface HostKeyId {
  keyType: string;
  fingerprint: string;
}

export type HostKeyAnswer = 'accept-once' | 'accept-save' | 'reject' | 'replace' | 'add';

/**
 * Keys a server announced with `hostkeys-00@openssh.com` (OpenSSH PROTOCOL §2.5, `UpdateHostKeys`) and proved,
 * which the engine appended to known_hosts because the connection's own key was already trusted from it.
 * Informational: nothing to answer.
 */
export interface HostKeysLearned {
  siteId: string;
  host: string;
  port: number;
  /** The newly saved keys (never empty). */
  keys: HostKeyId[];
  /** The known_hosts file they were appended to. */
  file: string;
}

/**
 * A login question for the user (the connect waits for `auth.answer`, or fails AUTH_FAILED when it is cancelled):
 * - `password`: the site's password (none saved or given, or `retry`: the server refused the previous one — "wrong
 *   password, try again"; asked again up to the server's limit of tries, OpenSSH's MaxAuthTries).
 * - `keyboard-interactive`: one round of RFC 4256 (§3.2): the server's `name`, `instructions` and `prompts`, each
 * hidden unless `echo`; a saved password answered the round's password prompt already (see ssh/keyboardInteractive.ts).
 *   `retry`: the server refused the previous answers.
 * - `passphrase`: the passphrase of the encrypted key file `keyPath` (`retry`: the previous one was wrong);
 *   `canRemember`: the answer may be kept in the secret store (the answer's `remember`).
 * Answers travel renderer -> engine only; no event or log line carries one.
 */
export interface AuthPrompt {
  promptId: string;
  siteId: string;
  host: string;
  port: number;
  user: string;
  kind: 'password' | 'keyboard-interactive' | 'passphrase';
  /** The previous answer was refused (wrong password, code or passphrase). */
  retry: boolean;
  /** keyboard-interactive: the server's name and instruction for the round (may be empty). */
  name?: string;
  instructions?: string;
  /** The fields to fill, in order (one for a password or passphrase). */
  prompts: Array<{ prompt: string; echo: boolean }>;
  /** passphrase: the key file. */
  keyPath?: string;
  /** The answer may be remembered (passphrases, in the secret store). */
  canRemember?: boolean;
}
