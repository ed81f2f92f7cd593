/**
 * The service's host-key bookkeeping around the engine's trust policy (app/node/ssh/hostKeys.ts):
 * first/last seen dates (`<data folder>/hostkeys.db`, stores/hostKeySeen.ts), the saved keys a changed-key dialog
 * shows, the dialog's `replace` / `add` answers, and the known-hosts manager's list and remove.
 * Only the file Sluice writes (KnownHostsPaths.writePath) is ever edited; other files (the system-wide
 * /etc/ssh/ssh_known_hosts) are shown read-only.
 */
import * as path from 'node:path';
import type { KnownHostEntry, SavedHostKey } from '../../common/ipc/contract';
import type { HostKeyVerdict, StoredKeyRef } from '../../common/model/hostKey';
import type { Site } from '../../common/model/site';
import { SluiceError } from '../errors';
import { HostKeySeen, type HostKeySeenDates } from '../stores/hostKeySeen';
import {
  hostFieldMatches,
  keyTypeOf,
  knownHostsName,
  sha256Fingerprint,
  type KnownHostsPaths,
} from '../stores/knownHosts';
import { appendHostKey, readKnownHostsEntries, removeKnownHostsLine, replaceHostKey } from '../stores/knownHostsEdit';

/** A changed key the user may still replace or add: the presented key and the saved ones the dialog showed. */
export interface ChangedKeyTarget {
  host: string;
  port: number;
  /** The presented key blob. */
  key: Buffer;
}

const UNKNOWN_DATES: HostKeySeenDates = { firstSeen: null, lastSeen: null };

export class HostKeyDesk {
  private seen?: HostKeySeen;

  /**
   * @param paths the known_hosts files (as the engine uses them)
   * @param home the data folder (hostkeys.db); @param onError told when the dates cannot be read or written
   */
  constructor(
    readonly paths: KnownHostsPaths,
    home: string,
    private readonly onError: (message: string) => void,
    clock: () => number = Date.now,
  ) {
    try {
      this.seen = HostKeySeen.open(home, clock);
    } catch (e) {
      onError(`Host key dates are not kept: ${(e as Error).message}`);
    }
  }

  /** A verdict from the engine: a trusted key's last seen is now. */
  noteVerdict(host: string, port: number, v: HostKeyVerdict): void {
    if (v.kind !== 'trusted') return;
    this.guard(() =>
      this.seen?.verified({
        name: knownHostsName(host, port),
        keyType: v.stored.keyType,
        fingerprint: v.stored.fingerprint,
      }),
    );
  }

  /** A key Sluice saved for host:port (accept and save, replace, add, learned): first and last seen are now. */
  noteSaved(host: string, port: number, keyType: string, fingerprint: string): void {
    this.guard(() => this.seen?.saved({ name: knownHostsName(host, port), keyType, fingerprint }));
  }

  /** The saved keys of a changed-key dialog: file:line and dates added. */
  describeStored(host: string, port: number, refs: StoredKeyRef[]): SavedHostKey[] {
    const name = knownHostsName(host, port);
    return refs.map((r) => ({
      keyType: r.keyType,
      fingerprint: r.fingerprint,
      file: r.file,
      line: r.line,
      ...this.dates(name, r.keyType, r.fingerprint),
    }));
  }

  /**
   * Whether a `@cert-authority` line matches host:port. Sluice does not use them (ssh2 offers no certificate host-key
   * algorithms, so servers present plain keys); the dialogs say so when the user evidently relies on one.
   */
  async certAuthorityFor(host: string, port: number): Promise<boolean> {
    const name = knownHostsName(host, port);
    try {
      return (await readKnownHostsEntries(this.paths)).some(
        (e) => e.marker === 'cert-authority' && hostFieldMatches(e.hosts, name),
      );
    } catch {
      return false;
    }
  }

  /** Whether every saved key is in the file Sluice writes (so `replace` can remove them). */
  canEdit(refs: ReadonlyArray<{ file: string }>): boolean {
    const w = path.resolve(this.paths.writePath);
    return refs.every((r) => path.resolve(r.file) === w);
  }

