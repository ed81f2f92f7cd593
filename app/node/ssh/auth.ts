/**
 * What a connection offers the server for user authentication (RFC 4252), gathered once in the
 * coordinating thread and posted to each connection worker, where {@link makeAuthHandler} replays it.
 * Secrets (key bytes, passphrases, passwords) are never logged nor put in error messages.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AuthHandlerMiddleware, AuthenticationType, AnyAuthMethod, ParsedKey } from 'ssh2';
import { SluiceError, displayText, fromLocalError } from '../errors';
import { ssh2ParseKey } from '../ssh2x';
import { expandTilde, homeOf } from '../sys/platformPaths';
import { keyboardMethod, type KeyboardRound, type KeyboardState } from './keyboardInteractive';
import { tryParse, unlockKey, type PassphraseStore, type Prompter } from './passphrase';

export { PASSPHRASE_TRIES, type PassphraseAnswer, type PassphraseStore, type Prompter } from './passphrase';
import { describeAgentKey, filteredAgent } from './agentFilter';
import { findAgent } from './agentLocation';

/** One private key to offer. `privateKey` is the file's bytes; ssh2 parses it again with `passphrase`. */
export interface AuthKey {
  path: string;
  privateKey: Buffer;
  passphrase?: string;
  /** Key type as parsed, e.g. `ssh-ed25519` (for messages). */
  type?: string;
}

/** Everything a worker needs to authenticate; plain data, safe to post to a worker thread. */
export interface AuthMaterial {
  username: string;
  /** ssh-agent socket path (SSH_AUTH_SOCK). */
  agent?: string;
  keys: AuthKey[];
  password?: string;
  /**
   * Offer keyboard-interactive (RFC 4256) last, when the server allows it: the password answers its first password
   * prompt, the other prompts go to the prompter (ssh/keyboardInteractive.ts). gatherAuth sets it.
   */
  tryKeyboardInteractive: boolean;
  /**
   * ssh_config `IdentitiesOnly yes`: only the agent's keys with these public blobs (base64 of the SSH encoding) are
   * offered; absent: every agent key.
   */
  agentKeys?: string[];
}

export interface AuthOptions {
  /** Login name; default `os.userInfo().username`. */
  username?: string;
  /** `-i` files; when absent, ~/.ssh/id_ed25519, id_ecdsa, id_rsa are used if they exist. */
  identityFiles?: string[];
  /**
   * Offer ssh-agent; default: when SSH_AUTH_SOCK is set, or on Windows when the OpenSSH agent's or Pageant's pipe is
   * there (ssh/agentLocation.ts findAgent).
   */
  useAgent?: boolean;
  /** The platform whose agents are looked for; default process.platform (tests inject `win32`). */
  platform?: NodeJS.Platform;
  /** Password; default `env.SLUICE_PASSWORD`. */
  password?: string;
  /** Environment to read SSH_AUTH_SOCK and SLUICE_PASSWORD from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Home directory for default keys; default homeOf(env) (sys/platformPaths.ts: USERPROFILE on Windows). */
  home?: string;
  /** Interactive prompter (passphrases); absent in batch mode. */
  prompter?: Prompter;
  /** Passphrases kept for key files, tried before asking (the app's secret store); a right one asked may be kept. */
  passphrases?: PassphraseStore;
  /**
   * ssh_config `IdentityFile`s: tried after `identityFiles`, skipped when missing (a warning when unreadable); with
   * `identityFiles` they replace the default files, as in ssh(1).
   */
  configIdentityFiles?: string[];
  /** ssh_config `IdentitiesOnly yes`: offer only the agent keys that are those of the identity files. */
  identitiesOnly?: boolean;
}

/** Default identity files, in OpenSSH's order of preference (ssh_config(5) IdentityFile). */
export const DEFAULT_IDENTITY_FILES = ['id_ed25519', 'id_ecdsa', 'id_rsa'];

function isPpk(data: Buffer): boolean {
  return data.subarray(0, 64).toString('latin1').startsWith('PuTTY-User-Key-File-');
}

function ppkAdvice(file: string): string {
  return (
    `PuTTY key ${displayText(file)} is not supported (only PPK version 2 RSA/DSA keys are readable). ` +
    `Convert it with: puttygen ${displayText(file)} -O private-openssh -o ${displayText(file.replace(/\.ppk$/i, ''))}`
  );
}

