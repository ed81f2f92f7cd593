/**
 * The app's quick-connect bar (issue #23 item 19): `user@host:port`, an `sftp://` URL or a `~/.ssh/config` alias read
 * the way the CLI reads its operands (cli/remoteSpec.ts parseRemoteUrl and scpStyleUrl) and resolved through the
 * OpenSSH configuration (engine/hostSettings.ts), as an unsaved site: the sessions find it by id for this run only
 * (SitesStore.addTransient), never listed nor written; "Save as site" saves a copy through `sites.save`.
 */
import * as os from 'node:os';
import { randomUUID } from 'node:crypto';
import type { QuickSite } from '../../common/ipc/contract';
import { SluiceError, displayText } from '../errors';
import { resolveHostSettings } from '../engine/hostSettings';
import { homeOf } from '../sys/platformPaths';
import { DEFAULT_SSH_PORT, parseRemoteUrl, scpStyleUrl, type RemoteSpec } from '../engine/remoteSpec';

/** Where the target is resolved: the environment (HOME, USER) and the ssh_config file (`-F`; `none`: none). */
export interface QuickContext {
  env: NodeJS.ProcessEnv;
  sshConfig?: string;
}

/** The id prefix of quick-connect sites (never a saved site's: those are UUIDs). */
export const QUICK_SITE_PREFIX = 'quick:';

/** Why a site id names nothing: a quick connection's ends when the app quits (its queued jobs cannot reach it). */
export function unknownSite(siteId: string): string {
  return siteId.startsWith(QUICK_SITE_PREFIX)
    ? 'This quick connection ended when Sluice quit: connect again (or save it as a site) and queue the transfer again'
    : `No site with id ${siteId}`;
}

/**
 * Reads what was typed into the quick-connect bar as the CLI reads a URL operand: `sftp://[user@]host[:port][/path]`;
 * `[user@]host[:port]` (an `sftp://` URL without its scheme); scp's `[user@]host:path`; a bare name (perhaps an alias).
 * @throws SluiceError USAGE naming what is wrong (parseRemoteUrl's reasons: bad port, IPv6 without brackets, …)
 */
export function parseQuickTarget(text: string): RemoteSpec {
  const t = text.trim();
  if (t === '') throw new SluiceError('USAGE', 'Type user@host:port, an sftp:// URL or a ~/.ssh/config alias');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(t) && !/^sftp:\/\//i.test(t)) {
    throw new SluiceError(
      'USAGE',
      `Only sftp:// URLs are supported, not ${displayText(t.slice(0, t.indexOf(':')), 20)}://`,
    );
  }
  // `host:22` is a port, `host:dir/x` or `host:/srv` a path (scp's reading); `user:pw@host` is a URL's refused
  // password.
  const scp = /^sftp:\/\//i.test(t) || /^[^/]*:\d*$/.test(t) || /^[^@/]*:[^@/]*@/.test(t) ? undefined : scpStyleUrl(t);
  const url = /^sftp:\/\//i.test(t) ? t : (scp ?? `sftp://${t}`);
  const spec = parseRemoteUrl(url);
  if (!spec) throw new SluiceError('USAGE', `Not a server: ${displayText(t, 200)}`);
  return spec;
}

/**
 * The unsaved site a quick-connect target names: its host as typed (an alias keeps its ssh_config identities, jump
 * hosts and algorithms at connect time), the port and user given, else the configuration's (User, Port), else 22 and
 * the local user; the URL's path as the remote folder; agent and default keys first, then the password when the
 * server asks for one (as ssh(1) does).
 * @throws SluiceError USAGE for an unreadable target (parseQuickTarget), or a configuration error naming its file
 */
export function quickSite(text: string, c: QuickContext, now: number): QuickSite {
  const spec = parseQuickTarget(text);
  const home = homeOf(c.env);
  const h = resolveHostSettings(
    {
      host: spec.host,
      port: spec.port === DEFAULT_SSH_PORT ? undefined : spec.port,
      user: spec.user,
      configFile: c.sshConfig,
    },
    { home, env: c.env },
  );
  const user = spec.user ?? h.user ?? c.env.USER ?? c.env.USERNAME ?? localUser();
  const label = `${user}@${spec.host}${h.port === DEFAULT_SSH_PORT ? '' : `:${h.port}`}`;
  return {
    id: `${QUICK_SITE_PREFIX}${randomUUID()}`,
    name: label,
    folder: '',
    host: spec.host,
    port: h.port,
    user,
    authMethod: 'agent',
    ...(spec.path ? { remoteDir: spec.path } : {}),
    createdAt: now,
    updatedAt: now,
    hasPassword: false,
    quick: true,
    ...(h.host !== spec.host ? { resolvedHost: h.host } : {}),
  };
}

function localUser(): string {
  try {
    return os.userInfo().username;
  } catch {
    return 'root';
  }
}
