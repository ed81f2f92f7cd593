/**
 * Host-key trust policy: the backend of ssh2's `hostVerifier` for every connection of a job.
 *
 * Known keys pass, changed and revoked keys are refused with OpenSSH-style warnings, unknown keys are
 * refused (`strict`), saved on first use (`accept-new`, like OpenSSH `StrictHostKeyChecking=accept-new`)
 * or put to the user once however many connections present them at the same time (`ask`).
 */
import type { HostKeyAnswer, HostKeyVerdict, StoredKeyRef } from '../../common/model/hostKey';
import { keyTypeLabel } from '../../common/model/hostKey';
import { SluiceError, isSluiceError } from '../errors';
import { KnownHosts, knownHostsName } from '../stores/knownHosts';

/** `strict` refuses unknown keys (batch runs without `--accept-new`). */
export type HostKeyMode = 'ask' | 'accept-new' | 'strict';

type UnknownVerdict = Extract<HostKeyVerdict, { kind: 'unknown' }>;
type ChangedVerdict = Extract<HostKeyVerdict, { kind: 'changed' }>;
type RevokedVerdict = Extract<HostKeyVerdict, { kind: 'revoked' }>;

/**
 * Asks the user about an unknown key. Throwing counts as `reject`, except an ABORTED SluiceError (Ctrl-C), which the
 * check rethrows.
 */
export type HostKeyPrompter = (v: UnknownVerdict) => Promise<HostKeyAnswer>;

export type HostKeyRefusalCode = 'HOSTKEY_UNKNOWN' | 'HOSTKEY_CHANGED' | 'HOSTKEY_REVOKED' | 'HOSTKEY_REJECTED';

/**
 * Result of {@link HostKeyPolicy.verify}. `saved` tells whether the key is in known_hosts now (always true
 * for `trusted`); `saveError` is set when the user or `accept-new` chose to save but the append failed
 * (the key is then accepted for this job only, as OpenSSH does).
 */
export type HostKeyCheck =
  | { accepted: true; verdict: HostKeyVerdict; saved: boolean; saveError?: string }
  | { accepted: false; code: HostKeyRefusalCode; message: string; verdict: HostKeyVerdict };

export interface HostKeyPolicyOptions {
  knownHosts: KnownHosts;
  mode: HostKeyMode;
  /** Required for `ask`; without it `ask` behaves as `strict`. */
  prompt?: HostKeyPrompter;
  /** Called with every lookup result and the server it is about (the target or a jump host); must not throw. */
  onVerdict?: (v: HostKeyVerdict, server: { host: string; port: number }) => void;
}

const BANNER = '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@';

function hostLabel(host: string, port: number): string {
  return knownHostsName(host, port);
}

function describeRef(ref: StoredKeyRef): string {
  return `${keyTypeLabel(ref.keyType)} key in ${ref.file}:${ref.line} (${ref.fingerprint})`;
}

/**
 * The refusal text for a changed host key, modelled on OpenSSH's `warn_changed_key()`: both SHA256
 * fingerprints, key types and the file:line of every stored key for the host.
 */
export function changedKeyMessage(v: ChangedVerdict): string {
  const { identity } = v;
  const label = hostLabel(identity.host, identity.port);
  const lines = [
    BANNER,
    '@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @',
    BANNER,
    'IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!',
    'Someone could be eavesdropping on you right now (man-in-the-middle attack)!',
    'It is also possible that a host key has just been changed.',
    `The ${keyTypeLabel(identity.keyType)} host key for ${label} has changed.`,
    ...v.stored.map((ref) => `Offending ${describeRef(ref)}`),
    `Presented key: ${keyTypeLabel(identity.keyType)} ${identity.fingerprint}`,
  ];
  if (!v.stored.some((ref) => ref.keyType === identity.keyType)) {
    lines.push(
      `(known_hosts holds no ${keyTypeLabel(identity.keyType)} key for this host, only ` +
        `${[...new Set(v.stored.map((r) => keyTypeLabel(r.keyType)))].join(', ')}.)`,
    );
  }
  const files = [...new Set(v.stored.map((r) => r.file))];
  lines.push(
    "If you have verified the new key with the server's administrator, remove the old one with:",
    ...files.map((f) => `  ssh-keygen -R '${label}' -f '${f}'`),
    'Host key verification failed.',
  );
  return lines.join('\n');
}

/** The refusal text for a key listed on an `@revoked` line (OpenSSH's "REVOKED HOST KEY DETECTED"). */
export function revokedKeyMessage(v: RevokedVerdict): string {
  const { identity } = v;
  return [
    BANNER,
    '@       WARNING: REVOKED HOST KEY DETECTED!               @',
    BANNER,
    `The ${keyTypeLabel(identity.keyType)} host key for ${hostLabel(identity.host, identity.port)} is marked as revoked` +
      ` in ${v.stored.file}:${v.stored.line}.`,
    `Presented key: ${keyTypeLabel(identity.keyType)} ${identity.fingerprint}`,
    'This could mean that a stolen key is being used to impersonate this host.',
    'Host key verification failed.',
  ].join('\n');
}