/** Reads and parses one identity file; returns null (after a warning) when it must be skipped. */
async function loadKey(
  file: string,
  explicit: boolean,
  o: AuthOptions,
  warn: (m: string) => void,
): Promise<AuthKey | null> {
  let data: Buffer;
  try {
    data = await fs.promises.readFile(file);
  } catch (e) {
    if (explicit) throw fromLocalError(e, file, 'read identity file');
    warn(`Skipping identity ${displayText(file)}: ${fromLocalError(e, file).message}`);
    return null;
  }
  const first = tryParse(data);
  if (first.ok) return { path: file, privateKey: data, type: first.type };
  if (!first.encrypted) {
    const message = isPpk(data)
      ? ppkAdvice(file)
      : `Cannot use identity ${displayText(file)}: ${displayText(first.message)}`;
    if (explicit) throw new SluiceError('UNSUPPORTED_KEY', message);
    warn(message);
    return null;
  }
  const unlocked = await unlockKey(file, data, { prompter: o.prompter, passphrases: o.passphrases, warn });
  return unlocked && { path: file, privateKey: data, passphrase: unlocked.passphrase, type: unlocked.type };
}

function defaultUsername(env: NodeJS.ProcessEnv): string {
  try {
    return os.userInfo().username;
  } catch {
    return env.USER ?? env.USERNAME ?? env.LOGNAME ?? 'root';
  }
}

/**
 * Collects what to offer: ssh-agent (ssh/agentLocation.ts findAgent: SSH_AUTH_SOCK when it is a socket; on Windows
 * also a pipe or Pageant), `-i` key files (or the default
 * ~/.ssh/id_ed25519, id_ecdsa, id_rsa when none are given and they exist), and a password
 * (`opts.password`, else SLUICE_PASSWORD). Each key is parsed with ssh2's `utils.parseKey`; an encrypted key is
 * opened with its passphrase from `opts.passphrases`, else gets {@link PASSPHRASE_TRIES} passphrase prompts
 * (ssh/passphrase.ts unlockKey), or is skipped with a warning when there is no prompter.
 * @param onWarning receives human-readable notes about skipped identities (never secrets)
 * @throws SluiceError('UNSUPPORTED_KEY') for an explicit `-i` key ssh2 cannot read (with `puttygen` advice
 *   for PuTTY keys other than PPK v2 RSA/DSA); SluiceError('LOCAL_IO') when an explicit `-i` file cannot be read
 */
export async function gatherAuth(opts: AuthOptions, onWarning?: (msg: string) => void): Promise<AuthMaterial> {
  const env = opts.env ?? process.env;
  const warn = onWarning ?? (() => undefined);
  const username = opts.username ?? defaultUsername(env);

  const found = findAgent(opts.useAgent, { platform: opts.platform ?? process.platform, env });
  const agent = found.agent;
  if (found.warning) warn(found.warning);

  const home = opts.home ?? homeOf(env);
  const given = (opts.identityFiles ?? []).map((f) => path.resolve(expandTilde(f, home)));
  const configured = (opts.configIdentityFiles ?? []).filter((f) => !given.includes(f) && fs.existsSync(f));
  const files =
    given.length || configured.length
      ? [...given.map((file) => ({ file, explicit: true })), ...configured.map((file) => ({ file, explicit: false }))]
      : DEFAULT_IDENTITY_FILES.map((f) => path.join(home, '.ssh', f))
          .filter((f) => fs.existsSync(f))
          .map((file) => ({ file, explicit: false }));
  const keys: AuthKey[] = [];
  for (const { file, explicit } of files) {
    const key = await loadKey(file, explicit, opts, warn);
    if (key) keys.push(key);
  }

  const password =
    opts.password ??
    (env.SLUICE_PASSWORD !== undefined && env.SLUICE_PASSWORD !== '' ? env.SLUICE_PASSWORD : undefined);
  const material: AuthMaterial = {
    username,
    keys,
    tryKeyboardInteractive: true,
  };
  if (agent !== undefined) material.agent = agent;
  if (agent !== undefined && opts.identitiesOnly)
    material.agentKeys = publicBlobsOf(
      files.map((f) => f.file),
      keys,
    );
  if (password !== undefined) material.password = password;
  return material;
}

/**
 * The public blobs (base64) of identities: of each loaded key, and of each file's `.pub` beside it (an encrypted key
 * skipped without a passphrase may still sit in the agent).
 */
