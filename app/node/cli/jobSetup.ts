/**
 * What a `get`/`put` (or a job of `sluice queue`) needs before it runs: its operands split into the server and paths,
 * and the engine options for its server (authentication, host-key handling, tuning, the first requests).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SluiceError, displayText, isSluiceError } from '../errors';
import { openEngine, type Engine, type EngineOptions } from '../engine/engine';
import type { Output } from './output';
import { loginAsks } from './loginPrompts';
import type { CliOptions } from './program';
import { askHostKey, isInteractive, terminalPrompter } from './prompt';
import { applyBookmark, storeLookup, type BookmarkLookup } from './bookmarks';
import {
  DEFAULT_SSH_PORT,
  formatRemote,
  parseRemoteUrl,
  remoteOperandHint,
  type RemoteSpec,
} from '../engine/remoteSpec';
import { connectionOptions } from '../engine/hostOptions';
import { traceTo } from '../ssh/packetTrace';
import { resolveHostSettings, type HostContext, type HostSettings } from '../engine/hostSettings';
import type { JobTarget } from '../stores/queueRows';
import { formatBytes, plural } from './units';
import { nativeUnavailableReason } from '../sys/native';

/** The USAGE error for an operand that should be an sftp:// URL, with a hint when one applies (remoteOperandHint). */
function notAUrl(what: string, operand: string): SluiceError {
  const hint = remoteOperandHint(operand, (p) => fs.existsSync(p));
  return new SluiceError('USAGE', `${what}, got ${JSON.stringify(operand)}${hint ? `: ${hint}` : ''}`);
}

/**
 * Splits operands into the remote target (one host) and plain paths. A URL whose host is a saved site's name means
 * that site (cli/bookmarks.ts: the site wins over DNS).
 * @param sources every operand but the last
 * @param bookmarks finds saved sites by name (default: the data folder's sluice.db)
 * @throws SluiceError USAGE when the URLs are missing, misplaced or on several servers, or name an ambiguous
 *   site; for an empty local operand (cp refuses one too: `cp: cannot stat ''`), rather than reading it as the
 *   current folder
 */
export function resolveOperands(
  direction: 'get' | 'put',
  sources: string[],
  dest: string,
  bookmarks: BookmarkLookup = storeLookup(),
): { spec: RemoteSpec; sources: string[]; dest: string } {
  if (direction === 'get' && dest === '') {
    throw new SluiceError('USAGE', 'get needs a local DEST: it is empty (use . for the current folder)');
  }
  if (direction === 'put' && sources.includes('')) {
    throw new SluiceError('USAGE', 'put needs a local SOURCE: one is empty');
  }
  const parse = (text: string): RemoteSpec | null => {
    const spec = parseRemoteUrl(text);
    return spec && applyBookmark(spec, text, bookmarks);
  };
  if (direction === 'put') {
    const spec = parse(dest);
    if (!spec) throw notAUrl('put needs an sftp:// URL as the destination', dest);
    for (const s of sources)
      if (parseRemoteUrl(s)) throw new SluiceError('USAGE', `put copies local files: ${s} is a URL (use get)`);
    return { spec, sources, dest: spec.path };
  }
  if (parseRemoteUrl(dest))
    throw new SluiceError('USAGE', 'get copies to a local path: the destination is a URL (use put)');
  let spec: RemoteSpec | null = null;
  const paths: string[] = [];
  for (const s of sources) {
    const p = parse(s);
    if (!p) throw notAUrl('get needs sftp:// URLs as sources', s);
    if (spec && (p.host !== spec.host || p.port !== spec.port || (p.user ?? '') !== (spec.user ?? ''))) {
      throw new SluiceError('USAGE', 'all sources of one get must be on the same server and user');
    }
    spec ??= p;
    paths.push(p.path);
  }
  return { spec: spec!, sources: paths, dest };
}

/**
 * The job's first requests, sent with the SFTP set-up (ConnectParams.prefetch): a get stats its sources and opens
 * a single one on every channel; a put stats its destination and, when a source file will be cut into segments,
 * runs the out-of-order probe in the destination's folder (its parent when DEST names a file or a new folder).
 */
