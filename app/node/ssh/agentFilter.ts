/**
 * An ssh-agent client that offers only some of the agent's keys: ssh_config(5) `IdentitiesOnly yes` ("only the
 * configured identity files … even if ssh-agent offers more identities"; keys of those files held by the agent are
 * still used, so an encrypted key needs no passphrase here).
 */
import type { BaseAgent, IdentityCallback, ParsedKey } from 'ssh2';

/**
 * An agent over `socketPath` (SSH_AUTH_SOCK) whose identity list keeps only `allowed`.
 * ssh2 is required here, lazily: this runs in connection workers, which load it anyway; the coordinating thread never does.
 * @param allowed public key blobs, base64 of the SSH encoding (RFC 4253 §6.6)
 */
export function filteredAgent(socketPath: string, allowed: string[]): BaseAgent {
  const { OpenSSHAgent } = require('ssh2') as typeof import('ssh2');
  const keep = new Set(allowed);
  class FilteredAgent extends OpenSSHAgent {
    override getIdentities(cb: IdentityCallback<ParsedKey>): void {
      // OpenSSHAgent lists ParsedKeys (ssh2 lib/agent.js); the type allows entries wrapping them too.
      super.getIdentities((err, keys) => cb(err, keys?.filter((k) => keep.has((k as ParsedKey).getPublicSSH().toString('base64')))));
    }
  }
  return new FilteredAgent(socketPath);
}
