/**
 * A saved site (bookmark). Never holds secrets: passwords live only in a SecretStore keyed by `id`.
 */
export type AuthMethod = 'agent' | 'key' | 'password';

export const AUTH_METHODS: readonly AuthMethod[] = ['agent', 'key', 'password'];

export interface Site {
  /** Stable id (UUID) assigned by the store. */
  id: string;
  /** Display name, unique within its folder is not required. */
  name: string;
  /** Folder path, `/`-separated, `''` for the top level (e.g. `Work/Prod`). */
  folder: string;
  host: string;
  /** TCP port, 1..65535 (default 22). */
  port: number;
  user: string;
  authMethod: AuthMethod;
  /** Private key file, for `authMethod: 'key'`. */
  keyPath?: string;
  /** Default local folder opened on connect. */
  localDir?: string;
  /** Default remote folder opened on connect. */
  remoteDir?: string;
  /** Parallel SSH connections (N), within TRANSFER_LIMITS.connections (app/common/transferLimits.ts). */
  connections?: number;
  /** SFTP channels per connection (M), within TRANSFER_LIMITS.channels. */
  channels?: number;
  /**
   * The algorithms this site offers, most preferred first (RFC 4253 §7.1 KEXINIT name-lists, OpenSSH names as ssh2
   * spells them, e.g. `aes128-gcm@openssh.com`). Absent or empty: the defaults (which never include a weak one, see
   * app/common/algorithms.ts).
   */
  ciphers?: string[];
  /** Key exchange methods offered (e.g. `curve25519-sha256`); absent: the defaults. */
  kex?: string[];
  /** MACs offered (e.g. `hmac-sha2-256-etm@openssh.com`; unused with an AEAD cipher); absent: the defaults. */
  macs?: string[];
  /** Host-key algorithms accepted from the server (e.g. `ssh-ed25519`); absent: the defaults. */
  hostKeyAlgorithms?: string[];
  /** This site's speed limit in bytes per second (absent: none; the global limit still applies). */
  speedLimit?: number;
  /**
   * Jump hosts on the way to the site, ssh_config(5) ProxyJump syntax (`[user@]host[:port]`, aliases, comma list; see
   * app/common/jumpHosts.ts); `none` ignores a ProxyJump of ~/.ssh/config. Absent: the configuration decides.
   */
  jumpHost?: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  updatedAt: number;
}

/** What a caller supplies to create (`id` absent) or update (`id` present) a site. */
export type SiteInput = Omit<Site, 'id' | 'createdAt' | 'updatedAt'> & { id?: string };

/** A site as listed to the UI: the site plus whether a password is stored (never the password itself). */
export interface SiteView extends Site {
  hasPassword: boolean;
}

/** Normalises a folder path: trims, collapses slashes, drops leading/trailing `/`. */
export function normalizeFolder(folder: string): string {
  return folder
    .split('/')
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .join('/');
}
