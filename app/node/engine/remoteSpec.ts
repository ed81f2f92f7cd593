/**
 * `sftp://` URLs as CLI operands: `sftp://[user@]host[:port][/path]`, following RFC 3986 (syntax,
 * percent-encoding, IPv6 literals in brackets) and draft-ietf-secsh-scp-sftp-ssh-uri-04 (default port 22,
 * `/~/` for the login directory, no password in the URL), the same reading curl gives them.
 */
import { isIP } from 'node:net';
import type { Site } from '../../common/model/site';
import { SluiceError, displayText } from '../errors';

/** Where a remote operand points. */
export interface RemoteSpec {
  /** Login name, percent-decoded; absent means the default user. */
  user?: string;
  /** Host name (lower-cased) or IP address; IPv6 without brackets. */
  host: string;
  /** TCP port, default 22. */
  port: number;
  /**
   * Remote path, percent-decoded: `''` is the login directory (`sftp://h`), `'/abs'` is absolute
   * (`sftp://h/abs`, and `sftp://h/` is `'/'`), `'~/x'` or `'~'` is relative to the login directory
   * (`sftp://h/~/x`), kept as given for the engine to resolve.
   */
  path: string;
  /** The saved site whose name was the URL's host (cli/bookmarks.ts); host, port and user are then the site's. */
  bookmark?: Site;
}

export const DEFAULT_SSH_PORT = 22;

const SCHEME = /^sftp:\/\//i;

function usage(text: string, message: string): SluiceError {
  return new SluiceError('USAGE', `Invalid sftp:// URL "${displayText(text, 200)}": ${message}`);
}

function decode(part: string, text: string, what: string): string {
  if (/%(?![0-9a-f]{2})/i.test(part)) throw usage(text, `bad percent-encoding in the ${what}`);
  let out: string;
  try {
    out = decodeURIComponent(part);
  } catch {
    throw usage(text, `the ${what} is not valid percent-encoded UTF-8`);
  }
  if (out.includes('\u0000')) throw usage(text, `the ${what} contains a NUL character`);
  return out;
}

/**
 * Why a host part holding two or more `:` is refused: an IPv6 address without brackets, or a port followed by
 * `:` the scp way (`sftp://host:2222:/path`), with the URL that was probably meant.
 */
function extraColonReason(hostport: string, userinfo: string | undefined, rawPath: string): string {
  if (isIP(hostport.replace(/%.*$/, '')) === 6)
    return 'an IPv6 address must be in brackets, e.g. sftp://[::1]:2222/path';
  const m = /^([^:]+):(\d*):([^:]*)$/.exec(hostport);
  if (!m) return 'more than one ":" after the host (an IPv6 address goes in brackets, e.g. sftp://[::1]:2222/path)';
  const [, host, port, after] = m;
  // scp reads "host:path" relative to the login folder: "sftp://h:22:dir/f" meant sftp://h:22/~/dir/f.
  const rest = after + rawPath;
  const meantPath = after === '' ? rawPath : rest.startsWith('~') ? `/${rest}` : `/~/${rest}`;
  const meant = `sftp://${userinfo === undefined ? '' : `${userinfo}@`}${host}${port ? `:${port}` : ''}${meantPath}`;
  return `port followed by ':' — did you mean ${displayText(meant, 200)}?`;
}

/**
 * Parses an `sftp://` URL.
 * @returns `null` when `text` is not an sftp:// URL (e.g. a local path), else the decoded {@link RemoteSpec}
 * @throws SluiceError('USAGE') for a malformed sftp:// URL, naming it: empty host, bad port (1–65535), a port followed
 *   by ':' (`sftp://host:2222:/path`, with the URL probably meant), an IPv6 address without brackets, bad
 *   percent-encoding, a raw `?`/`#` (query/fragment; percent-encode them as %3F/%23 in names), `;` connection
 *   parameters, or a password (`user:pw@`, refused so it never lands in shell history or process lists).
 */