function setupRequests(
  direction: 'get' | 'put',
  sources: string[],
  dest: string,
  o: CliOptions,
): EngineOptions['prefetch'] {
  if (direction === 'get') {
    const stat = sources.filter((p) => p !== '');
    return { stat, read: stat.length === 1 && sources.length === 1 && !o.recursive ? stat : [] };
  }
  if (dest === '') return {};
  const segmented = sources.some((src) => {
    try {
      const st = fs.statSync(src);
      return st.isFile() && st.size > o.segmentSize;
    } catch {
      return false;
    }
  });
  return { stat: [dest], probeDir: segmented ? (dest.endsWith('/') ? dest : path.posix.dirname(dest)) : undefined };
}

/**
 * The server behind a URL as ssh(1) would reach it: the OpenSSH configuration (`-F`, else ~/.ssh/config and
 * /etc/ssh/ssh_config) for its host, `-J` over its ProxyJump; the URL's user and port (other than 22) win.
 * @param note where `-v` notes go (skipped Match blocks, algorithms left out); none without `-v`
 */
export function hostSettingsFor(
  spec: RemoteSpec,
  o: Pick<CliOptions, 'jump' | 'sshConfig'>,
  note?: (m: string) => void,
  ctx: HostContext = {},
): HostSettings {
  return resolveHostSettings(
    {
      host: spec.host,
      port: spec.port === DEFAULT_SSH_PORT ? undefined : spec.port,
      user: spec.user,
      jump: o.jump,
      configFile: o.sshConfig,
    },
    { ...ctx, onNote: note },
  );
}

/**
 * The server a command reaches, as its resume journal and the queue key it: the login, host and port after the saved
 * site, ssh_config (HostName, Port, User) and the defaults (port 22, the local user name, as ssh(1)), so that
 * `sftp://alias/…`, `sftp://site/…` and `sftp://user@host:port/…` naming one server are one target. The host is
 * lower-cased (DNS names are case-insensitive); names are not looked up in DNS.
 * @param ctx where ssh_config is read and who the local user is (tests); default the process's own
 * @throws SluiceError USAGE as {@link hostSettingsFor}
 */
export function jobTarget(
  spec: RemoteSpec,
  o: Pick<CliOptions, 'jump' | 'sshConfig'>,
  ctx: HostContext = {},
): Extract<JobTarget, { host: string }> {
  const h = hostSettingsFor(spec, o, undefined, ctx);
  return { user: h.user ?? ctx.localUser ?? localUserName(), host: h.host.toLowerCase(), port: h.port };
}

/** The local login name, the default remote user (ssh/auth.ts does the same). */
function localUserName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return process.env.USER ?? process.env.USERNAME ?? process.env.LOGNAME ?? 'root';
  }
}

/**
 * The engine to open for a job: the server (through ssh_config), authentication, host-key handling and the tuning
 * options.
 */
