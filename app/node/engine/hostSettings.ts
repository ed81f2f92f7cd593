/**
 * What the OpenSSH client configuration (ssh/sshConfig.ts) says about a connection, in Sluice's terms: the real host,
 * port and user behind an alias, identities and agent, algorithms (ssh2 names), known_hosts files, host-key checking,
 * timeouts and keepalives, and the jump hosts (ProxyJump, `-J`, a site's jump host), each resolved through the
 * configuration too. The CLI (cli/jobSetup.ts) and the service (service/sessions.ts) call this before openEngine;
 * what the command line or the site gives explicitly wins, as in ssh(1).
 */
import os from 'node:os';
import { MAX_JUMP_HOPS, hostPortLabel, isJumpNone, parseJumpHosts } from '../../common/jumpHosts';
import { SluiceError, displayText } from '../errors';
import type { AlgorithmChoice, AlgorithmFamily } from '../ssh/algorithms';
import { supportedAlgorithms } from '../ssh/ssh2Lists';
import type { HostKeyMode } from '../ssh/hostKeys';
import {
  computeHostConfig,
  configFilesFor,
  matchPattern,
  systemSshConfig,
  type ConfigFile,
  type ConfigFs,
  type ConfigValue,
  type SshConfigResult,
} from '../ssh/sshConfig';
import { expandPath, type TokenValues } from '../ssh/sshConfigTokens';
import { homeOf, nullDevice } from '../sys/platformPaths';

/** The connection as asked for: the host (perhaps an alias) and what was given explicitly. */
export interface HostRequest {
  host: string;
  /** An explicit port (URL, site); wins over `Port`. */
  port?: number;
  /** An explicit user (URL, site); wins over `User`. */
  user?: string;
  /** `-J` or a site's jump host: a ProxyJump list, `none` for none; wins over the configuration's ProxyJump. */
  jump?: string;
  /** `-F FILE`: read only this file (`none`: no file) instead of ~/.ssh/config and /etc/ssh/ssh_config. */
  configFile?: string;
}

/** Where the configuration is read and what its tokens stand for; defaults from `os` and `process.env`. */
export interface HostContext {
  home?: string;
  env?: NodeJS.ProcessEnv;
  localUser?: string;
  localHost?: string;
  uid?: number;
  /** The system file (default /etc/ssh/ssh_config, on Windows %ProgramData%\ssh\ssh_config). */
  systemFile?: string;
  /** Whose local path rules apply (home, `~\`, the system file, `none`); default process.platform. */
  platform?: NodeJS.Platform;
  /** How the configuration files are read; default node:fs. */
  fs?: ConfigFs;
  /** Notes for `-v`: algorithm names left out, skipped `Match` blocks, `StrictHostKeyChecking no`. */
  onNote?: (message: string) => void;
}

/** How to reach and log in to one server: the target, or one jump host. */
export interface HopSettings {
  /** How messages name it: `host:port`, or `alias (host:port)` when HostName changed the name. */
  label: string;
  host: string;
  port: number;
  /** The remote user: given, else `User`; undefined: the local user name. */
  user?: string;
  /** `IdentityFile` values, expanded (tried after `-i`; missing files are skipped). */
  identityFiles: string[];
  /** `IdentitiesOnly yes`: of the agent's keys only those of the identity files are offered. */
  identitiesOnly: boolean;
  /** `IdentityAgent`: a socket path, or false for `none`; undefined: SSH_AUTH_SOCK. */
  agent?: string | false;
  /** `Ciphers`, `KexAlgorithms`, `MACs`, `HostKeyAlgorithms`, with the names ssh2 lacks left out. */
  algorithms: AlgorithmChoice;
  /** `UserKnownHostsFile`, expanded: read in order, new keys appended to the first (a jump host's own, as ssh -J). */
  knownHostsFiles?: string[];
  /** `StrictHostKeyChecking`: yes → strict, accept-new and no → accept-new, ask → ask. */
  hostKeyMode?: HostKeyMode;
}