export function parseRemoteUrl(text: string): RemoteSpec | null {
  if (typeof text !== 'string' || !SCHEME.test(text)) return null;
  const rest = text.replace(SCHEME, '');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(rest)) throw usage(text, 'it contains a control character');
  if (/[?#]/.test(rest)) {
    throw usage(text, 'it contains "?" or "#"; percent-encode them in file names (%3F, %23)');
  }
  const slash = rest.indexOf('/');
  const authority = slash === -1 ? rest : rest.slice(0, slash);
  const rawPath = slash === -1 ? '' : rest.slice(slash);

  const at = authority.lastIndexOf('@');
  const userinfo = at === -1 ? undefined : authority.slice(0, at);
  const hostport = at === -1 ? authority : authority.slice(at + 1);

  let user: string | undefined;
  if (userinfo !== undefined) {
    if (userinfo.includes(':')) {
      throw new SluiceError(
        'USAGE',
        `A password in the URL is refused (it would show in shell history and process lists): ` +
          `remove ":…" from sftp://${displayText(userinfo.slice(0, userinfo.indexOf(':')), 100)}@…, then set SLUICE_PASSWORD or answer the prompt`,
      );
    }
    if (userinfo.includes(';')) throw usage(text, 'connection parameters (";…") in the user part are not supported');
    if (userinfo.includes('@')) throw usage(text, 'the user name contains a raw "@"; percent-encode it as %40');
    user = decode(userinfo, text, 'user name');
    if (user === '') throw usage(text, 'the user name before "@" is empty');
  }

  let host: string;
  let portText: string | undefined;
  if (hostport.startsWith('[')) {
    const close = hostport.indexOf(']');
    if (close === -1) throw usage(text, 'the IPv6 address has no closing "]"');
    const literal = decode(hostport.slice(1, close), text, 'host');
    if (isIP(literal.replace(/%.*$/, '')) !== 6)
      throw usage(text, `"${displayText(literal, 60)}" is not an IPv6 address`);
    host = literal.toLowerCase();
    const after = hostport.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) throw usage(text, 'unexpected text after the IPv6 address');
    portText = after === '' ? undefined : after.slice(1);
  } else {
    const colon = hostport.indexOf(':');
    if (colon !== -1 && hostport.indexOf(':', colon + 1) !== -1)
      throw usage(text, extraColonReason(hostport, userinfo, rawPath));
    host = decode(colon === -1 ? hostport : hostport.slice(0, colon), text, 'host').toLowerCase();
    portText = colon === -1 ? undefined : hostport.slice(colon + 1);
    if (host === '') throw usage(text, 'the host is empty');
    if (!/^[\p{L}\p{N}._-]+$/u.test(host) || host.startsWith('-') || host.startsWith('.')) {
      throw usage(text, `"${displayText(host, 60)}" is not a valid host name`);
    }
  }

  let port = DEFAULT_SSH_PORT;
  if (portText !== undefined && portText !== '') {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
      throw usage(text, `"${displayText(portText, 20)}" is not a port number (1–65535)`);
    }
    port = Number(portText);
  }

  let remotePath = '';
  if (rawPath !== '') {
    remotePath = rawPath
      .split('/')
      .map((seg) => decode(seg, text, 'path'))
      .join('/');
    // `/~` and `/~/x` (and `/~user/x`) are relative to the login directory: drop the slash before `~`.
    if (/^\/~([^/]*)(\/|$)/.test(rawPath)) remotePath = remotePath.slice(1);
  }

  return user === undefined ? { host, port, path: remotePath } : { user, host, port, path: remotePath };
}

/** Percent-encodes what {@link parseRemoteUrl} would otherwise misread, plus anything unprintable. */
function encodePart(text: string, extra: RegExp): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    if (
      cp <= 0x20 ||
      cp === 0x7f ||
      (cp >= 0x80 && cp <= 0x9f) ||
      ch === '%' ||
      ch === '?' ||
      ch === '#' ||
      extra.test(ch)
    ) {
      out += Array.from(Buffer.from(ch, 'utf8'), (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
    } else {
      out += ch;
    }
  }
  return out;
}