/** The refusal text for an unknown key when nobody may be asked (`strict`, or `ask` without a prompter). */
export function unknownKeyMessage(v: UnknownVerdict, knownHostsFile: string): string {
  const { identity } = v;
  return [
    `The authenticity of host '${hostLabel(identity.host, identity.port)}' can't be established.`,
    `${keyTypeLabel(identity.keyType)} key fingerprint is ${identity.fingerprint}.`,
    `No matching host key is in ${knownHostsFile}.`,
    "Check the fingerprint with the server's administrator, then pass --accept-new to trust and save it," +
      ' or connect interactively to review it.',
    'Host key verification failed.',
  ].join('\n');
}

function rejectedMessage(v: UnknownVerdict): string {
  const { identity } = v;
  return (
    `The ${keyTypeLabel(identity.keyType)} host key for ${hostLabel(identity.host, identity.port)}` +
    ` (${identity.fingerprint}) was rejected.\nHost key verification failed.`
  );
}

/**
 * One trust policy per job, shared by all of its connections: a key accepted once (or trusted) is not
 * asked about again, a rejected one is not asked about again either, and concurrent checks of the same
 * unknown key share one prompt and one known_hosts write.
 */
/** A host key learned from a server's announcement: its type and SHA256 fingerprint. */
export interface LearnedHostKey {
  keyType: string;
  fingerprint: string;
}

/** One line for logs: which announced keys were saved, and where. */
export function learnedKeysMessage(host: string, port: number, keys: LearnedHostKey[], file: string): string {
  const list = keys.map((k) => `${k.keyType} ${k.fingerprint}`).join(', ');
  return `${hostLabel(host, port)} announced ${keys.length} new host ${keys.length === 1 ? 'key' : 'keys'} (hostkeys-00@openssh.com), saved to ${file}: ${list}`;
}

export class HostKeyPolicy {
  private readonly knownHosts: KnownHosts;
  private readonly mode: HostKeyMode;
  private readonly prompt?: HostKeyPrompter;
  private readonly onVerdict?: (v: HostKeyVerdict, server: { host: string; port: number }) => void;
  /** Unknown keys accepted in this job, by host name + key; value: whether known_hosts holds them. */
  private readonly acceptedUnknown = new Map<string, { saved: boolean; saveError?: string }>();
  private readonly rejected = new Set<string>();
  private readonly pending = new Map<string, Promise<HostKeyCheck>>();
  /**
   * Rotated keys this job claimed for learning (host name + key): the connections of one job announce the same keys.
   */
  private readonly learning = new Set<string>();

  constructor(opts: HostKeyPolicyOptions) {
    this.knownHosts = opts.knownHosts;
    this.mode = opts.mode;
    this.prompt = opts.prompt;
    this.onVerdict = opts.onVerdict;
  }

  /**
   * Checks the key a server presented.
   * @param host host as the user named it (not the resolved address); @param port TCP port
   * @param keyBlob SSH wire encoding of the host key, as ssh2 passes it to `hostVerifier`
   * @throws Error (rejects) when `keyBlob` is not an SSH public key blob
   */
  async verify(host: string, port: number, keyBlob: Buffer): Promise<HostKeyCheck> {
    const verdict = this.knownHosts.lookup(host, port, keyBlob);
    this.report(verdict, host, port);
    switch (verdict.kind) {
      case 'trusted':
        return { accepted: true, verdict, saved: true };
      case 'revoked':
        return { accepted: false, code: 'HOSTKEY_REVOKED', message: revokedKeyMessage(verdict), verdict };
      case 'changed':
        return { accepted: false, code: 'HOSTKEY_CHANGED', message: changedKeyMessage(verdict), verdict };
      case 'unknown': {
        const id = `${knownHostsName(host, port)}\0${keyBlob.toString('base64')}`;
        const earlier = this.acceptedUnknown.get(id);
        if (earlier) return { accepted: true, verdict, ...earlier };
        if (this.rejected.has(id)) {
          return { accepted: false, code: 'HOSTKEY_REJECTED', message: rejectedMessage(verdict), verdict };
        }
        let decision = this.pending.get(id);
        if (!decision) {
          decision = this.decideUnknown(id, verdict, keyBlob).finally(() => this.pending.delete(id));
          this.pending.set(id, decision);
        }
        return decision;
      }
    }
  }

  /** The known_hosts file new keys are appended to. */
  get writePath(): string {
    return this.knownHosts.paths.writePath;
  }

