/**
 * What a connection's login tried (RFC 4252): each method offered, named (the agent with the keys it listed, each key
 * file, the password, keyboard-interactive), and the methods the server said can continue (SSH_MSG_USERAUTH_FAILURE,
 * RFC 4252 §5.1, which ssh2 hands the authHandler). `-v` prints each attempt as it happens; when every method is
 * refused, the AUTH_FAILED message names what was tried and what the server accepts, so a user can tell a missing key
 * from a server that takes no passwords.
 */
import { SluiceError } from '../../errors';

/** A login's attempts, in order, and the server's last list of methods that can continue. */
export class AuthTrace {
  private readonly tried: string[] = [];
  private current: string | undefined;
  private agentKeys: string[] | undefined;
  /** The methods the server accepts, from its last USERAUTH_FAILURE; undefined until one came. */
  serverMethods: string[] | undefined;

  /** @param note where `-v` notes go (the coordinator prints them as `sluice: auth: …`) */
  constructor(private readonly note: (message: string) => void = () => undefined) {}

  /** A method is offered (LoginAsks.offered). */
  offered(what: string): void {
    this.current = what;
    this.tried.push(what);
    this.note(`auth: trying ${what}`);
  }

  /** The agent listed its keys (LoginAsks.agentKeys); ssh2 offers them one after another. */
  listedAgentKeys(keys: string[]): void {
    this.agentKeys = keys;
    this.note(
      keys.length
        ? `auth: ssh-agent offers ${plural(keys.length, 'key')}: ${keys.join('; ')}`
        : 'auth: ssh-agent holds no key',
    );
  }

  /**
   * The authHandler was called again: `methodsLeft` (null the first time) is the server's answer to the method offered
   * before; `partial`: that method succeeded and another one is needed (RFC 4252 §5.1).
   */
  answered(methodsLeft: string[] | null, partial: boolean | null): void {
    // ssh2 keeps the methods of a failure of every agent key to itself: methodsLeft is then still the previous list.
    if (methodsLeft !== null) this.serverMethods = methodsLeft;
    if (this.current !== undefined) {
      const verdict = partial === true ? 'accepted, and one more method is needed' : 'refused';
      const accepts = methodsLeft === null ? '' : `; the server accepts: ${methodsLeft.join(', ') || 'nothing more'}`;
      this.note(`auth: ${this.current} ${verdict}${accepts}`);
    }
    this.current = undefined;
  }

  /** The login succeeded: the method offered last was accepted. */
  succeeded(): void {
    if (this.current !== undefined) this.note(`auth: ${this.current} accepted`);
    this.current = undefined;
  }

  /** What was tried, for the failure message: `ssh-agent (2 keys: …); key /k (ssh-ed25519); password`. */
  triedText(): string {
    const runs: Array<{ what: string; times: number }> = [];
    for (const t of this.tried) {
      const last = runs[runs.length - 1];
      if (last?.what === t) last.times++;
      else runs.push({ what: t, times: 1 });
    }
    return runs
      .map(
        ({ what, times }) =>
          `${what === 'ssh-agent' && this.agentKeys ? agentText(this.agentKeys) : what}${times > 1 ? ` (${times} times)` : ''}`,
      )
      .join('; ');
  }

  /**
   * AUTH_FAILED when every method was refused (ssh2's client-authentication error), naming what was tried and what the
   * server accepts; when nothing could be offered, what would have been.
   * @param who `user@host:port`
   */
  failure(who: string): SluiceError {
    const accepts = this.serverMethods?.length ? `; the server accepts: ${this.serverMethods.join(', ')}` : '';
    const tried = this.tried.length
      ? `every method offered was refused (tried: ${this.triedText()})`
      : 'nothing was offered';
    return new SluiceError('AUTH_FAILED', `authentication failed for ${who}: ${tried}${accepts}${this.missing()}`);
  }

  /** What could not be offered although the server accepts it: a key, a password. */
  private missing(): string {
    const accepts = (m: string): boolean => this.serverMethods === undefined || this.serverMethods.includes(m);
    const out: string[] = [];
    if (accepts('publickey') && !this.tried.some((t) => t === 'ssh-agent' || t.startsWith('key '))) {
      out.push('no key to offer (-i FILE, ~/.ssh/id_ed25519, id_ecdsa, id_rsa, or ssh-agent)');
    }
    if (accepts('password') && !this.tried.includes('password'))
      out.push('no password to offer (SLUICE_PASSWORD, or a terminal without --batch)');
    return out.length ? `; ${out.join('; ')}` : '';
  }
}

function agentText(keys: string[]): string {
  return keys.length ? `ssh-agent with ${plural(keys.length, 'key')}: ${keys.join(', ')}` : 'ssh-agent (no key in it)';
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
