/**
 * A saved site's name as the host of an `sftp://` URL (issue #15): `sluice get sftp://NAME/path` connects to the
 * site's host and port as its user, with its key file, connections, channels, ciphers and speed limit, unless the
 * command says otherwise (a `user@` or `:port` in the URL, `-i`, `--cipher`, `--connections`, `--channels`,
 * `--limit`).
 *
 * The URL's path is read against the site's remote folder ({@link sitePath}): `sftp://NAME/x` is `x` in that folder,
 * `sftp://NAME//etc/x` the absolute `/etc/x`, `sftp://NAME/~/x` relative to the login folder.
 *
 * Precedence: a saved site wins over DNS (and over an ssh_config `Host` alias of the same name), because it is the
 * more specific, Sluice's own, bookmark. Names match case-insensitively (URL hosts are lower-cased); a name that is
 * not a valid host name (spaces, `/`) cannot be used in a URL. An IP address is never looked up.
 */
import fs from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import type { Site } from '../../common/model/site';
import { SluiceError } from '../errors';
import { resolveHome } from '../stores/dataDir';
import { SitesStore } from '../stores/sites';
import type { CliOptions } from './program';
import type { RemoteSpec } from '../engine/remoteSpec';

/** The saved sites named `name` (case-insensitively). */
export type BookmarkLookup = (name: string) => Site[];

/**
 * Looks names up in `<data folder>/sluice.db` (SLUICE_HOME, else the per-OS folder); the sites are read once, on the
 * first lookup. Without a database there is nothing to find (none is created).
 */
export function storeLookup(home: () => string = () => resolveHome()): BookmarkLookup {
  let sites: Site[] | undefined;
  return (name) => {
    if (sites === undefined) {
      const dir = home();
      sites = [];
      if (fs.existsSync(path.join(dir, 'sluice.db'))) {
        const store = new SitesStore(dir);
        try {
          sites = store.list().sites;
        } finally {
          store.close();
        }
      }
    }
    const wanted = name.toLowerCase();
    return sites.filter((s) => s.name.toLowerCase() === wanted);
  };
}

/** Whether the URL as typed names a port (`sftp://h:2222/…`, `sftp://[::1]:22`), which then wins over the site's. */
function urlGivesPort(text: string): boolean {
  const authority = text.replace(/^sftp:\/\//i, '').split('/', 1)[0];
  const hostport = authority.slice(authority.lastIndexOf('@') + 1);
  return /^(?:\[[^\]]*\]|[^:[\]]*):\d+$/.test(hostport);
}

/**
 * The spec a URL means when its host is a saved site's name: the site's host, port and user (the URL's own `user@` and
 * `:port` kept), with the site attached as `bookmark`.
 * @param text the URL as typed
 * @returns `spec` unchanged when no saved site has that name
 * @throws SluiceError USAGE when several saved sites have that name
 */
export function applyBookmark(spec: RemoteSpec, text: string, lookup: BookmarkLookup): RemoteSpec {
  if (isIP(spec.host) !== 0) return spec;
  const found = lookup(spec.host);
  if (found.length === 0) return spec;
  if (found.length > 1) {
    const where = found.map((s) => `"${s.folder ? `${s.folder}/` : ''}${s.name}"`).join(', ');
    throw new SluiceError(
      'USAGE',
      `${found.length} saved sites are named ${spec.host} (${where}): rename one (sluice sites list shows them)`,
    );
  }
  const site = found[0];
  return {
    ...spec,
    host: site.host,
    port: urlGivesPort(text) ? spec.port : site.port,
    user: spec.user ?? site.user,
    path: sitePath(spec.path, site.remoteDir),
    bookmark: site,
  };
}

/**
 * A path of a URL whose host is a saved site, read against the site's remote folder as rclone reads `remote:path`
 * and a browser a page's relative links: nothing (`sftp://site`) is the folder itself, `/x` is `x` inside it, `//x`
 * is the absolute `/x`, `/~/x` stays relative to the login folder. A site without a folder keeps the URL's own reading
 * (`/x` absolute, nothing the login folder).
 * @param urlPath the URL's path as parseRemoteUrl decoded it (`''`, `'/x'`, `'//x'`, `'~/x'`)
 * @param remoteDir the site's remote folder (Site.remoteDir), if any
 */
export function sitePath(urlPath: string, remoteDir: string | undefined): string {
  if (urlPath.startsWith('~')) return urlPath;
  if (urlPath.startsWith('//')) return urlPath.replace(/^\/+/, '/');
  const root = remoteDir?.trim();
  if (!root) return urlPath;
  if (urlPath === '') return root;
  return `${root.replace(/\/+$/, '')}${urlPath}`;
}

/**
 * The options of a command on a saved site: what the command leaves unset taken from the site (its key file when it
 * authenticates with one, algorithm lists, connections, channels, speed limit).
 */
export function withBookmark(o: CliOptions, site: Site | undefined): CliOptions {
  if (!site) return o;
  const key = site.authMethod === 'key' && site.keyPath ? [site.keyPath] : undefined;
  return {
    ...o,
    identity: o.identity ?? key,
    cipher: o.cipher ?? (site.ciphers?.length ? site.ciphers : undefined),
    kex: o.kex ?? (site.kex?.length ? site.kex : undefined),
    mac: o.mac ?? (site.macs?.length ? site.macs : undefined),
    hostKeyAlgorithms: o.hostKeyAlgorithms ?? (site.hostKeyAlgorithms?.length ? site.hostKeyAlgorithms : undefined),
    connections: o.connections ?? site.connections,
    channels: o.channels ?? site.channels,
    limit: o.limit ?? site.speedLimit,
  };
}
