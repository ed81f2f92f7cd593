/**
 * Host-key identities and trust verdicts shared by the engine, the CLI and the UI.
 * Pure types (plus one pure label helper); no node imports.
 */

/** The key a server presented for one host/port. */
export interface HostKeyIdentity {
  /** Host name or address as the user typed it (not resolved). */
  host: string;
  /** TCP port (22 is the default and is written as a bare host in known_hosts). */
  port: number;
  /** SSH wire name of the key, the string at the start of the key blob (RFC 4253 §6.6), e.g. `ssh-ed25519`. */
  keyType: string;
  /** `SHA256:` + unpadded base64 of SHA-256 over the key blob, the same text `ssh-keygen -lf` prints. */
  fingerprint: string;
  /** The key blob, base64 (so a changed key can be saved later by the one who shows it). */
  key?: string;
}

/** Where a stored key lives: a known_hosts file and its 1-based line. */
export interface StoredKeyRef {
  file: string;
  line: number;
  /** SSH wire name of the stored key, e.g. `ssh-rsa`. */
  keyType: string;
  fingerprint: string;
}

/**
 * Outcome of looking a presented key up in known_hosts (OpenSSH semantics):
 * - `trusted`: a stored key for this host equals the presented key;
 * - `unknown`: nothing is stored for this host;
 * - `changed`: keys are stored for this host but none equals the presented one (all listed);
 * - `revoked`: the presented key appears on an `@revoked` line.
 */
export type HostKeyVerdict =
  | { kind: 'trusted'; stored: StoredKeyRef }
  | { kind: 'unknown'; identity: HostKeyIdentity }
  | { kind: 'changed'; identity: HostKeyIdentity; stored: StoredKeyRef[] }
  | { kind: 'revoked'; identity: HostKeyIdentity; stored: StoredKeyRef };

/** The user's answer to an unknown-key prompt. Reject is the default. */
export type HostKeyAnswer = 'accept-once' | 'accept-save' | 'reject';

/**
 * Short upper-case label of a key type, as OpenSSH prints it (`sshkey_type()`): `ED25519`, `ECDSA`, `RSA`, …
 * @param keyType SSH wire name, e.g. `ecdsa-sha2-nistp256`
 */
export function keyTypeLabel(keyType: string): string {
  const cert = keyType.includes('-cert-v01@openssh.com');
  const plain = keyType.replace('-cert-v01@openssh.com', '');
  let label: string;
  if (plain === 'ssh-ed25519') label = 'ED25519';
  else if (plain === 'sk-ssh-ed25519@openssh.com') label = 'ED25519-SK';
  else if (plain.startsWith('ecdsa-sha2-')) label = 'ECDSA';
  else if (plain.startsWith('sk-ecdsa-sha2-')) label = 'ECDSA-SK';
  else if (plain === 'ssh-rsa') label = 'RSA';
  else if (plain === 'ssh-dss') label = 'DSA';
  else label = plain.toUpperCase();
  return cert ? `${label}-CERT` : label;
}
