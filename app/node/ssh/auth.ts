/**
 * What a connection offers the server for user authentication (RFC 4252), gathered once in the
 * coordinating thread and posted to each connection worker, where {@link makeAuthHandler} replays it.
 * Secrets (key bytes, passphrases, passwords) are never logged nor put in error messages.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ParsedKey } from 'ssh2';

// ssh2's key parser alone (what `utils.parseKey` re-exports): the coordinating thread never needs the rest
// of ssh2 (client, server, agent), and loading it costs start-up time on every CLI run.
const { parseKey } = require('ssh2/lib/protocol/keyParser') as { parseKey(data: Buffer | string, passphrase?: string | Buffer): ParsedKey | ParsedKey[] | Error };
const utils = { parseKey };
import type { AuthHandlerMiddleware, AuthenticationType, AnyAuthMethod, KeyboardInteractiveAuthMethod, Prompt } from 'ssh2';
import { SluiceError, displayText, fromLocalError } from '../errors';
import { filteredAgent } from './agentFilter';

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
  /** Offer keyboard-interactive (answered with the password) after password auth. */
  tryKeyboardInteractive: boolean;
  /**
   * ssh_config `IdentitiesOnly yes`: only the agent's keys with these public blobs (base64 of the SSH encoding) are
   * offered; absent: every agent key.
   */
  agentKeys?: string[];
}

/** Asks the user for a secret; hidden input. Absent in batch mode. */
export interface Prompter {
  secret(question: string): Promise<string>;
}

export interface AuthOptions {
  /** Login name; default `os.userInfo().username`. */
  username?: string;
  /** `-i` files; when absent, ~/.ssh/id_ed25519, id_ecdsa, id_rsa are used if they exist. */
  identityFiles?: string[];
  /** Offer ssh-agent; default true when SSH_AUTH_SOCK is set. */
  useAgent?: boolean;
  /** Password; default `env.SLUICE_PASSWORD`. */
  password?: string;
  /** Environment to read SSH_AUTH_SOCK and SLUICE_PASSWORD from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Home directory for default keys; default os.homedir(). */
  home?: string;
  /** Interactive prompter; absent in batch mode. */
  prompter?: Prompter;
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

/** Passphrase attempts per encrypted key, as ssh(1) (NumberOfPasswordPrompts 3). */
export const PASSPHRASE_TRIES = 3;

type ParseOutcome = { ok: true; type: string } | { ok: false; encrypted: boolean; message: string };

/** Parses with ssh2's `utils.parseKey`; the OpenSSH format may hold several keys, the first is used. */
function tryParse(data: Buffer, passphrase?: string): ParseOutcome {
  const parsed = utils.parseKey(data, passphrase);
  if (parsed instanceof Error) {
    return { ok: false, encrypted: /no passphrase given/i.test(parsed.message), message: parsed.message };
  }
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || !key.isPrivateKey()) return { ok: false, encrypted: false, message: 'not a private key (is it the .pub file?)' };
  return { ok: true, type: key.type };
}

function isPpk(data: Buffer): boolean {
  return data.subarray(0, 64).toString('latin1').startsWith('PuTTY-User-Key-File-');
}

function ppkAdvice(file: string): string {
  return `PuTTY key ${displayText(file)} is not supported (only PPK version 2 RSA/DSA keys are readable). ` +
    `Convert it with: puttygen ${displayText(file)} -O private-openssh -o ${displayText(file.replace(/\.ppk$/i, ''))}`;
}

/** Reads and parses one identity file; returns null (after a warning) when it must be skipped. */
async function loadKey(file: string, explicit: boolean, prompter: Prompter | undefined, warn: (m: string) => void): Promise<AuthKey | null> {
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
    const message = isPpk(data) ? ppkAdvice(file) : `Cannot use identity ${displayText(file)}: ${displayText(first.message)}`;
    if (explicit) throw new SluiceError('UNSUPPORTED_KEY', message);
    warn(message);
    return null;
  }
  if (!prompter) {
    warn(`Skipping encrypted key ${displayText(file)}: no passphrase can be asked in batch mode (load it into ssh-agent instead)`);
    return null;
  }
  for (let attempt = 1; attempt <= PASSPHRASE_TRIES; attempt++) {
    const passphrase = await prompter.secret(`Enter passphrase for key '${displayText(file)}': `);
    if (passphrase === '') break; // an empty answer skips the key, as ssh(1) does
    const again = tryParse(data, passphrase);
    if (again.ok) return { path: file, privateKey: data, passphrase, type: again.type };
    if (attempt < PASSPHRASE_TRIES) warn(`Bad passphrase for ${displayText(file)}, try again`);
  }
  warn(`Skipping key ${displayText(file)}: no correct passphrase given`);
  return null;
}