  /**
   * Learns keys a server announced with `hostkeys-00@openssh.com` (OpenSSH PROTOCOL §2.5) and proved
   * (ssh2 emits them as `hostkeys`; pass `key.getPublicSSH()` of each). Only when this connection's key is
   * trusted from known_hosts; keys already stored or revoked are skipped; nothing is ever removed. Each key is
   * learned once per policy (job), however many of its connections announce it.
   * @returns the keys appended to {@link writePath} by this call (type and SHA256 fingerprint)
   */
  async learnRotatedKeys(
    host: string,
    port: number,
    connectionKey: Buffer,
    provenKeys: Buffer[],
  ): Promise<LearnedHostKey[]> {
    if (this.knownHosts.lookup(host, port, connectionKey).kind !== 'trusted') return [];
    const learned: LearnedHostKey[] = [];
    for (const key of provenKeys) {
      const id = `${knownHostsName(host, port)}\0${key.toString('base64')}`;
      if (this.learning.has(id)) continue;
      let verdict: HostKeyVerdict;
      try {
        verdict = this.knownHosts.lookup(host, port, key);
      } catch {
        continue;
      }
      if (verdict.kind === 'trusted' || verdict.kind === 'revoked') continue;
      this.learning.add(id);
      if (await this.knownHosts.add(host, port, key)) {
        learned.push({ keyType: verdict.identity.keyType, fingerprint: verdict.identity.fingerprint });
      } else {
        this.learning.delete(id);
      }
    }
    return learned;
  }

  private async decideUnknown(id: string, verdict: UnknownVerdict, keyBlob: Buffer): Promise<HostKeyCheck> {
    const refuseUnknown = (): HostKeyCheck => ({
      accepted: false,
      code: 'HOSTKEY_UNKNOWN',
      message: unknownKeyMessage(verdict, this.knownHosts.paths.writePath),
      verdict,
    });
    if (this.mode === 'strict') return refuseUnknown();
    if (this.mode === 'accept-new') return this.save(id, verdict, keyBlob);
    if (!this.prompt) return refuseUnknown();
    let answer: HostKeyAnswer;
    try {
      answer = await this.prompt(verdict);
    } catch (e) {
      // Ctrl-C at the question stops the job as an interrupt (exit 130), not as a refused key.
      if (isSluiceError(e, 'ABORTED')) {
        throw new SluiceError(
          'ABORTED',
          `interrupted at the host-key question for ${hostLabel(verdict.identity.host, verdict.identity.port)}: ` +
            'nothing was saved',
          { cause: e },
        );
      }
      answer = 'reject';
    }
    if (answer === 'accept-save') return this.save(id, verdict, keyBlob);
    if (answer === 'accept-once') {
      this.acceptedUnknown.set(id, { saved: false });
      return { accepted: true, verdict, saved: false };
    }
    this.rejected.add(id);
    return { accepted: false, code: 'HOSTKEY_REJECTED', message: rejectedMessage(verdict), verdict };
  }

  private async save(id: string, verdict: UnknownVerdict, keyBlob: Buffer): Promise<HostKeyCheck> {
    const { host, port } = verdict.identity;
    let outcome: { saved: boolean; saveError?: string };
    try {
      await this.knownHosts.add(host, port, keyBlob);
      outcome = { saved: true };
    } catch (err) {
      outcome = {
        saved: false,
        saveError: `could not add the host key to ${this.knownHosts.paths.writePath}: ${(err as Error).message}`,
      };
    }
    this.acceptedUnknown.set(id, outcome);
    return { accepted: true, verdict, ...outcome };
  }

  private report(v: HostKeyVerdict, host: string, port: number): void {
    try {
      this.onVerdict?.(v, { host, port });
    } catch {
      /* an observer must not change the decision */
    }
  }
}

/**
 * Adapts a policy to ssh2's asynchronous `hostVerifier(key, verify)` form (do not set `hostHash`, so
 * ssh2 passes the raw key blob). `onCheck` receives the full result, since ssh2 itself only reports
 * "Host denied (verification failed)"; use it to surface `code`/`message` and to stop the job.
 */
export function makeHostVerifier(
  policy: HostKeyPolicy,
  host: string,
  port: number,
  onCheck?: (check: HostKeyCheck) => void,
): (key: Buffer, verify: (valid: boolean) => void) => void {
  return (key, verify) => {
    policy.verify(host, port, key).then(
      (check) => {
        onCheck?.(check);
        verify(check.accepted);
      },
      () => verify(false),
    );
  };
}

/**
 * Orders host-key algorithms so that types already stored for the host come first, keeping the rest
 * (OpenSSH `order_hostkeyalgs()`); otherwise a server with several keys may offer one we have not
 * stored and look "changed".
 * @param storedKeyTypes from {@link KnownHosts.storedKeyTypes}
 * @param algorithms the client's algorithm list, e.g. ssh2's defaults
 */
export function preferStoredHostKeyAlgorithms(storedKeyTypes: string[], algorithms: string[]): string[] {
  const keyTypeOfAlgorithm = (a: string): string => (a === 'rsa-sha2-256' || a === 'rsa-sha2-512' ? 'ssh-rsa' : a);
  const known = algorithms.filter((a) => storedKeyTypes.includes(keyTypeOfAlgorithm(a)));
  return [...known, ...algorithms.filter((a) => !known.includes(a))];
}