/** The target's settings, and its jump hosts. */
export interface HostSettings extends HopSettings {
  /** `ConnectTimeout`, ms. */
  connectTimeoutMs?: number;
  /** `ServerAliveInterval`, ms (0: off). */
  keepaliveIntervalMs?: number;
  /** `ServerAliveCountMax` (at least 1). */
  keepaliveCountMax?: number;
  /** `NumberOfPasswordPrompts`: password questions per login (ssh(1)'s default is 3). */
  passwordPrompts?: number;
  /** The jump hosts in the order they are visited. */
  jump: HopSettings[];
  /** The configuration files that were read. */
  configFiles: string[];
}

type Context = Required<Omit<HostContext, 'onNote' | 'fs'>> & Pick<HostContext, 'onNote' | 'fs'>;

function fullContext(ctx: HostContext): Context {
  const env = ctx.env ?? process.env;
  const platform = ctx.platform ?? process.platform;
  let localUser = ctx.localUser;
  if (localUser === undefined) {
    try {
      localUser = os.userInfo().username;
    } catch {
      localUser = env.USER ?? env.LOGNAME ?? 'root';
    }
  }
  return {
    ...ctx,
    env,
    localUser,
    home: ctx.home ?? homeOf(env, platform),
    localHost: ctx.localHost ?? os.hostname(),
    platform,
    systemFile: ctx.systemFile ?? systemSshConfig(env, platform),
    uid: ctx.uid ?? (typeof process.getuid === 'function' ? process.getuid() : 0),
  };
}

function bad(v: ConfigValue, keyword: string, why: string): SluiceError {
  return new SluiceError(
    'USAGE',
    `ssh config ${displayText(v.file)}: ${keyword} ${displayText(v.args.join(' '), 100)}: ${why}`,
  );
}

/** A whole number from `min` to `max`. @throws SluiceError USAGE otherwise */
function intOf(v: ConfigValue, keyword: string, min: number, max: number): number {
  const n = Number(v.args[0]);
  if (!/^\d+$/.test(v.args[0]) || n < min || n > max)
    throw bad(v, keyword, `expected a whole number from ${min} to ${max}`);
  return n;
}

function flagOf(v: ConfigValue, keyword: string): boolean {
  const t = v.args[0].toLowerCase();
  if (t === 'yes' || t === 'true') return true;
  if (t === 'no' || t === 'false') return false;
  throw bad(v, keyword, 'expected yes or no');
}

const ALGORITHM_KEYWORDS: Array<[string, string, AlgorithmFamily]> = [
  ['ciphers', 'Ciphers', 'cipher'],
  ['kexalgorithms', 'KexAlgorithms', 'kex'],
  ['macs', 'MACs', 'hmac'],
  ['hostkeyalgorithms', 'HostKeyAlgorithms', 'serverHostKey'],
];

/**
 * One algorithm keyword as a choice for ssh/algorithms.ts: the `+`, `-`, `^` prefix kept, wildcards (`-*cbc`) expanded
 * against what ssh2 supports, names it lacks left out with a note (OpenSSH knows more than ssh2).
 * @throws SluiceError USAGE when a plain list keeps no name
 */
function algorithmChoice(
  v: ConfigValue,
  keyword: string,
  supported: string[],
  note: (m: string) => void,
): string[] | undefined {
  const text = v.args.join(',');
  const mode = /^[+\-^]/.test(text) ? text[0] : '';
  const kept: string[] = [];
  const missing: string[] = [];
  for (const name of (mode ? text.slice(1) : text)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const found = /[*?]/.test(name)
      ? supported.filter((s) => matchPattern(s, name))
      : supported.filter((s) => s === name);
    if (found.length) kept.push(...found);
    else missing.push(name);
  }
  if (missing.length && mode !== '-')
    note(`ssh config ${v.file}: ${keyword}: ${missing.join(', ')} not supported by Sluice (ssh2), left out`);
  if (kept.length) return [`${mode}${[...new Set(kept)].join(',')}`];
  if (mode === '') throw bad(v, keyword, `names no algorithm Sluice supports (supported: ${supported.join(', ')})`);
  return undefined;
}

function algorithmsOf(config: SshConfigResult, note: (m: string) => void): AlgorithmChoice {
  if (!ALGORITHM_KEYWORDS.some(([key]) => config.values.has(key))) return {};
  const supported = supportedAlgorithms();
  const out: AlgorithmChoice = {};
  for (const [key, keyword, family] of ALGORITHM_KEYWORDS) {
    const v = config.values.get(key);
    const choice = v && algorithmChoice(v, keyword, supported[family], note);
    if (choice) out[family] = choice;
  }
  return out;
}

