/**
 * The engine's door for the service: a site's session (ssh/session.ts) with its transfers (transfer/run.ts) on it.
 * The ssh layer knows nothing of transfers; this module puts the two together. (The CLI and the harness still open
 * sessions through ssh/openSession.ts and call runTransfer; one `openEngine` for all three is the architecture
 * issue's next step.)
 */
import { Session, type SessionOptions } from '../ssh/session';
import type { Negotiated, RemoteEntry, RemoteStat } from '../ssh/workerProtocol';
import { runTransfer } from '../transfer/run';
import type { EngineEvent, TransferReport, TransferRequest } from '../transfer/types';

/** The part of a session the service uses; a fake implements it in tests. */
export interface EngineSession {
  readonly negotiated: Negotiated;
  list(path: string): Promise<RemoteEntry[]>;
  stat(path: string): Promise<RemoteStat | null>;
  realpath(path: string): Promise<string>;
  mkdir(path: string): Promise<unknown>;
  rename(from: string, to: string): Promise<void>;
  remove(path: string, recursive?: boolean): Promise<void>;
  /** Runs a get or put job over every lane of the pool (transfer/run.ts). */
  transfer(req: TransferRequest, signal?: AbortSignal): Promise<TransferReport>;
  close(): Promise<void>;
}

/** What the service passes to the engine to open a session: a subset of `SessionOptions`, with events required. */
export type EngineOpenOptions = Pick<SessionOptions, 'host' | 'port' | 'username' | 'auth' | 'algorithms' | 'connections' | 'channels'
  | 'readyTimeoutMs' | 'hostKeys' | 'dataDir'> & { onEvent: (e: EngineEvent) => void };

export type EngineFactory = (o: EngineOpenOptions) => Promise<EngineSession>;

/**
 * Opens a site's pool and returns it as an {@link EngineSession}.
 * @throws SluiceError HOSTKEY_*, AUTH_FAILED, TIMEOUT, CONNECTION_LOST (see Session.open)
 */
export async function openEngineSession(o: EngineOpenOptions): Promise<EngineSession> {
  const session = await Session.open(o);
  return {
    get negotiated() { return session.negotiated; },
    list: (p) => session.list(p),
    stat: (p) => session.stat(p),
    realpath: (p) => session.realpath(p),
    mkdir: (p) => session.mkdir(p),
    rename: (from, to) => session.rename(from, to),
    remove: (p, recursive) => session.remove(p, recursive),
    transfer: (req, signal) => runTransfer(session, req, signal),
    close: () => session.close(),
  };
}
