/**
 * The site form's "Test connection" (`sites.test`): one connection with the form's settings, saved or not (its jump
 * hosts and algorithm lists included), the host key checked with the same policy and dialogs and the login asked
 * with the same prompts as a site session (service/sessions.ts), SFTP opened, then a report — the negotiated
 * algorithms (RFC 4253 §7.1), the server's identification line (§4.2), the round trip and the login folder, or the
 * step that failed with its error — and the connection closed again. No session status is emitted.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Site, SiteInput } from '../../common/model/site';
import { stepOfError, type SiteTestReport } from '../../common/model/siteTest';
import type { Engine } from '../engine/engine';
import type { SecretStore } from '../stores/sites';
import type { ServiceHub } from './hub';
import { errorInfo } from './results';
import type { SiteSessions } from './sessions';
import type { SiteSession } from './siteSession';

/** The id a test of an unsaved site goes by in its prompts (`auth.prompt`, `hostKey.prompt`). */
const UNSAVED_PREFIX = 'unsaved-';

/**
 * Secrets for a test: a saved site's are read (its stored password, remembered passphrases); nothing is written for
 * an unsaved one (it has no id to keep them under), and a saved one's are kept only when the user ticks Remember.
 */
function testSecrets(store: SecretStore, saved: boolean): SecretStore {
  if (saved) return store;
  return {
    get: async () => undefined,
    set: async () => undefined,
    delete: async () => undefined,
    status: () => store.status(),
  };
}

/**
 * Connects once with `input` (possibly unsaved), reports and disconnects.
 * @param password the form's password (password sites); without it a saved site's stored one, else it is asked
 * @returns a report: `ok` with what was negotiated, or the failed step with the error's code and message
 */
export async function testSite(sessions: SiteSessions, hub: ServiceHub, input: SiteInput, password?: string): Promise<SiteTestReport> {
  const started = performance.now();
  const saved = input.id !== undefined && hub.store.get(input.id) !== undefined;
  const now = hub.clock();
  const site: Site = { ...input, id: saved ? input.id! : `${UNSAVED_PREFIX}${randomUUID()}`, createdAt: now, updatedAt: now };
  const where = `${site.user}@${site.host}:${site.port}`;
  const s: SiteSession = {
    site, password, secretStore: testSecrets(hub.secrets, saved),
    status: { siteId: site.id, siteName: site.name, state: 'connecting', connectionsUp: 0, connections: 1 },
    secrets: new Set(), prompts: new Set(), passphrases: new Map(), changed: new Set(),
  };
  let pastHostKey = false;
  let engine: Engine;
  try {
    engine = await openOnce(sessions, hub, s, () => { pastHostKey = true; });
  } catch (e) {
    const { code, message } = errorInfo(e);
    const step = stepOfError(code, pastHostKey);
    hub.log('warn', `Test connection to ${where} failed at ${step}: ${message}`);
    return { ok: false, step, code, message };
  }
  try {
    let home: string | undefined;
    try { home = await engine.realpath('.'); } catch { /* some servers refuse realpath */ }
    const n = engine.traits.negotiated;
    const report: SiteTestReport = {
      ok: true, kex: n.kex, cipher: n.cipher, mac: n.mac, serverHostKey: n.serverHostKey, serverVersion: engine.traits.serverVersion ?? '',
      authMethod: engine.pool.authMethod, elapsedMs: Math.round(performance.now() - started),
      ...(engine.pool.rttMs !== undefined ? { rttMs: Math.round(engine.pool.rttMs * 10) / 10 } : {}),
      ...(home !== undefined ? { home } : {}),
    };
    hub.log('info', `Test connection to ${where}: ${report.serverVersion}, ${n.cipher}, ${n.kex}, ${n.serverHostKey}`);
    return report;
  } finally {
    await engine.close().catch(() => undefined);
  }
}

/**
 * Opens one connection with one SFTP channel for the test session `s`: the options, prompts and dialogs of a site
 * session; its engine events only logged; `onPastHostKey` once the target's key was trusted or accepted.
 */
async function openOnce(sessions: SiteSessions, hub: ServiceHub, s: SiteSession, onPastHostKey: () => void): Promise<Engine> {
  const seen: Parameters<SiteSessions['engineOptions']>[1] = {};
  const isTarget = (server: { host: string; port: number }): boolean => s.target?.host === server.host && s.target.port === server.port;
  try {
    const o = await sessions.engineOptions(s, seen);
    return await sessions.openEngine({
      ...o,
      connections: 1,
      channels: 1,
      onEvent: (e) => { if (e.type === 'log') hub.log(e.level, e.message); },
      onHostKeyVerdict: (v, server) => {
        o.onHostKeyVerdict?.(v, server);
        if (v.kind === 'trusted' && isTarget(server)) onPastHostKey();
      },
      hostKeyPrompt: async (v) => {
        const answer = await o.hostKeyPrompt!(v);
        if (answer !== 'reject' && isTarget(v.identity)) onPastHostKey();
        return answer;
      },
    });
  } catch (e) {
    if (seen.refused) await sessions.showRefusedKey(s, seen.refused);
    throw e;
  } finally {
    for (const id of [...s.prompts]) sessions.closePrompt(id);
  }
}
