/**
 * Opens a Session from user-level settings: loads known_hosts, builds the host-key policy and the
 * algorithm lists, gathers identities. Shared by the CLI and the service façade.
 */
import type { Algorithms } from 'ssh2';
import type { HostKeyVerdict } from '../../common/model/hostKey';
import { KnownHosts, defaultKnownHostsPaths, type KnownHostsPaths } from '../stores/knownHosts';
import { buildAlgorithms, type AlgorithmChoice } from './algorithms';
import { gatherAuth, type AuthOptions } from './auth';
import { HostKeyPolicy, preferStoredHostKeyAlgorithms, type HostKeyMode, type HostKeyPrompter } from './hostKeys';
import { Session, type SessionOptions } from './session';

export interface OpenSessionOptions
  extends Omit<SessionOptions, 'auth' | 'hostKeys' | 'algorithms' | 'username'> {
  username?: string;
  auth: Omit<AuthOptions, 'username'>;
  algorithms?: AlgorithmChoice;
  hostKeyMode: HostKeyMode;
  hostKeyPrompt?: HostKeyPrompter;
  onHostKeyVerdict?: (v: HostKeyVerdict) => void;
  /** Defaults to ~/.ssh/known_hosts + /etc/ssh/ssh_known_hosts, or SLUICE_KNOWN_HOSTS. */
  knownHostsPaths?: KnownHostsPaths;
  onWarning?: (message: string) => void;
}

/**
 * Puts the host-key algorithms whose key types known_hosts already holds for this host first (OpenSSH
 * order_hostkeyalgs): a server with several host keys would otherwise present one we have not stored and
 * look "changed". Mutates and returns `algorithms`.
 */
export function preferStoredHostKeyTypes(algorithms: Algorithms, knownHosts: KnownHosts, host: string, port: number): Algorithms {
  const { DEFAULT_SERVER_HOST_KEY } = require('ssh2/lib/protocol/constants') as { DEFAULT_SERVER_HOST_KEY: string[] };
  const list = (algorithms.serverHostKey as string[] | undefined) ?? DEFAULT_SERVER_HOST_KEY;
  algorithms.serverHostKey = preferStoredHostKeyAlgorithms(knownHosts.storedKeyTypes(host, port), list) as never;
  return algorithms;
}

/**
 * Resolves identities, trust and algorithms, then opens the connection pool.
 * Host-key algorithms put the types already stored for the host first (OpenSSH order_hostkeyalgs), unless
 * the user chose them explicitly.
 *
 * @throws SluiceError USAGE (bad algorithm names), UNSUPPORTED_KEY, HOSTKEY_*, AUTH_FAILED, TIMEOUT, CONNECTION_LOST
 */
export async function openSession(o: OpenSessionOptions): Promise<Session> {
  const knownHosts = await KnownHosts.load(o.knownHostsPaths ?? defaultKnownHostsPaths());
  const hostKeys = new HostKeyPolicy({ knownHosts, mode: o.hostKeyMode, prompt: o.hostKeyPrompt, onVerdict: o.onHostKeyVerdict });
  const algorithms = buildAlgorithms(o.algorithms ?? {});
  if (!o.algorithms?.serverHostKey?.length) preferStoredHostKeyTypes(algorithms, knownHosts, o.host, o.port);
  const auth = await gatherAuth({ ...o.auth, username: o.username }, o.onWarning);
  return Session.open({ ...o, username: auth.username, auth, hostKeys, algorithms });
}