  /**
   * Carries out a changed-key dialog's `replace` or `add`.
   * @param confirmHost for `replace`: must equal `target.host` exactly (the typed confirmation)
   * @throws SluiceError USAGE (confirmation missing or different), INVALID_STATE (a saved key is in a file Sluice
   *   does not edit), LOCAL_IO-like errors from the file system
   */
  async applyChanged(
    target: ChangedKeyTarget,
    answer: 'replace' | 'add',
    confirmHost: string | undefined,
  ): Promise<string> {
    const { host, port, key } = target;
    const keyType = keyTypeOf(key);
    const fingerprint = sha256Fingerprint(key);
    const label = knownHostsName(host, port);
    if (answer === 'add') {
      await appendHostKey(this.paths, host, port, key);
      this.noteSaved(host, port, keyType, fingerprint);
      return `Added the ${keyType} key ${fingerprint} for ${label} to ${this.paths.writePath} (the saved keys are kept)`;
    }
    if (confirmHost !== host) {
      throw new SluiceError('USAGE', `To replace the saved key, type the host name exactly: ${host}`);
    }
    const saved = (await readKnownHostsEntries(this.paths)).filter(
      (e) => e.marker === 'none' && hostFieldMatches(e.hosts, label),
    );
    if (!this.canEdit(saved)) {
      throw new SluiceError(
        'INVALID_STATE',
        `A saved key for ${label} is in a file Sluice does not edit; only ${this.paths.writePath} is changed`,
      );
    }
    const removed = await replaceHostKey(this.paths.writePath, host, port, key);
    for (const e of removed)
      this.guard(() => this.seen?.forget({ name: label, keyType: e.keyType, fingerprint: e.fingerprint }));
    this.noteSaved(host, port, keyType, fingerprint);
    return (
      `Replaced the saved key(s) for ${label} (${removed.map((e) => `${e.keyType} ${e.fingerprint}, line ${e.line}`).join('; ')})` +
      ` with ${keyType} ${fingerprint} in ${this.paths.writePath}`
    );
  }

  /** Every key line of the files read, with dates and the saved sites each matches (for `knownHosts.list`). */
  async list(sites: readonly Site[]): Promise<KnownHostEntry[]> {
    const w = path.resolve(this.paths.writePath);
    const siteNames = sites.map((s) => ({ name: s.name, host: knownHostsName(s.host, s.port) }));
    return (await readKnownHostsEntries(this.paths)).map((e) => {
      const matching = siteNames.filter((s) => hostFieldMatches(e.hosts, s.host));
      return {
        file: e.file,
        line: e.line,
        marker: e.marker,
        hosts: e.hosts,
        hashed: e.hosts.startsWith('|'),
        keyType: e.keyType,
        fingerprint: e.fingerprint,
        ...this.entryDates(e.hosts, e.keyType, e.fingerprint),
        sites: matching.map((s) => s.name),
        editable: path.resolve(e.file) === w,
      };
    });
  }

  /**
   * Removes one line of the file Sluice writes (`knownHosts.remove`) and forgets its dates.
   * @throws SluiceError INVALID_STATE (another file, or the line changed since it was listed)
   */
  async remove(file: string, line: number, fingerprint: string): Promise<string> {
    if (path.resolve(file) !== path.resolve(this.paths.writePath)) {
      throw new SluiceError('INVALID_STATE', `Sluice only edits ${this.paths.writePath}, not ${file}`);
    }
    const e = await removeKnownHostsLine(this.paths.writePath, line, fingerprint);
    for (const row of this.seen?.byFingerprint(e.keyType, e.fingerprint) ?? []) {
      if (hostFieldMatches(e.hosts, row.name))
        this.guard(() => this.seen?.forget({ name: row.name, keyType: e.keyType, fingerprint: e.fingerprint }));
    }
    return `Removed ${e.keyType} ${e.fingerprint} (${e.hosts}) from ${file}:${line}`;
  }

  close(): void {
    this.seen?.close();
    this.seen = undefined;
  }

  private dates(name: string, keyType: string, fingerprint: string): HostKeySeenDates {
    try {
      return this.seen?.get({ name, keyType, fingerprint }) ?? UNKNOWN_DATES;
    } catch {
      return UNKNOWN_DATES;
    }
  }

  /** A line's dates: the earliest first seen and latest last seen over the host names it matches (hashed ones too). */
  private entryDates(hosts: string, keyType: string, fingerprint: string): HostKeySeenDates {
    let rows: Array<HostKeySeenDates & { name: string }> = [];
    try {
      rows = this.seen?.byFingerprint(keyType, fingerprint) ?? [];
    } catch {
      /* dates are informational */
    }
    const mine = rows.filter((r) => hostFieldMatches(hosts, r.name));
    if (mine.length === 0) return UNKNOWN_DATES;
    const firsts = mine.map((r) => r.firstSeen);
    const lasts = mine.map((r) => r.lastSeen).filter((n): n is number => n !== null);
    return {
      firstSeen: firsts.includes(null) ? null : Math.min(...(firsts as number[])),
      lastSeen: lasts.length ? Math.max(...lasts) : null,
    };
  }

  private guard(step: () => void): void {
    try {
      step();
    } catch (e) {
      this.onError(`Host key dates: ${(e as Error).message}`);
    }
  }
}