function defaultUsername(env: NodeJS.ProcessEnv): string {
  try {
    return os.userInfo().username;
  } catch {
    return env.USER ?? env.USERNAME ?? env.LOGNAME ?? 'root';
  }
}

function isSocket(p: string): boolean {
  try {
    return fs.statSync(p).isSocket();
  } catch {
    return false;
  }
}

/**
 * Collects what to offer: ssh-agent (SSH_AUTH_SOCK, when it is a socket), `-i` key files (or the default
 * ~/.ssh/id_ed25519, id_ecdsa, id_rsa when none are given and they exist), and a password
 * (`opts.password`, else SLUICE_PASSWORD). Each key is parsed with ssh2's `utils.parseKey`; an encrypted key
 * gets {@link PASSPHRASE_TRIES} passphrase prompts, or is skipped with a warning when there is no prompter.
 * @param onWarning receives human-readable notes about skipped identities (never secrets)
 * @throws SluiceError('UNSUPPORTED_KEY') for an explicit `-i` key ssh2 cannot read (with `puttygen` advice
 *   for PuTTY keys other than PPK v2 RSA/DSA); SluiceError('LOCAL_IO') when an explicit `-i` file cannot be read
 */
export async function gatherAuth(opts: AuthOptions, onWarning?: (msg: string) => void): Promise<AuthMaterial> {
  const env = opts.env ?? process.env;
  const warn = onWarning ?? (() => undefined);
  const username = opts.username ?? defaultUsername(env);

  let agent: string | undefined;
  const sock = env.SSH_AUTH_SOCK;
  const useAgent = opts.useAgent ?? (sock !== undefined && sock !== '');
  if (useAgent) {
    if (!sock) warn('ssh-agent requested but SSH_AUTH_SOCK is not set');
    else if (!isSocket(sock)) warn(`Ignoring SSH_AUTH_SOCK ${displayText(sock)}: not a socket`);
    else agent = sock;
  }

  const home = opts.home ?? os.homedir();
  const given = (opts.identityFiles ?? []).map((f) => path.resolve(f.startsWith('~/') ? path.join(home, f.slice(2)) : f));
  const configured = (opts.configIdentityFiles ?? []).filter((f) => !given.includes(f) && fs.existsSync(f));
  const files = given.length || configured.length
    ? [...given.map((file) => ({ file, explicit: true })), ...configured.map((file) => ({ file, explicit: false }))]
    : DEFAULT_IDENTITY_FILES.map((f) => path.join(home, '.ssh', f)).filter((f) => fs.existsSync(f)).map((file) => ({ file, explicit: false }));
  const keys: AuthKey[] = [];
  for (const { file, explicit } of files) {
    const key = await loadKey(file, explicit, opts.prompter, warn);
    if (key) keys.push(key);
  }

  const password = opts.password ?? (env.SLUICE_PASSWORD !== undefined && env.SLUICE_PASSWORD !== '' ? env.SLUICE_PASSWORD : undefined);
  const material: AuthMaterial = {
    username,
    keys,
    tryKeyboardInteractive: password !== undefined || opts.prompter !== undefined,
  };
  if (agent !== undefined) material.agent = agent;
  if (agent !== undefined && opts.identitiesOnly) material.agentKeys = publicBlobsOf(files.map((f) => f.file), keys);
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
  for (const key of keys) add(utils.parseKey(key.privateKey, key.passphrase));
  for (const file of files) {
    try { add(utils.parseKey(fs.readFileSync(`${file}.pub`))); } catch { /* no .pub beside it */ }
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

/** How many keyboard-interactive rounds with prompts are answered before giving up (bounded loop). */
const MAX_KEYBOARD_ROUNDS = 3;

type Step =
  | { kind: 'agent' }
  | { kind: 'key'; key: AuthKey }
  | { kind: 'password' }
  | { kind: 'keyboard-interactive' };

/** The RFC 4252 method name a step needs the server to still allow. */
function methodOf(step: Step): AuthenticationType {
  if (step.kind === 'agent' || step.kind === 'key') return 'publickey';
  return step.kind;
}

/**
 * Returns an ssh2 `authHandler` (ssh2 README "authHandler"; `(methodsLeft, partialSuccess, next)`, where
 * `methodsLeft` is null on the first call) that tries, in order: the agent, each key, the password
 * (calling `askPassword()` lazily when no password was given), then keyboard-interactive answering hidden
 * prompts with that same password. Steps whose method the server no longer allows are skipped; when
 * nothing is left it passes `false` and ssh2 fails with "All configured authentication methods failed".
 *
 * Pure over `m` and `askPassword`, so it can run inside a connection worker with posted data; it never
 * prompts by itself. Note: ssh2 emits a client 'error' with `level: 'agent'` when the agent cannot be
 * reached, then continues with the next method.
 */
export function makeAuthHandler(m: AuthMaterial, askPassword?: () => Promise<string | undefined>): AuthHandlerMiddleware {
  const steps: Step[] = [];
  if (m.agent) steps.push({ kind: 'agent' });
  for (const key of m.keys) steps.push({ kind: 'key', key });
  if (m.password !== undefined || askPassword) steps.push({ kind: 'password' });
  // A caller that can ask for a password can also answer a keyboard-interactive (e.g. one-time code) prompt.
  if ((m.tryKeyboardInteractive || askPassword) && (m.password !== undefined || askPassword)) steps.push({ kind: 'keyboard-interactive' });

  let next = 0;
  let password = m.password;
  let asked = false;

  /** The password, asking once at most; undefined when there is none. */
  async function getPassword(): Promise<string | undefined> {
    if (password === undefined && askPassword && !asked) {
      asked = true;
      try {
        password = await askPassword();
      } catch {
        password = undefined;
      }
    }
    return password;
  }

  function keyboardInteractive(): KeyboardInteractiveAuthMethod {
    let rounds = 0;
    return {
      type: 'keyboard-interactive',
      username: m.username,
      prompt: (_name: string, _instructions: string, _lang: string, prompts: Prompt[], finish: (answers: string[]) => void) => {
        if (prompts.length === 0) {
          finish([]); // an informational round (RFC 4256 §3.2): nothing to answer
          return;
        }
        rounds++;
        if (rounds > MAX_KEYBOARD_ROUNDS) {
          finish(prompts.map(() => ''));
          return;
        }
        void getPassword().then((pw) => {
          finish(prompts.map((p) => {
            if (p.echo === false || /pass(word|code)?|pin\b/i.test(p.prompt)) return pw ?? '';
            if (/user(name)?|login/i.test(p.prompt)) return m.username;
            return '';
          }));
        });
      },
    };
  }

  return (methodsLeft, _partialSuccess, callback) => {
    // `false` ends authentication (ssh2 README); @types/ssh2 does not list it.
    const done = callback as unknown as (auth: AnyAuthMethod | false) => void;
    const allowed = (step: Step): boolean => !Array.isArray(methodsLeft) || methodsLeft.includes(methodOf(step));

    const advance = (): void => {
      while (next < steps.length) {
        const step = steps[next++];
        if (!allowed(step)) continue;
        switch (step.kind) {
          case 'agent':
            done({ type: 'agent', username: m.username, agent: m.agentKeys ? filteredAgent(m.agent as string, m.agentKeys) : m.agent as string });
            return;
          case 'key': {
            const key = asBuffer(step.key.privateKey);
            done(step.key.passphrase !== undefined
              ? { type: 'publickey', username: m.username, key, passphrase: step.key.passphrase }
              : { type: 'publickey', username: m.username, key });
            return;
          }
          case 'password':
            void getPassword().then((pw) => {
              if (pw === undefined || pw === '') advance();
              else done({ type: 'password', username: m.username, password: pw });
            });
            return;
          case 'keyboard-interactive':
            if (asked && password === undefined) continue; // the user already declined to give a password
            done(keyboardInteractive());
            return;
        }
      }
      done(false);
    };
    advance();
  };
}