export function engineOptions(
  job: { direction: 'get' | 'put'; spec: RemoteSpec; sources: string[]; dest: string },
  o: CliOptions,
  out: Pick<Output, 'info' | 'event'>,
): EngineOptions {
  const interactive = isInteractive() && !o.batch;
  const prompter = interactive ? terminalPrompter() : undefined;
  const h = hostSettingsFor(job.spec, o, o.verbose ? (m) => out.info(`sluice: ${m}`) : undefined);
  if (o.verbose && h.jump.length)
    out.info(
      `sluice: through ${h.jump.length === 1 ? 'jump host' : 'jump hosts'} ${h.jump.map((j) => j.label).join(', ')} to ${h.label}`,
    );
  if (o.verbose) out.info(`sluice: native addon ${nativeUnavailableReason() ?? 'loaded'}`);
  if (o.trace) traceTo(o.trace);
  return {
    ...connectionOptions(h, {
      identityFiles: o.identity,
      useAgent: o.agent ? undefined : false,
      noAgent: !o.agent,
      algorithms: { cipher: o.cipher, kex: o.kex, hmac: o.mac, serverHostKey: o.hostKeyAlgorithms },
      hostKeyMode: o.acceptNew ? 'accept-new' : undefined,
      defaultHostKeyMode: interactive ? 'ask' : 'strict',
      readyTimeoutMs: o.connectTimeout,
      keepaliveIntervalMs: o.keepalive,
      keepaliveCountMax: o.keepaliveCount,
      prompter,
      askJumpPassword: prompter && ((hop) => prompter.secret(`${hop.user ?? ''}@${hop.host}'s password (jump host): `)),
    }),
    hostKeyPrompt:
      prompter &&
      ((v) => {
        const hop = h.jump.find((j) => j.host === v.identity.host && j.port === v.identity.port);
        if (hop) out.info(`sluice: the host key of jump host ${hop.label}:`);
        return askHostKey(prompter, v.identity);
      }),
    ...loginAsks(
      { user: h.user ?? job.spec.user, host: h.host, port: h.port },
      prompter,
      process.stderr,
      h.passwordPrompts,
    ),
    connections: o.connections,
    channels: o.channels,
    requests: o.requests,
    segmentSize: o.segmentSize,
    channelWindow: o.window,
    rateLimit: o.limit,
    prefetch: setupRequests(job.direction, job.sources, job.dest, o),
    reserveExecChannel: o.verify === 'sha256',
    onWarning: (m) => out.info(`sluice: warning: ${m}`),
    onEvent: (e) => out.event(e),
  };
}

/**
 * Opens the engine for a job; a host that does not resolve (HOST_NOT_FOUND) is explained: the name came from a saved
 * site, or from HostName of an ssh_config alias (and which files were read), or the name is neither an alias nor a
 * site.
 * @throws what openEngine throws, HOST_NOT_FOUND with that explanation added
 */
export async function openJobEngine(
  options: EngineOptions,
  spec: RemoteSpec,
  o: Pick<CliOptions, 'jump' | 'sshConfig'>,
): Promise<Engine> {
  try {
    return await openEngine(options);
  } catch (e) {
    if (!isSluiceError(e, 'HOST_NOT_FOUND') || e.message.startsWith('jump host ')) throw e;
    throw new SluiceError('HOST_NOT_FOUND', `${e.message}${hostOrigin(spec, o)}`, { cause: e });
  }
}

/** Where the host name of a URL came from, for {@link openJobEngine}'s message. */
function hostOrigin(spec: RemoteSpec, o: Pick<CliOptions, 'jump' | 'sshConfig'>): string {
  if (spec.bookmark)
    return `; it is the host of the saved site ${displayText(spec.bookmark.name, 100)} (sluice sites list)`;
  let h: HostSettings;
  try {
    h = hostSettingsFor(spec, o);
  } catch {
    return '';
  }
  const files = h.configFiles.length ? h.configFiles.join(', ') : 'no ssh config file';
  if (h.host !== spec.host)
    return `; it is the HostName of the ssh config alias ${displayText(spec.host, 100)} (${files})`;
  return `; ${displayText(spec.host, 100)} is not a Host alias of the ssh config (${files}) nor a saved site: check the name`;
}

/** `-v`: what was negotiated (and the server's identification line) and how the pool is laid out. */
export function connectedLine(spec: RemoteSpec, engine: Engine): string {
  const n = engine.traits.negotiated;
  const pool = engine.pool;
  const site = spec.bookmark ? ` (saved site ${spec.bookmark.name})` : '';
  const server = engine.traits.serverVersion ? `; server ${engine.traits.serverVersion}` : '';
  return (
    `sluice: connected to ${formatRemote(spec)}${site}: kex ${n.kex}, host key ${n.serverHostKey}, cipher ${n.cipher}, mac ${n.mac}${server}; ` +
    `auth ${pool.authMethod}; pool planned: ${plural(pool.connections, 'connection')} × ${plural(pool.channels, 'channel')}, ` +
    `window ${formatBytes(pool.channelWindow)} per channel; ` +
    `up now: ${pool.up.map((c) => `connection ${c.connection} with ${plural(c.channels, 'channel')}`).join(', ')}` +
    (pool.rttMs !== undefined ? ` (RTT ${pool.rttMs.toFixed(1)} ms)` : '')
  );
}
