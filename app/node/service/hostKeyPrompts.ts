/**
 * Host-key questions put to the user as `hostKey.prompt` dialogs and answered with `hostKey.answer`: an unknown key
 * (accept once, accept and save, reject) asked while a connect waits, and a changed or revoked key shown once the
 * connect failed (a changed one may be replaced or added to known_hosts through hostKeyDesk.ts).
 */
import { randomUUID } from 'node:crypto';
import type { HostKeyAnswer, HostKeyPrompt } from '../../common/ipc/contract';
import type { HostKeyAnswer as PolicyAnswer, HostKeyVerdict } from '../../common/model/hostKey';
import { SluiceError } from '../errors';
import type { ChangedKeyTarget, HostKeyDesk } from './hostKeyDesk';
import type { ServiceHub } from './hub';
import type { SiteSession } from './siteSession';

/** A host key the engine refused (changed or revoked), shown once the connect failed. */
export type RefusedVerdict = Extract<HostKeyVerdict, { kind: 'changed' | 'revoked' }>;

interface PendingHostKey {
  siteId: string;
  kind: HostKeyPrompt['kind'];
  resolve: (a: HostKeyAnswer) => void;
  /** For a changed key that `replace` / `add` may save. */
  changed?: ChangedKeyTarget;
}

/** What a prompt needs of its site's session: the site, the attempt's open prompts, where it connects. */
type PromptingSession = Pick<SiteSession, 'site' | 'prompts' | 'target'>;

/** The open host-key questions of every site. */
export class HostKeyPrompts {
  private readonly pending = new Map<string, PendingHostKey>();

  constructor(
    private readonly hub: ServiceHub,
    private readonly hostKeys: HostKeyDesk,
  ) {}

  /**
   * `hostKey.answer`: a changed or revoked key is never accepted for the failed connect (accept-* only close its
   * dialog). A changed key's `replace`
   * (typed host name checked here too) or `add` edits known_hosts, so that the next connect trusts it; a failed
   * edit leaves the prompt open.
   * @throws SluiceError NOT_FOUND (not open), INVALID_STATE (an answer the prompt's kind does not allow), USAGE
   */
  async answer(promptId: string, answer: HostKeyAnswer, confirmHost?: string): Promise<void> {
    const p = this.pending.get(promptId);
    if (!p) throw new SluiceError('NOT_FOUND', 'This host-key question is no longer open');
    const changedOnly = answer === 'replace' || answer === 'add';
    if (changedOnly && !p.changed) {
      throw new SluiceError('INVALID_STATE', `"${answer}" is not an answer to a ${p.kind} host key`);
    }
    if (changedOnly && p.changed) {
      const done = await this.hostKeys.applyChanged(p.changed, answer as 'replace' | 'add', confirmHost);
      this.hub.log('warn', done, p.siteId);
    }
    this.pending.delete(promptId);
    p.resolve(p.kind === 'unknown' ? answer : 'reject');
    this.hub.emit('prompt.closed', { promptId });
  }

  /** Asks the UI about an unknown key; resolves with its answer (reject when the attempt ends first). */
  async askUnknown(s: PromptingSession, v: Extract<HostKeyVerdict, { kind: 'unknown' }>): Promise<PolicyAnswer> {
    const promptId = randomUUID();
    const certAuthority = await this.hostKeys.certAuthorityFor(s.site.host, s.site.port);
    return new Promise<PolicyAnswer>((resolve) => {
      const onAnswer = (a: HostKeyAnswer): void => {
        if (a === 'accept-save')
          this.hostKeys.noteSaved(s.site.host, s.site.port, v.identity.keyType, v.identity.fingerprint);
        resolve(a === 'accept-once' || a === 'accept-save' ? a : 'reject');
      };
      this.pending.set(promptId, { siteId: s.site.id, kind: 'unknown', resolve: onAnswer });
      s.prompts.add(promptId);
      this.hub.emit('hostKey.prompt', {
        promptId,
        siteId: s.site.id,
        ...promptTarget(s, v),
        kind: 'unknown',
        presented: { keyType: v.identity.keyType, fingerprint: v.identity.fingerprint },
        ...(certAuthority ? { certAuthority } : {}),
      });
    });
  }

  /**
   * Shows the red dialog for a changed/revoked key (the connect already failed): Cancel closes it; a changed key
   * may be replaced or added (see {@link answer}).
   */
  async showRefused(s: PromptingSession, v: RefusedVerdict): Promise<void> {
    const promptId = randomUUID();
    const { host, port } = s.site;
    const certAuthority = await this.hostKeys.certAuthorityFor(host, port);
    const stored = v.kind === 'changed' ? v.stored : [v.stored];
    const changed =
      v.kind === 'changed' && v.identity.key ? { host, port, key: Buffer.from(v.identity.key, 'base64') } : undefined;
    this.pending.set(promptId, { siteId: s.site.id, kind: v.kind, resolve: () => undefined, changed });
    this.hub.emit('hostKey.prompt', {
      promptId,
      siteId: s.site.id,
      ...promptTarget(s, v),
      kind: v.kind,
      presented: { keyType: v.identity.keyType, fingerprint: v.identity.fingerprint },
      previous: this.hostKeys.describeStored(host, port, stored),
      ...(v.kind === 'changed' ? { canEdit: changed !== undefined && this.hostKeys.canEdit(stored) } : {}),
      ...(certAuthority ? { certAuthority } : {}),
    });
  }

  /** Closes an open host-key question as rejected (its connect attempt ended); nothing when `promptId` is not one. */
  close(promptId: string): void {
    const p = this.pending.get(promptId);
    if (!p) return;
    this.pending.delete(promptId);
    p.resolve('reject');
    this.hub.emit('prompt.closed', { promptId });
  }
}

/** Where a host-key prompt points: the key's own host and port, and whether that is a jump host of the site. */
function promptTarget(
  s: PromptingSession,
  v: { identity: { host: string; port: number } },
): Pick<HostKeyPrompt, 'host' | 'port' | 'jumpHost'> {
  const { host, port } = v.identity;
  const jumpHost = s.target !== undefined && (s.target.host !== host || s.target.port !== port);
  return jumpHost ? { host, port, jumpHost } : { host, port };
}