/** `StrictHostKeyChecking`: `no` is read as accept-new (a changed key is never accepted, see docs/cli.md). */
function hostKeyModeOf(v: ConfigValue, note: (m: string) => void): HostKeyMode {
  const t = v.args[0].toLowerCase();
  if (t === 'yes' || t === 'true') return 'strict';
  if (t === 'accept-new') return 'accept-new';
  if (t === 'ask') return 'ask';
  if (t === 'no' || t === 'off' || t === 'false') {
    note(
      `ssh config ${v.file}: StrictHostKeyChecking ${t} is read as accept-new: unknown keys are saved, changed keys still refused`,
    );
    return 'accept-new';
  }
  throw bad(v, 'StrictHostKeyChecking', 'expected yes, accept-new, no or ask');
}

/** One server (target or hop) through the configuration: its settings and the evaluated values. */
function resolveOne(
  name: string,
  user: string | undefined,
  port: number | undefined,
  files: ConfigFile[],
  c: Context,
  proxyAllowed: boolean,
): { hop: HopSettings; config: SshConfigResult } {
  const note = c.onNote ?? (() => undefined);
  const config = computeHostConfig({
    host: name,
    user,
    localUser: c.localUser,
    home: c.home,
    files,
    onNote: c.onNote,
    platform: c.platform,
    fs: c.fs,
  });
  const v = (k: string) => config.values.get(k);
  const proxyCommand = v('proxycommand');
  if (!proxyAllowed && proxyCommand && !isJumpNone(proxyCommand.args.join(' '))) {
    throw new SluiceError(
      'USAGE',
      `ssh config ${displayText(proxyCommand.file)}: ProxyCommand (for ${displayText(name)}) is not supported; ` +
        'use ProxyJump, or -J to name the jump hosts (-J none: connect directly)',
    );
  }
  const hostName = v('hostname')?.args[0].replace(/%(%|h)/g, (_, t: string) => (t === 'h' ? name : '%')) ?? name;
  const realPort = port ?? (v('port') ? intOf(v('port')!, 'Port', 1, 65535) : 22);
  const realUser = user ?? v('user')?.args[0];
  const tokens: TokenValues = {
    home: c.home,
    localUser: c.localUser,
    localHost: c.localHost,
    uid: c.uid,
    host: hostName,
    originalHost: name,
    port: realPort,
    remoteUser: realUser ?? c.localUser,
    jump: v('proxyjump')?.args[0] ?? '',
  };
  const agentValue = v('identityagent');
  let agent: string | false | undefined;
  if (agentValue) {
    const a = agentValue.args[0];
    if (a.toLowerCase() === 'none') agent = false;
    else if (a !== 'SSH_AUTH_SOCK') {
      const env = a.startsWith('$') ? c.env[a.slice(1)] : undefined;
      const where = `ssh config ${agentValue.file}: IdentityAgent`;
      agent = a.startsWith('$') ? env || false : expandPath(a, tokens, c.env, where, c.platform);
    }
  }
  const hop: HopSettings = {
    label: hostName === name ? hostPortLabel(hostName, realPort) : `${name} (${hostPortLabel(hostName, realPort)})`,
    host: hostName,
    port: realPort,
    identityFiles: config.identityFiles.map((f) =>
      expandPath(f.args[0], tokens, c.env, `ssh config ${f.file}: IdentityFile`, c.platform),
    ),
    identitiesOnly: v('identitiesonly') ? flagOf(v('identitiesonly')!, 'IdentitiesOnly') : false,
    algorithms: algorithmsOf(config, note),
  };
  if (realUser !== undefined) hop.user = realUser;
  if (agent !== undefined) hop.agent = agent;
  Object.assign(hop, trustOf(config, tokens, c, note));
  return { hop, config };
}

/**
 * `UserKnownHostsFile` (`none`: the null device, nothing kept: /dev/null, `\\.\nul` on Windows) and
 * `StrictHostKeyChecking` of one server, where set.
 */