/**
 * Formats a {@link RemoteSpec} as an `sftp://` URL for messages and logs. There is no password to leak
 * (RemoteSpec has none). The default port is left out; unsafe characters are percent-encoded, so the
 * output is printable and parses back to the same spec.
 */
export function formatRemote(spec: RemoteSpec): string {
  const user = spec.user !== undefined ? `${encodePart(spec.user, /[@:/;[\]]/)}@` : '';
  const host = spec.host.includes(':') ? `[${spec.host.replace(/%/g, '%25')}]` : encodePart(spec.host, /[@:/[\]]/);
  const port = spec.port === DEFAULT_SSH_PORT ? '' : `:${spec.port}`;
  let encodedPath = '';
  if (spec.path !== '') {
    const absolute = spec.path.startsWith('/');
    // '~' and '~/x' are spelled '/~…'; a bare relative 'x' is relative to the login directory too: '/~/x'.
    const urlPath = absolute ? spec.path : spec.path.startsWith('~') ? `/${spec.path}` : `/~/${spec.path}`;
    const segments = urlPath.split('/').map((seg) => encodePart(seg, /[[\]]/));
    // An absolute path whose first directory is literally named "~…" must not read back as home-relative.
    if (absolute && segments[1]?.startsWith('~')) segments[1] = `%7E${segments[1].slice(1)}`;
    encodedPath = segments.join('/');
  }
  return `sftp://${user}${host}${port}${encodedPath}`;
}

/**
 * The `sftp://` URL an scp-style operand (`[user@]host:path`) means: `user@host:/abs` → `sftp://user@host/abs`,
 * `host:rel` → `sftp://host/~/rel`, `host:` → `sftp://host`.
 * @returns undefined when `text` does not have that shape (a path with `/` before the first `:`, a Windows drive
 *   `C:\…`, a host that is not a host name or bracketed IPv6 address)
 */
export function scpStyleUrl(text: string): string | undefined {
  if (/^[a-z]:[\\/]/i.test(text)) return undefined;
  const m = /^(?:([^@/:]+)@)?(\[[^\]/]+\]|[^@/:[\]]+):(.*)$/s.exec(text);
  if (!m || m[3].startsWith('//')) return undefined;
  const [, user, rawHost, rawPath] = m;
  const bracketed = rawHost.startsWith('[');
  const host = bracketed ? rawHost.slice(1, -1) : rawHost;
  if (bracketed ? isIP(host.replace(/%.*$/, '')) !== 6 : !/^[\p{L}\p{N}._-]+$/u.test(host) || /^[-.]/.test(host))
    return undefined;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(text)) return undefined;
  const spec: RemoteSpec = { host: host.toLowerCase(), port: DEFAULT_SSH_PORT, path: rawPath };
  return formatRemote(user === undefined ? spec : { user, ...spec });
}

/**
 * A hint for an operand that should be an `sftp://` URL but is not: another scheme (`scp://`, `ssh://`, …), `sftp:`
 * without `//`, or scp's `[user@]host:path` (then "use sftp://user@host/path"; only when `isLocalPath(text)` is false,
 * since a local file may be named so).
 * @param text the operand as typed
 * @param isLocalPath whether `text` names an existing local file or folder (the CLI passes fs.existsSync)
 * @returns the hint, or undefined when there is none
 */
export function remoteOperandHint(text: string, isLocalPath: (p: string) => boolean = () => false): string | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text);
  if (scheme && !SCHEME.test(text)) return `only sftp:// URLs are supported, not ${displayText(scheme[1], 20)}://`;
  if (/^sftp:/i.test(text)) return 'an sftp URL starts with "sftp://" (two slashes), e.g. sftp://host/path';
  const meant = scpStyleUrl(text);
  if (meant !== undefined && !isLocalPath(text))
    return `scp-style "host:path" is not a URL: use ${displayText(meant, 300)}`;
  return undefined;
}
