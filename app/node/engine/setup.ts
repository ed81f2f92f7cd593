/**
 * The engine's set-up from user-level settings: loads known_hosts, builds the host-key policy and the algorithm
 * lists, gathers identities, and turns them into the options of a site's pool (ssh/connectionPool.ts). The CLI and the
 * service give the same {@link EngineOptions}; only this module composes the ssh/ set-up pieces.
 */
import type { Algorithms } from 'ssh2';
import type { HostKeyVerdict } from '../../common/model/hostKey';
import { KnownHosts, defaultKnownHostsPaths, type KnownHostsPaths } from '../stores/knownHosts';
import { buildAlgorithms, type AlgorithmChoice } from '../ssh/algorithms';
import { gatherAuth, type AuthOptions } from '../ssh/auth';
import { HostKeyPolicy, preferStoredHostKeyAlgorithms, type HostKeyMode, type HostKeyPrompter } from '../ssh/hostKeys';
import type { JumpHost } from '../ssh/jumpHosts';
import type { PoolOptions } from '../ssh/connectionPool';
import { ssh2Lists } from '../ssh/ssh2Lists';
import { hostPortLabel } from '../../common/jumpHosts';

/**
 * A jump host (ssh_config(5) ProxyJump, `-J`, a site's jump host): where it is, who logs in there and how. Host keys
 * go through the engine's prompt, with the hop's own known_hosts and mode where given (its `UserKnownHostsFile` and
 * `StrictHostKeyChecking`, as ssh -J runs a separate ssh for the hop), else the target's.
 */
export interface JumpHostOptions {
  host: string;
  port: number;
  /** How messages name it; default `host:port`. */
  label?: string;
  /** Login name; default the local user name. */
  username?: string;
  /** Identity files, agent, prompter (ssh/auth.ts AuthOptions); a password is only ever asked, never the target's. */
  auth: Omit<AuthOptions, 'username'>;
  algorithms?: AlgorithmChoice;
  /** Asked when the jump host wants a password: once per hop, however many connections the pool opens. */
  askPassword?: () => Promise<string | undefined>;
  /** The hop's own known_hosts files; default the engine's `knownHostsPaths`. */
  knownHostsPaths?: KnownHostsPaths;
  /** The hop's own handling of an unknown key; default the engine's `hostKeyMode`. */
  hostKeyMode?: HostKeyMode;
}

/** What opening an engine takes: the server, who logs in and how, trust, algorithms, and the pool's tuning. */
export interface EngineOptions extends Omit<PoolOptions, 'auth' | 'hostKeys' | 'algorithms' | 'username' | 'jump'> {
  /** Login name; default `os.userInfo().username` (see ssh/auth.ts gatherAuth). */
  username?: string;
  /** Identity files, agent, password, prompter (ssh/auth.ts AuthOptions). */
  auth: Omit<AuthOptions, 'username'>;
  /**
   * Algorithm names by family; default: this machine's measured cipher and MAC orders (else the AES rule), ssh2's other
   * lists.
   */
  algorithms?: AlgorithmChoice;
  hostKeyMode: HostKeyMode;
  /** Asks the user about an unknown key (`ask`); without it `ask` behaves as `strict`. */
  hostKeyPrompt?: HostKeyPrompter;
  /** Every host-key lookup result, with the server it is about (the target or a jump host); must not throw. */
  onHostKeyVerdict?: (v: HostKeyVerdict, server: { host: string; port: number }) => void;
  /** Defaults to ~/.ssh/known_hosts + /etc/ssh/ssh_known_hosts, or SLUICE_KNOWN_HOSTS. Read again on every open. */
  knownHostsPaths?: KnownHostsPaths;
  /** Set-up warnings (an identity file that cannot be used, an agent that does not answer). */
  onWarning?: (message: string) => void;
  /** Jump hosts in the order they are visited; the target is reached through the last one's forwarding. */
  jump?: JumpHostOptions[];
}

/**
 * Puts the host-key algorithms whose key types known_hosts already holds for this host first (OpenSSH
 * order_hostkeyalgs): a server with several host keys would otherwise present one we have not stored and
 * look "changed". Mutates and returns `algorithms`.
 */