function publicBlobsOf(files: string[], keys: AuthKey[]): string[] {
  const blobs = new Set<string>();
  const add = (parsed: ParsedKey | ParsedKey[] | Error) => {
    const k = Array.isArray(parsed) ? parsed[0] : parsed;
    if (k && !(k instanceof Error)) blobs.add(k.getPublicSSH().toString('base64'));
  };
  for (const key of keys) add(ssh2ParseKey(key.privateKey, key.passphrase));
  for (const file of files) {
    try {
      add(ssh2ParseKey(fs.readFileSync(`${file}.pub`)));
    } catch {
      /* no .pub beside it */
    }
  }
  return [...blobs];
}

/**
 * A Buffer posted to a worker arrives as a plain Uint8Array (structured clone), which ssh2's parseKey
 * refuses ("Key data must be a Buffer or string"); wrap it again without copying.
 */
function asBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * Refused passwords and keyboard-interactive logins tried again with a fresh answer, per login at most: a bound for
 * servers without a limit of their own (OpenSSH's sshd closes the connection after MaxAuthTries, 6 by default).
 */
export const MAX_LOGIN_RETRIES = 10;

/** Who answers during login; in a connection worker the questions go to the coordinating thread. */
export interface LoginAsks {
  /**
   * The password when none was given, or again after the server refused one (`again`: OpenSSH's "Permission denied,
   * please try again"); undefined or '' (or a rejection) means none: the login goes on without it.
   */
  password?(again: boolean): Promise<string | undefined>;
  /** Answers a keyboard-interactive round's prompts (see ssh/keyboardInteractive.ts KeyboardAsks). */
  keyboard?(round: KeyboardRound): Promise<string[]>;
  /** No one can answer a prompt: the caller ends the connection with this error. */
  fail?(error: SluiceError): void;
  /**
   * Each method as it is offered, named for messages (never a secret): `ssh-agent`, `key /path (ssh-ed25519)`,
   * `password`, `keyboard-interactive`; then, for the agent, `agentKeys` with the keys it listed.
   */
  offered?(what: string): void;
  /** The agent's keys, as {@link describeAgentKey} names them, once the agent has listed them. */
  agentKeys?(keys: string[]): void;
}

/** How {@link LoginAsks.offered} names a step. */
function describeStep(step: Step): string {
  if (step.kind === 'agent') return 'ssh-agent';
  if (step.kind === 'key') return `key ${displayText(step.key.path)}${step.key.type ? ` (${step.key.type})` : ''}`;
  return step.kind;
}

type Step = { kind: 'agent' } | { kind: 'key'; key: AuthKey } | { kind: 'password' } | { kind: 'keyboard-interactive' };

/** The RFC 4252 method name a step needs the server to still allow. */
function methodOf(kind: Step['kind']): AuthenticationType {
  if (kind === 'agent' || kind === 'key') return 'publickey';
  return kind;
}

/** The login's steps in order: the agent, each key, the password (known or askable), keyboard-interactive. */
function authSteps(m: AuthMaterial, a: LoginAsks): Step[] {
  const steps: Step[] = [];
  if (m.agent) steps.push({ kind: 'agent' });
  for (const key of m.keys) steps.push({ kind: 'key', key });
  if (m.password !== undefined || a.password) steps.push({ kind: 'password' });
  if (m.tryKeyboardInteractive) steps.push({ kind: 'keyboard-interactive' });
  return steps;
}

/** The agent's method: its keys filtered by the material (and reported to `a.agentKeys`). */
function agentMethod(m: AuthMaterial, a: LoginAsks): AnyAuthMethod {
  type AgentKey = Parameters<typeof describeAgentKey>[0];
  const report = a.agentKeys && ((keys: AgentKey[]) => a.agentKeys?.(keys.map(describeAgentKey)));
  return { type: 'agent', username: m.username, agent: filteredAgent(m.agent as string, m.agentKeys, report) };
}

/** A key's publickey method, with its passphrase when it has one. */
function keyMethod(username: string, k: AuthKey): AnyAuthMethod {
  const key = asBuffer(k.privateKey);
  return k.passphrase !== undefined
    ? { type: 'publickey', username, key, passphrase: k.passphrase }
    : { type: 'publickey', username, key };
}

/**
 * The login's password: the known one, else asked through `a.password` (always asked `again`), undefined when there
 * is none. A user who gives none when asked has `declined`: neither password method is tried any more.
 */
function passwordSource(kbd: KeyboardState, a: LoginAsks) {
  let declined = false;
  return {
    get declined(): boolean {
      return declined;
    },
    async get(again: boolean): Promise<string | undefined> {
      if (!again && kbd.password !== undefined) return kbd.password;
      if (!a.password || declined) return undefined;
      const pw = await a.password(again).catch(() => undefined);
      if (pw === undefined || pw === '') {
        declined = true;
        return undefined;
      }
      kbd.password = pw;
      return pw;
    },
  };
}

/**
 * Returns an ssh2 `authHandler` (ssh2 README "authHandler"; `(methodsLeft, partialSuccess, next)`, where
 * `methodsLeft` is null on the first call) that tries, in order: the agent, each key, the password (asking
 * `asks.password(false)` lazily when none was given), then keyboard-interactive (RFC 4256: the password answers its
 * first password prompt, `asks.keyboard` the others; ssh/keyboardInteractive.ts). A refused password is asked again
 * (`asks.password(true)`) and a refused keyboard-interactive login tried again (its prompts asked, the password not
 * resent) while the server allows the method, until the server closes the connection (its limit: OpenSSH's
 * MaxAuthTries), the user gives no answer, or {@link MAX_LOGIN_RETRIES}. Steps whose method the server no longer
 * allows are skipped; when nothing is left it passes `false` and ssh2 fails with "All configured authentication
 * methods failed".
 *
 * Pure over `m` and `asks`, so it can run inside a connection worker with posted data; it never prompts by itself.
 * Note: ssh2 emits a client 'error' with `level: 'agent'` when the agent cannot be reached, then goes on.
 * @param asks who answers; a function is the password asker alone
 */
export function makeAuthHandler(
  m: AuthMaterial,
  asks: LoginAsks | ((again: boolean) => Promise<string | undefined>) = {},
): AuthHandlerMiddleware {
  const a: LoginAsks = typeof asks === 'function' ? { password: asks } : asks;
  const steps = authSteps(m, a);

  let next = 0;
  let last: Step['kind'] | undefined;
  let retries = 0;
  const kbd: KeyboardState = { password: m.password, passwordUsed: false, rounds: 0 };
  const pass = passwordSource(kbd, a);
  let roundsBefore = 0;

  return (methodsLeft, partialSuccess, callback) => {
    // `false` ends authentication (ssh2 README); @types/ssh2 does not list it.
    const done = callback as unknown as (auth: AnyAuthMethod | false) => void;
    const allowed = (kind: Step['kind']): boolean =>
      !Array.isArray(methodsLeft) || methodsLeft.includes(methodOf(kind));
    const offer = (kind: Step['kind'], method: AnyAuthMethod, step?: Step): void => {
      last = kind;
      try {
        a.offered?.(describeStep(step ?? ({ kind } as Step)));
      } catch {
        /* an observer must not break the login */
      }
      done(method);
    };
    const offerPassword = (again: boolean, otherwise: () => void): void => {
      void pass
        .get(again)
        .then((pw) =>
          pw === undefined ? otherwise() : offer('password', { type: 'password', username: m.username, password: pw }),
        );
    };
    const offerKeyboard = (again: boolean): void => {
      roundsBefore = kbd.rounds;
      offer('keyboard-interactive', keyboardMethod(m.username, kbd, a, again));
    };

    const advance = (): void => {
      while (next < steps.length) {
        const step = steps[next++];
        if (!allowed(step.kind)) continue;
        switch (step.kind) {
          case 'agent':
            offer('agent', agentMethod(m, a));
            return;
          case 'key':
            offer('key', keyMethod(m.username, step.key), step);
            return;
          case 'password':
            offerPassword(false, advance);
            return;
          case 'keyboard-interactive':
            if (pass.declined) continue; // the user already declined to give a password
            offerKeyboard(false);
            return;
        }
      }
      done(false);
    };

    const refused = partialSuccess !== true;
    const canRetry = refused && !pass.declined && retries < MAX_LOGIN_RETRIES;
    if (last === 'password' && allowed('password') && canRetry && a.password) {
      retries++;
      offerPassword(true, advance);
    } else if (
      last === 'keyboard-interactive' &&
      allowed('keyboard-interactive') &&
      (!refused || (canRetry && a.keyboard && kbd.rounds > roundsBefore))
    ) {
      if (refused) retries++;
      offerKeyboard(refused);
    } else {
      advance();
    }
  };
}
