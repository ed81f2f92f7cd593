/**
 * A pool's jump hosts on the coordinating side (ssh_config(5) ProxyJump): what each connection worker gets to open its
 * own chain of hops (ssh/worker/jump.ts), a hop's password asked once however many connections need it, and how a
 * hop's refusals name it. Host keys of hops go through the pool's host-key policy (ssh/connectionPool.ts), or the hop's
 * own when its known_hosts files or mode differ from the target's.
 */
import { SluiceError } from '../errors';
import type { HostKeyPolicy } from './hostKeys';
import type { JumpHopParams } from './workerProtocol';

/** One jump host: its login material, who asks for its password when it wants one (never the target's), its trust. */
export interface JumpHost extends JumpHopParams {
  askPassword?: () => Promise<string | undefined>;
  /** The hop's own host-key policy (its UserKnownHostsFile or StrictHostKeyChecking); undefined: the pool's. */
  hostKeys?: HostKeyPolicy;
}

/**
 * A refusal that happened at a jump host, said so: `jump host bastion (10.0.0.5:22): …` (the OpenSSH banner of a
 * changed key starts on its own line).
 */
export function atJumpHost(label: string, e: SluiceError): SluiceError {
  const sep = e.message.startsWith('@') ? '\n' : ' ';
  return new SluiceError(e.code, `jump host ${label}:${sep}${e.message}`);
}

export class JumpHosts {
  /** Passwords answered so far, by hop. */
  private readonly known = new Map<number, string>();
  private readonly asking = new Map<number, Promise<string | undefined>>();

  constructor(readonly hops: readonly JumpHost[]) {}

  /** Hop `i` (ConnectParams.jump index). @throws SluiceError INTERNAL for an index the worker should not send */
  hop(i: number): JumpHost {
    const h = this.hops[i];
    if (!h) throw new SluiceError('INTERNAL', `no jump host ${i}`);
    return h;
  }

  /**
   * The hops as a worker takes them: plain data, with the passwords answered so far (later connections are not asked).
   */
  params(): JumpHopParams[] | undefined {
    if (!this.hops.length) return undefined;
    return this.hops.map(({ askPassword: _ask, hostKeys: _trust, ...h }, i) => {
      const password = this.known.get(i);
      return password === undefined ? h : { ...h, auth: { ...h.auth, password } };
    });
  }

  /** Hop `i`'s password: asked once, shared by every connection waiting for it; undefined when nobody can answer. */
  askPassword(i: number): Promise<string | undefined> {
    const hop = this.hop(i);
    if (this.known.has(i)) return Promise.resolve(this.known.get(i));
    if (!hop.askPassword) return Promise.resolve(undefined);
    let pending = this.asking.get(i);
    if (!pending) {
      pending = hop.askPassword().then((p) => {
        if (p !== undefined) this.known.set(i, p);
        return p;
      });
      this.asking.set(i, pending);
    }
    return pending;
  }
}
