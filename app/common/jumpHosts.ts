/**
 * Jump host lists as OpenSSH writes them (ssh_config(5) `ProxyJump`, ssh(1) `-J`): hops separated by commas, each
 * `[user@]host[:port]` or an `ssh://[user@]host[:port]` URI, an IPv6 address in brackets (`[::1]:2222`); `none`
 * means no jump host (and overrides a ProxyJump from ssh_config). A host may be an alias of the ssh_config files.
 * Pure: shared by the engine, the IPC contract (a site's `jumpHost`) and the site form.
 */

/** One hop as written: the host (or ssh_config alias), and the user and port when given. */
export interface JumpHop {
  user?: string;
  host: string;
  /** TCP port when written (1–65535); absent: the ssh_config `Port` of the host, else 22. */
  port?: number;
}

export type JumpHostsParse = { ok: true; hops: JumpHop[] } | { ok: false; error: string };

/** At most this many hops in one list (OpenSSH has no limit; a longer chain is surely a mistake). */
export const MAX_JUMP_HOPS = 8;

/** True for `none` (any case, surrounding blanks ignored): no jump host. */
export function isJumpNone(text: string): boolean {
  return text.trim().toLowerCase() === 'none';
}

/**
 * A host name, an IPv4 address or an ssh_config alias: no blanks, `@`, `,`, `/`, `:` or brackets; not starting with
 * `-`.
 */
const HOST = /^[^\s@,/:[\]]+$/;
const IPV6 = /^[0-9a-f:.]+(%[\w.-]+)?$/i;

function parseHop(raw: string): JumpHop | string {
  let text = raw.trim();
  if (text === '') return 'an empty entry (two commas, or a comma at an end)';
  if (/^ssh:\/\//i.test(text)) {
    text = text.slice(6);
    if (text.endsWith('/')) text = text.slice(0, -1);
  }
  let user: string | undefined;
  const at = text.lastIndexOf('@');
  if (at !== -1) {
    user = text.slice(0, at);
    text = text.slice(at + 1);
    if (user === '' || /[\s:]/.test(user)) return `"${raw.trim()}" has an invalid user name`;
  }
  let host: string;
  let portText: string | undefined;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close === -1) return `"${raw.trim()}": the IPv6 address has no closing "]"`;
    host = text.slice(1, close);
    if (!IPV6.test(host) || !host.includes(':')) return `"${raw.trim()}": "${host}" is not an IPv6 address`;
    const after = text.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) return `"${raw.trim()}": unexpected text after the IPv6 address`;
    portText = after === '' ? undefined : after.slice(1);
  } else {
    const parts = text.split(':');
    if (parts.length > 2) return `"${raw.trim()}": an IPv6 address goes in brackets, e.g. [::1]:22`;
    host = parts[0];
    portText = parts[1];
    if (!HOST.test(host) || host.startsWith('-')) return `"${raw.trim()}" is not a host name`;
  }
  const hop: JumpHop = { host };
  if (user !== undefined) hop.user = user;
  if (portText !== undefined) {
    const port = Number(portText);
    if (!/^\d{1,5}$/.test(portText) || port < 1 || port > 65535)
      return `"${raw.trim()}": "${portText}" is not a port number (1–65535)`;
    hop.port = port;
  }
  return hop;
}

/**
 * Parses a jump host list (ssh_config(5) ProxyJump syntax).
 * @param text e.g. `alice@bastion:2222,inner`, `ssh://[::1]:22`, or `none` (no hops)
 * @returns the hops in the order they are visited, or why the text is not a jump host list
 */
export function parseJumpHosts(text: string): JumpHostsParse {
  if (isJumpNone(text)) return { ok: true, hops: [] };
  const hops: JumpHop[] = [];
  for (const raw of text.split(',')) {
    const hop = parseHop(raw);
    if (typeof hop === 'string') return { ok: false, error: hop };
    hops.push(hop);
  }
  if (hops.length > MAX_JUMP_HOPS) return { ok: false, error: `at most ${MAX_JUMP_HOPS} jump hosts` };
  return { ok: true, hops };
}

/** `host:port`, with an IPv6 address in brackets: how messages name a server. */
export function hostPortLabel(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}
