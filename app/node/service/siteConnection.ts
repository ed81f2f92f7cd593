/**
 * How a saved site reaches its server: its host through the OpenSSH configuration (a site's host may be an alias; its
 * jump host wins over ProxyJump, its port other than 22 over Port, its user over User — ssh_config(5)), its saved
 * identity and ciphers, the app's known_hosts and timeouts. The connection part of a site session's EngineOptions.
 */
import * as os from 'node:os';
import type { Site } from '../../common/model/site';
import type { EngineOptions } from '../engine/engine';
import { connectionOptions, type ExplicitChoices } from '../engine/hostOptions';
import { resolveHostSettings } from '../engine/hostSettings';
import type { KnownHostsPaths } from '../stores/knownHosts';

/** What the service knows beyond the site: environment, ssh_config file, known_hosts, connect timeout (ms). */
export interface SiteConnectionContext {
  env: NodeJS.ProcessEnv;
  sshConfig?: string;
  knownHostsPaths?: KnownHostsPaths;
  readyTimeoutMs: number;
  /** Notes from reading ssh_config (unsupported keywords, Match criteria), for the site's log. */
  onNote: (message: string) => void;
}

/**
 * The connection options of `site` and the host and port it resolved to (to tell its own host-key prompts from a jump
 * host's).
 * @param secret the site's password, if any
 * @param login the login questions' prompter and kept passphrases (service/authPrompts.ts)
 */
export function siteConnection(site: Site, secret: string | undefined, login: Pick<ExplicitChoices, 'prompter' | 'passphrases'>,
  c: SiteConnectionContext): { options: ReturnType<typeof connectionOptions>; target: { host: string; port: number } } {
  const home = c.env.HOME ?? os.homedir();
  const h = resolveHostSettings(
    { host: site.host, port: site.port === 22 ? undefined : site.port, user: site.user, jump: site.jumpHost, configFile: c.sshConfig },
    { home, env: c.env, onNote: c.onNote },
  );
  const options: Pick<EngineOptions, keyof ReturnType<typeof connectionOptions>> = connectionOptions(h, {
    identityFiles: site.authMethod === 'key' && site.keyPath ? [site.keyPath] : site.authMethod === 'agent' ? undefined : [],
    useAgent: site.authMethod === 'agent',
    password: secret,
    env: { ...c.env, SLUICE_PASSWORD: undefined },
    home,
    ...login,
    // The engine validates the site's cipher names (USAGE error naming the unknown one); default: the measured order (else the AES rule).
    algorithms: site.ciphers?.length ? { cipher: site.ciphers } : undefined,
    defaultHostKeyMode: 'ask',
    // known_hosts is re-read on every connect: another program (or another site) may have changed it.
    knownHostsPaths: c.knownHostsPaths,
    readyTimeoutMs: c.readyTimeoutMs,
  });
  return { options, target: { host: h.host, port: h.port } };
}
