/**
 * An ssh-agent client that offers only some of the agent's keys: ssh_config(5) `IdentitiesOnly yes` ("only the
 * configured identity files … even if ssh-agent offers more identities"; keys of those files held by the agent are
 * still used, so an encrypted key needs no passphrase here). The agent also tells who lists its keys (the failure
 * message and `-v` name the agent's keys tried).
 */
import { createHash } from 'node:crypto';
import type { BaseAgent, IdentityCallback, OpenSSHAgent, ParsedKey } from 'ssh2';
import { PAGEANT, isWindowsPipe } from './agentLocation';
import { ssh2Agents } from '../ssh2x';

/** `ssh-ed25519 SHA256:… comment`: how messages name an agent's key (the fingerprint as `ssh-keygen -l` prints it). */
export function describeAgentKey(k: ParsedKey): string {
  const fp = createHash('sha256').update(k.getPublicSSH()).digest('base64').replace(/=+$/, '');
  return `${k.type} SHA256:${fp}${k.comment ? ` ${k.comment}` : ''}`;
}

/**
 * ssh2's client for an agent path, as its createAgent() chooses (lib/agent.js): on Windows `pageant` is Pageant
 * through WM_COPYDATA and a path that is no pipe a Cygwin/MSYS socket file; every other path (a Unix socket, a Windows
 * pipe such as the OpenSSH agent's or Pageant's) speaks the agent protocol over a stream.
 */
export function agentClassFor(socketPath: string, platform: NodeJS.Platform): typeof OpenSSHAgent {
  const ssh2 = ssh2Agents();
  if (platform !== 'win32' || isWindowsPipe(socketPath)) return ssh2.OpenSSHAgent;
  return socketPath === PAGEANT ? ssh2.PageantAgent : ssh2.CygwinAgent;
}

/**
 * An agent over `socketPath` (SSH_AUTH_SOCK) whose identity list keeps only `allowed` (all when undefined), and
 * reports the keys it lists to `onList`.
 * ssh2 is required here, lazily (its agents alone: ssh2x.ts ssh2Agents): this runs in connection workers, which load
 * it anyway; the coordinating thread never does.
 * @param allowed public key blobs, base64 of the SSH encoding (RFC 4253 §6.6)
 */
export function filteredAgent(socketPath: string, allowed?: string[], onList?: (keys: ParsedKey[]) => void): BaseAgent {
  const Base = agentClassFor(socketPath, process.platform);
  const keep = allowed && new Set(allowed);
  class FilteredAgent extends Base {
    override getIdentities(cb: IdentityCallback<ParsedKey>): void {
      // OpenSSHAgent lists ParsedKeys (ssh2 lib/agent.js); the type allows entries wrapping them too.
      super.getIdentities((err, keys) => {
        const kept = keys?.filter((k) => !keep || keep.has((k as ParsedKey).getPublicSSH().toString('base64')));
        if (kept)
          try {
            onList?.(kept as ParsedKey[]);
          } catch {
            /* a listener must not break the login */
          }
        cb(err, kept);
      });
    }
  }
  return new FilteredAgent(socketPath);
}
