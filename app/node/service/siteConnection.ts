/**
 * How a saved site reaches its server: its host through the OpenSSH configuration (a site's host may be an alias; its
 * jump host wins over ProxyJump, its port other than 22 over Port, its user over User — ssh_config(5)), its saved
 * identity and algorithm lists, the app's known_hosts and timeouts. The connection part of a site session's
 * EngineOptions.
 */
import type { Site } from '../../common/model/site';
import type { EngineOptions } from '../engine/engine';
import { connectionOptions, type ExplicitChoices } from '../engine/hostOptions';
import { resolveHostSettings } from '../engine/hostSettings';
import type { AlgorithmChoice } from '../ssh/algorithms';
import type { KnownHostsPaths } from '../stores/knownHosts';
import { homeOf } from '../sys/platformPaths';
import { QUICK_SITE_PREFIX } from './quickConnect';

/** What the service knows beyond the site: environment, ssh_config file, known_hosts, connect timeout (ms). */
export interface SiteConnectionContext {
  env: NodeJS.ProcessEnv;
  sshConfig?: string;
  knownHostsPaths?: KnownHostsPaths;
  readyTimeoutMs: number;
  /** Notes from reading ssh_config (unsupported keywords, Match criteria), for the site's log. */
  onNote: (message: string) => void;
}

/** The algorithm lists a site chose (app/common/model/site.ts), as the engine's AlgorithmChoice; undefined for none. */
export function siteAlgorithms(
  site: Pick<Site, 'ciphers' | 'kex' | 'macs' | 'hostKeyAlgorithms'>,
): AlgorithmChoice | undefined {
  const choice: AlgorithmChoice = {};
  if (site.ciphers?.length) choice.cipher = site.ciphers;
  if (site.kex?.length) choice.kex = site.kex;
  if (site.macs?.length) choice.hmac = site.macs;
  if (site.hostKeyAlgorithms?.length) choice.serverHostKey = site.hostKeyAlgorithms;
  return Object.keys(choice).length ? choice : undefined;
}

/**
 * The connection options of `site` and the host and port it resolved to (to tell its own host-key prompts from a jump
 * host's).
 * @param secret the site's password, if any
 * @param login the login questions' prompter and kept passphrases (service/authPrompts.ts)
 */
export function siteConnection(
  site: Site,
  secret: string | undefined,
  login: Pick<ExplicitChoices, 'prompter' | 'passphrases'>,
  c: SiteConnectionContext,
): { options: ReturnType<typeof connectionOptions>; target: { host: string; port: number } } {
  const home = homeOf(c.env);
  const h = resolveHostSettings(
    {
      host: site.host,
      port: site.port === 22 ? undefined : site.port,
      user: site.user,
      jump: site.jumpHost,
      configFile: c.sshConfig,
    },
    { home, env: c.env, onNote: c.onNote },
  );
  const options: Pick<EngineOptions, keyof ReturnType<typeof connectionOptions>> = connectionOptions(h, {
    identityFiles:
      site.authMethod === 'key' && site.keyPath ? [site.keyPath] : site.authMethod === 'agent' ? undefined : [],
    // A quick connection (service/quickConnect.ts) asks the agent as ssh(1) does: when SSH_AUTH_SOCK is set.
    useAgent: site.authMethod !== 'agent' ? false : site.id.startsWith(QUICK_SITE_PREFIX) ? undefined : true,
    password: secret,
    env: { ...c.env, SLUICE_PASSWORD: undefined },
    home,
    ...login,
    // The engine validates the site's names (USAGE error naming the unknown one); a family without a list:
    // ssh_config's,
    // else the defaults (ssh/algorithms.ts: the measured or AES-aware cipher order, no weak algorithm).
    algorithms: siteAlgorithms(site),
    defaultHostKeyMode: 'ask',
    // known_hosts is re-read on every connect: another program (or another site) may have changed it.
    knownHostsPaths: c.knownHostsPaths,
    readyTimeoutMs: c.readyTimeoutMs,
  });
  return { options, target: { host: h.host, port: h.port } };
}