export function preferStoredHostKeyTypes(
  algorithms: Algorithms,
  knownHosts: KnownHosts,
  host: string,
  port: number,
): Algorithms {
  const list = (algorithms.serverHostKey as string[] | undefined) ?? ssh2Lists.DEFAULT_SERVER_HOST_KEY;
  algorithms.serverHostKey = preferStoredHostKeyAlgorithms(knownHosts.storedKeyTypes(host, port), list) as never;
  return algorithms;
}

/**
 * Resolves identities, trust and algorithms into the options of a site's pool. known_hosts is read now (another
 * program may have changed it since the last open). Host-key algorithms put the types already stored for the host
 * first (OpenSSH order_hostkeyalgs), unless the user chose them explicitly.
 *
 * @throws SluiceError USAGE (an unknown algorithm name), UNSUPPORTED_KEY (an identity file ssh2 cannot use)
 */
export async function poolOptionsFor(o: EngineOptions): Promise<PoolOptions> {
  const algorithms = buildAlgorithms(o.algorithms ?? {}, o.dataDir);
  const paths = o.knownHostsPaths ?? defaultKnownHostsPaths();
  const knownHosts = await KnownHosts.load(paths);
  const hostKeys = new HostKeyPolicy({
    knownHosts,
    mode: o.hostKeyMode,
    prompt: o.hostKeyPrompt,
    onVerdict: o.onHostKeyVerdict,
  });
  if (!o.algorithms?.serverHostKey?.length) preferStoredHostKeyTypes(algorithms, knownHosts, o.host, o.port);
  const auth = await gatherAuth({ ...o.auth, username: o.username }, o.onWarning);
  const jump: JumpHost[] = [];
  // One after the other: a hop's passphrase prompts must not interleave with another's.
  for (const h of o.jump ?? []) {
    const trust = await hopTrust(h, o, { paths, knownHosts, hostKeys });
    jump.push(await jumpHostFor(h, trust, o.onWarning, o.dataDir));
  }
  return { ...o, username: auth.username, auth, hostKeys, algorithms, jump };
}

interface HopTrust {
  knownHosts: KnownHosts;
  /** Undefined: the pool's policy (the same files and mode as the target). */
  hostKeys?: HostKeyPolicy;
}

/** A hop's known_hosts and policy: the target's when the hop has neither its own files nor its own mode. */
async function hopTrust(
  h: JumpHostOptions,
  o: EngineOptions,
  target: { paths: KnownHostsPaths; knownHosts: KnownHosts; hostKeys: HostKeyPolicy },
): Promise<HopTrust> {
  const samePaths = !h.knownHostsPaths || JSON.stringify(h.knownHostsPaths) === JSON.stringify(target.paths);
  const mode = h.hostKeyMode ?? o.hostKeyMode;
  if (samePaths && mode === o.hostKeyMode) return { knownHosts: target.knownHosts };
  const knownHosts = samePaths ? target.knownHosts : await KnownHosts.load(h.knownHostsPaths!);
  return {
    knownHosts,
    hostKeys: new HostKeyPolicy({ knownHosts, mode, prompt: o.hostKeyPrompt, onVerdict: o.onHostKeyVerdict }),
  };
}

/** A jump host's login material and algorithms (host-key types stored for it first, as for the target). */
async function jumpHostFor(
  h: JumpHostOptions,
  trust: HopTrust,
  onWarning?: (m: string) => void,
  dataDir?: string,
): Promise<JumpHost> {
  const label = h.label ?? hostPortLabel(h.host, h.port);
  // SLUICE_PASSWORD is the target's: it never goes to a jump host.
  const env = { ...(h.auth.env ?? process.env), SLUICE_PASSWORD: undefined };
  const auth = await gatherAuth(
    { ...h.auth, env, username: h.username },
    onWarning && ((m) => onWarning(`jump host ${label}: ${m}`)),
  );
  const algorithms = buildAlgorithms(h.algorithms ?? {}, dataDir);
  if (!h.algorithms?.serverHostKey?.length) preferStoredHostKeyTypes(algorithms, trust.knownHosts, h.host, h.port);
  const hop: JumpHost = {
    host: h.host,
    port: h.port,
    username: auth.username,
    label,
    auth,
    algorithms,
    askPassword: h.askPassword,
  };
  if (trust.hostKeys) hop.hostKeys = trust.hostKeys;
  return hop;
}