function trustOf(
  config: SshConfigResult,
  tokens: TokenValues,
  c: Context,
  note: (m: string) => void,
): Pick<HopSettings, 'knownHostsFiles' | 'hostKeyMode'> {
  const out: Pick<HopSettings, 'knownHostsFiles' | 'hostKeyMode'> = {};
  const known = config.values.get('userknownhostsfile');
  if (known) {
    const where = `ssh config ${known.file}: UserKnownHostsFile`;
    out.knownHostsFiles = known.args.map((f) =>
      f.toLowerCase() === 'none' ? nullDevice(c.platform) : expandPath(f, tokens, c.env, where, c.platform),
    );
  }
  const strict = config.values.get('stricthostkeychecking');
  if (strict) out.hostKeyMode = hostKeyModeOf(strict, note);
  return out;
}

/**
 * A ProxyJump list resolved hop by hop. As ssh(1) runs `ssh -J <earlier hops> -W target <last hop>`, the first hop's
 * own ProxyJump applies (recursively), the later hops' do not.
 * @throws SluiceError USAGE for a bad list or a chain that loops (more than {@link MAX_JUMP_HOPS} hops)
 */
function jumpChain(text: string, where: string, files: ConfigFile[], c: Context, depth: number): HopSettings[] {
  const parsed = parseJumpHosts(text);
  if (!parsed.ok) throw new SluiceError('USAGE', `${where}: ${parsed.error}`);
  const out: HopSettings[] = [];
  parsed.hops.forEach((h, i) => {
    const { hop, config } = resolveOne(h.host, h.user, h.port, files, c, false);
    const own = config.values.get('proxyjump');
    if (i === 0 && own && !isJumpNone(own.args[0])) {
      if (depth >= MAX_JUMP_HOPS)
        throw new SluiceError(
          'USAGE',
          `ProxyJump of jump host ${displayText(h.host)} (${own.file}): more than ${MAX_JUMP_HOPS} levels; does it loop?`,
        );
      out.push(...jumpChain(own.args[0], `ssh config ${own.file}: ProxyJump`, files, c, depth + 1));
    }
    out.push(hop);
  });
  if (out.length > MAX_JUMP_HOPS)
    throw new SluiceError('USAGE', `${where}: more than ${MAX_JUMP_HOPS} jump hosts in all`);
  return out;
}

/**
 * Resolves a connection through the OpenSSH configuration, as ssh(1) does before connecting.
 * @throws SluiceError USAGE for an unreadable `-F` file, a value ssh(1) would refuse, an unsupported token,
 *   ProxyCommand (not supported), a bad jump host list
 */
export function resolveHostSettings(req: HostRequest, ctx: HostContext = {}): HostSettings {
  const c = fullContext(ctx);
  const files = configFilesFor(req.configFile, c.home, c.systemFile, c.platform);
  const { hop, config } = resolveOne(req.host, req.user, req.port, files, c, req.jump !== undefined);
  const v = (k: string) => config.values.get(k);
  const jumpText = req.jump ?? v('proxyjump')?.args[0];
  const settings: HostSettings = {
    ...hop,
    jump:
      jumpText === undefined || isJumpNone(jumpText)
        ? []
        : jumpChain(
            jumpText,
            req.jump !== undefined ? 'jump hosts' : `ssh config ${v('proxyjump')!.file}: ProxyJump`,
            files,
            c,
            1,
          ),
    configFiles: config.files,
  };
  const timeout = v('connecttimeout') && intOf(v('connecttimeout')!, 'ConnectTimeout', 0, 86_400);
  if (timeout) settings.connectTimeoutMs = timeout * 1000;
  if (v('serveraliveinterval'))
    settings.keepaliveIntervalMs = intOf(v('serveraliveinterval')!, 'ServerAliveInterval', 0, 86_400) * 1000;
  if (v('numberofpasswordprompts'))
    settings.passwordPrompts = intOf(v('numberofpasswordprompts')!, 'NumberOfPasswordPrompts', 0, 1000);
  if (v('serveralivecountmax'))
    settings.keepaliveCountMax = Math.max(1, intOf(v('serveralivecountmax')!, 'ServerAliveCountMax', 0, 1000));
  return settings;
}
