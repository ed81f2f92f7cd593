/**
 * The expansions ssh(1) applies to path-like ssh_config values (`IdentityFile`, `IdentityAgent`,
 * `UserKnownHostsFile`): `~` first, then `${VAR}` from the environment, then the `%` tokens of ssh_config(5) TOKENS.
 */
import { SluiceError, displayText } from '../errors';
import { expandTilde, pathFor } from '../sys/platformPaths';

/** What the `%` tokens stand for, for one connection. */
export interface TokenValues {
  /** %d: the local home folder. */
  home: string;
  /** %u: the local user name. */
  localUser: string;
  /** %l: the local host name; %L: up to its first dot. */
  localHost: string;
  /** %i: the local user id. */
  uid: number;
  /** %h: the remote host name (HostName, else as typed). */
  host: string;
  /** %n and %k: the host as typed. */
  originalHost: string;
  /** %p: the remote port. */
  port: number;
  /** %r: the remote user name. */
  remoteUser: string;
  /** %j: the ProxyJump value, '' without. */
  jump: string;
}

/**
 * Replaces `%h`, `%p`, `%r`, `%u`, `%d`, `%n`, `%k`, `%l`, `%L`, `%i`, `%j` and `%%` (ssh_config(5) TOKENS).
 * @param where the keyword and file, for the error
 * @throws SluiceError USAGE for another token (ssh(1) refuses them too: "unknown key %C"), or a `%` at the end
 */
export function expandTokens(text: string, t: TokenValues, where: string): string {
  return text.replace(/%(.?)/gs, (_, c: string) => {
    switch (c) {
      case '%':
        return '%';
      case 'h':
        return t.host;
      case 'p':
        return String(t.port);
      case 'r':
        return t.remoteUser;
      case 'u':
        return t.localUser;
      case 'd':
        return t.home;
      case 'n':
      case 'k':
        return t.originalHost;
      case 'l':
        return t.localHost;
      case 'L':
        return t.localHost.split('.')[0];
      case 'i':
        return String(t.uid);
      case 'j':
        return t.jump;
      default:
        throw new SluiceError(
          'USAGE',
          `${where}: ${c === '' ? 'a "%" at the end' : `the token %${displayText(c)} is not supported`} in ${displayText(text)}`,
        );
    }
  });
}

/**
 * A path value as ssh(1) reads it: `~/…` (on Windows `~\…` too) against the home folder, `${VAR}` from `env`, the `%`
 * tokens, and a relative result taken from the current folder, in the local platform's path module.
 * @throws SluiceError USAGE for an unknown token or an unset variable
 */
export function expandPath(
  text: string,
  t: TokenValues,
  env: NodeJS.ProcessEnv,
  where: string,
  platform: NodeJS.Platform = process.platform,
): string {
  const tilde = expandTilde(text, t.home, platform);
  const dollars = tilde.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const v = env[name];
    if (v === undefined)
      throw new SluiceError('USAGE', `${where}: the environment variable ${name} is not set (${displayText(text)})`);
    return v;
  });
  return pathFor(platform).resolve(expandTokens(dollars, t, where));
}
