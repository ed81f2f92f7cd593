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
import { SluiceError } from '../errors';
import type { SecretStore } from '../stores/sites';
import type { ServiceHub } from './hub';
import { errorInfo } from './results';
import type { SiteSessions } from './sessions';
import type { SiteSession } from './siteSession';

/**
 * The id a test goes by in its prompts (`auth.prompt`, `hostKey.prompt`): never a saved site's, so that answering a
 * test's dialogs (e.g. replacing a changed key) does not connect the saved site.
 */
const TEST_PREFIX = 'test-';

/**
 * Secrets for a test under `testId`: a saved site's are read under its own id (its stored password, remembered
 * passphrases: ids `SITE` and `SITE\npassphrase\nKEY`) and a Remember keeps them there; nothing is read or kept for an
 * unsaved one (it has no id to keep them under).
 */
function testSecrets(store: SecretStore, testId: string, savedId: string | undefined): SecretStore {
  const real = (id: string): string | undefined =>
    savedId !== undefined && id.startsWith(testId) ? savedId + id.slice(testId.length) : undefined;
  return {
    get: async (id) => {
      const r = real(id);
      return r === undefined ? undefined : store.get(r);
    },
    set: async (id, secret) => {
      const r = real(id);
      if (r !== undefined) await store.set(r, secret);
    },
    delete: async (id) => {
      const r = real(id);
      if (r !== undefined) await store.delete(r);
    },
    status: () => store.status(),
  };
}

/** The tests under way by the renderer's id, so that `sites.testCancel` can stop one. */
export class SiteTestRuns {
  private readonly running = new Map<string, AbortController>();

  /** Runs `test` with a signal that {@link cancel} of `testId` aborts (no id: it cannot be cancelled). */
  async run<T>(testId: string | undefined, test: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
    if (testId === undefined) return test(undefined);
    if (this.running.has(testId))
      throw new SluiceError('INVALID_REQUEST', `a test with id ${testId} is already running`);
    const controller = new AbortController();
    this.running.set(testId, controller);
    try {
      return await test(controller.signal);
    } finally {
      this.running.delete(testId);
    }
  }

  /** @returns whether a running test had that id (it then reports `ABORTED` at once) */
  cancel(testId: string): boolean {
    const c = this.running.get(testId);
    c?.abort();
    return c !== undefined;
  }
}

/** A test's open dialogs; once the test is cancelled, a dialog it still opens is closed right after it was shown. */
class TestPrompts extends Set<string> {
  private closer?: (promptId: string) => void;

  /** Closes every open dialog, and from now on every new one. */
  closeAll(close: (promptId: string) => void): void {
    this.closer = close;
    for (const id of [...this]) close(id);
  }

  override add(promptId: string): this {
    super.add(promptId);
    const close = this.closer;
    if (close) setImmediate(() => close(promptId));
    return this;
  }
}

/** `opening`, or an ABORTED error as soon as `signal` aborts (the connection attempt goes on; its engine is closed). */
function unlessCancelled(opening: Promise<Engine>, signal: AbortSignal | undefined): Promise<Engine> {
  if (!signal) return opening;
  return new Promise<Engine>((resolve, reject) => {
    const onAbort = () => {
      reject(new SluiceError('ABORTED', 'Test connection cancelled'));
      opening
        .then(
          (engine) => engine.close(),
          () => undefined,
        )
        .catch(() => undefined);
    };
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    opening.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Connects once with `input` (possibly unsaved), reports and disconnects.
 * @param password the form's password (password sites); without it a saved site's stored one, else it is asked
 * @param signal aborts the test: it reports `ABORTED` at once, its open dialogs close, a connection still being made is
 *   closed when it opens
 * @returns a report: `ok` with what was negotiated, or the failed step with the error's code and message
 */
export async function testSite(
  sessions: SiteSessions,
  hub: ServiceHub,
  input: SiteInput,
  password?: string,
  signal?: AbortSignal,
): Promise<SiteTestReport> {
  const started = performance.now();
  const savedId = input.id !== undefined && hub.store.get(input.id) !== undefined ? input.id : undefined;
  const now = hub.clock();
  const site: Site = { ...input, id: `${TEST_PREFIX}${randomUUID()}`, createdAt: now, updatedAt: now };
  const where = `${site.user}@${site.host}:${site.port}`;
  const prompts = new TestPrompts();
  const s: SiteSession = {
    site,
    password,
    secretStore: testSecrets(hub.secrets, site.id, savedId),
    status: { siteId: site.id, siteName: site.name, state: 'connecting', connectionsUp: 0, connections: 1 },
    secrets: new Set(),
    prompts,
    passphrases: new Map(),
    changed: new Set(),
  };
  let pastHostKey = false;
  let engine: Engine;
  const onAbort = () => prompts.closeAll((id) => sessions.closePrompt(id));
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    engine = await unlessCancelled(
      openOnce(
        sessions,
        hub,
        s,
        () => {
          pastHostKey = true;
        },
        signal,
      ),
      signal,
    );
  } catch (e) {
    signal?.removeEventListener('abort', onAbort);
    const { code, message } = errorInfo(e);
    const step = stepOfError(code, pastHostKey);
    hub.log('warn', `Test connection to ${where} failed at ${step}: ${message}`);
    return { ok: false, step, code, message };
  }
  try {
    let home: string | undefined;
    try {
      home = await engine.realpath('.');
    } catch {
      /* some servers refuse realpath */
    }
    const n = engine.traits.negotiated;
    const report: SiteTestReport = {
      ok: true,
      kex: n.kex,
      cipher: n.cipher,
      mac: n.mac,
      serverHostKey: n.serverHostKey,
      serverVersion: engine.traits.serverVersion ?? '',
      authMethod: engine.pool.authMethod,
      elapsedMs: Math.round(performance.now() - started),
      ...(engine.pool.rttMs !== undefined ? { rttMs: Math.round(engine.pool.rttMs * 10) / 10 } : {}),
      ...(home !== undefined ? { home } : {}),
    };
    hub.log('info', `Test connection to ${where}: ${report.serverVersion}, ${n.cipher}, ${n.kex}, ${n.serverHostKey}`);
    return report;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await engine.close().catch(() => undefined);
  }
}

/**
 * Opens one connection with one SFTP channel for the test session `s`: the options, prompts and dialogs of a site
 * session; its engine events only logged; `onPastHostKey` once the target's key was trusted or accepted.
 */
async function openOnce(
  sessions: SiteSessions,
  hub: ServiceHub,
  s: SiteSession,
  onPastHostKey: () => void,
  signal?: AbortSignal,
): Promise<Engine> {
  const seen: Parameters<SiteSessions['engineOptions']>[1] = {};
  const isTarget = (server: { host: string; port: number }): boolean =>
    s.target?.host === server.host && s.target.port === server.port;
  try {
    const o = await sessions.engineOptions(s, seen);
    return await sessions.openEngine({
      ...o,
      connections: 1,
      channels: 1,
      onEvent: (e) => {
        if (e.type === 'log') hub.log(e.level, e.message);
      },
      onHostKeyVerdict: (v, server) => {
        o.onHostKeyVerdict?.(v, server);
        if (v.kind === 'trusted' && isTarget(server)) onPastHostKey();
      },
      hostKeyPrompt: async (v) => {
        if (signal?.aborted) return 'reject';
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
