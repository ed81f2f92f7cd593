/**
 * Engine options from what the OpenSSH configuration says (engine/hostSettings.ts) and what the command line or the
 * site chose explicitly; the explicit choice wins, as in ssh(1). Shared by the CLI (cli/jobSetup.ts) and the service
 * (service/sessions.ts), so both read ssh_config alike.
 */
import type { AlgorithmChoice } from '../ssh/algorithms';
import type { PassphraseStore, Prompter } from '../ssh/auth';
import type { HostKeyMode } from '../ssh/hostKeys';
import { defaultKnownHostsPaths, type KnownHostsPaths } from '../stores/knownHosts';
import { homeOf } from '../sys/platformPaths';
import type { HopSettings, HostSettings } from './hostSettings';
import type { EngineOptions, JumpHostOptions } from './setup';

/** What the caller chose itself (undefined: not chosen, the configuration or the default applies). */
export interface ExplicitChoices {
  /** `-i` files, a site's key file ([] for none). */
  identityFiles?: string[];
  /**
   * The target's agent: false (`--no-agent`, a key or password site), true (an agent site), undefined (SSH_AUTH_SOCK).
   */
  useAgent?: boolean;
  /** `--no-agent`: no agent for the jump hosts either. */
  noAgent?: boolean;
  /** Command-line algorithm lists: each family given wins over the configuration's. */
  algorithms?: AlgorithmChoice;
  /** `--accept-new` (wins), else how unknown keys are handled without configuration: ask, or strict in batch mode. */
  hostKeyMode?: HostKeyMode;
  defaultHostKeyMode: HostKeyMode;
  /**
   * The known_hosts files chosen by the caller (SLUICE_KNOWN_HOSTS, the service's file): they win over
   * UserKnownHostsFile.
   */
  knownHostsPaths?: KnownHostsPaths;
  readyTimeoutMs?: number;
  keepaliveIntervalMs?: number;
  keepaliveCountMax?: number;
  password?: string;
  prompter?: Prompter;
  /** Passphrases kept for key files (the app's secret store: ssh/passphrase.ts). */
  passphrases?: PassphraseStore;
  /** Environment for SSH_AUTH_SOCK; default process.env. */
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** Who asks a jump host's password (the CLI's terminal); none: a jump host gets keys and the agent only. */
  askJumpPassword?: (hop: HopSettings) => Promise<string | undefined>;
}

/** An agent `none` in the configuration, or `--no-agent`, turns the agent off; a socket path replaces SSH_AUTH_SOCK. */
function agentChoice(
  hop: HopSettings,
  useAgent: boolean | undefined,
  env: NodeJS.ProcessEnv,
): { useAgent?: boolean; env: NodeJS.ProcessEnv } {
  if (useAgent === false || hop.agent === false) return { useAgent: false, env };
  return { useAgent, env: typeof hop.agent === 'string' ? { ...env, SSH_AUTH_SOCK: hop.agent } : env };
}

/** Each algorithm family the command line gave wins; the others come from the configuration. */
function mergeAlgorithms(config: AlgorithmChoice, given: AlgorithmChoice | undefined): AlgorithmChoice | undefined {
  const out: AlgorithmChoice = { ...config };
  for (const [k, v] of Object.entries(given ?? {}) as Array<[keyof AlgorithmChoice, string[] | undefined]>)
    if (v?.length) out[k] = v;
  return Object.keys(out).length ? out : undefined;
}

/**
 * known_hosts: the caller's files, else SLUICE_KNOWN_HOSTS, else `UserKnownHostsFile` (new keys to its first file) and
 * the global file, else OpenSSH's default files.
 */
function knownHostsOf(h: HopSettings, x: ExplicitChoices, env: NodeJS.ProcessEnv, home: string): KnownHostsPaths {
  if (x.knownHostsPaths) return x.knownHostsPaths;
  const defaults = defaultKnownHostsPaths(env, home);
  if (env.SLUICE_KNOWN_HOSTS?.trim() || !h.knownHostsFiles?.length) return defaults;
  const global = defaultKnownHostsPaths(env, home).readPaths.slice(1);
  return { readPaths: [...h.knownHostsFiles, ...global], writePath: h.knownHostsFiles[0] };
}

/**
 * A jump host's options: its own configuration only (ssh(1): command-line options are the target's), `--no-agent`,
 * `--batch` and `--accept-new` aside.
 */
function jumpOptions(hop: HopSettings, x: ExplicitChoices, env: NodeJS.ProcessEnv, home: string): JumpHostOptions {
  const agent = agentChoice(hop, x.noAgent ? false : undefined, env);
  const j: JumpHostOptions = {
    host: hop.host,
    port: hop.port,
    label: hop.label,
    username: hop.user,
    auth: {
      configIdentityFiles: hop.identityFiles,
      identitiesOnly: hop.identitiesOnly,
      useAgent: agent.useAgent,
      env: agent.env,
      home,
      prompter: x.prompter,
    },
    algorithms: Object.keys(hop.algorithms).length ? hop.algorithms : undefined,
  };
  const ask = x.askJumpPassword;
  if (ask) j.askPassword = () => ask(hop);
  // As `ssh -J` runs a separate ssh for the hop: its own known_hosts and StrictHostKeyChecking (--accept-new wins).
  j.knownHostsPaths = knownHostsOf(hop, x, env, home);
  j.hostKeyMode = x.hostKeyMode ?? hop.hostKeyMode ?? x.defaultHostKeyMode;
  return j;
}

/**
 * The connection part of EngineOptions: the real host, port and user, identities and agent, algorithms, host-key mode
 * and known_hosts, timeouts and keepalives, and the jump hosts.
 */
export function connectionOptions(
  h: HostSettings,
  x: ExplicitChoices,
): Pick<
  EngineOptions,
  | 'host'
  | 'port'
  | 'username'
  | 'auth'
  | 'algorithms'
  | 'hostKeyMode'
  | 'knownHostsPaths'
  | 'readyTimeoutMs'
  | 'keepaliveIntervalMs'
  | 'keepaliveCountMax'
  | 'jump'
> {
  const env = x.env ?? process.env;
  const home = x.home ?? homeOf(env);
  const agent = agentChoice(h, x.noAgent ? false : x.useAgent, env);
  return {
    host: h.host,
    port: h.port,
    username: h.user,
    auth: {
      identityFiles: x.identityFiles,
      configIdentityFiles: h.identityFiles,
      identitiesOnly: h.identitiesOnly,
      useAgent: agent.useAgent,
      env: agent.env,
      home,
      prompter: x.prompter,
      passphrases: x.passphrases,
      password: x.password,
    },
    algorithms: mergeAlgorithms(h.algorithms, x.algorithms),
    hostKeyMode: x.hostKeyMode ?? h.hostKeyMode ?? x.defaultHostKeyMode,
    knownHostsPaths: knownHostsOf(h, x, env, home),
    readyTimeoutMs: x.readyTimeoutMs ?? h.connectTimeoutMs,
    keepaliveIntervalMs: x.keepaliveIntervalMs ?? h.keepaliveIntervalMs,
    keepaliveCountMax: x.keepaliveCountMax ?? h.keepaliveCountMax,
    jump: h.jump.length ? h.jump.map((hop) => jumpOptions(hop, x, env, home)) : undefined,
  };
}
