/**
 * PuTTY's saved sessions to candidate sites: on Unix one file per session in `~/.putty/sessions` (`Key=value`
 * lines, numbers in decimal; the file name is the session name escaped by PuTTY's `mungestr`, `%XX` per byte outside
 * letters, digits and `+-.@_`), on Windows the registry key `HKEY_CURRENT_USER\Software\SimonTatham\PuTTY\Sessions`,
 * read from a `.reg` export (session names escaped the same way, numbers as DWORDs). Values are stored as typed.
 *
 * Read: HostName (`user@host` is split), PortNumber, UserName, PublicKeyFile, Protocol (only `ssh` is imported).
 * Proxies are noted as not imported; "Default Settings" is skipped. PuTTY keeps no passwords.
 */
import { CandidateList, portOf, unmunge, type ParseOptions, type ParsedSites } from './candidates';
import { parseRegFile, sessionSections } from './settingsFiles';

/** One session: its escaped name and its values. */
export interface PuttySession {
  /** The session name as stored (a file name, or a registry key name), still escaped. */
  name: string;
  values: Map<string, string | number>;
}

/** A session file (`Key=value` per line; the value is the rest of the line). */
export function parsePuttySessionFile(name: string, text: string): PuttySession {
  const values = new Map<string, string | number>();
  for (const line of text.split(/\r?\n/)) {
    const eq = line.indexOf('=');
    if (eq > 0) values.set(line.slice(0, eq), line.slice(eq + 1));
  }
  return { name, values };
}

/** The sessions of a `.reg` export of PuTTY's registry key. */
export function puttySessionsFromReg(text: string): PuttySession[] {
  return sessionSections(parseRegFile(text));
}

function str(values: Map<string, string | number>, name: string): string | undefined {
  const v = values.get(name);
  return v === undefined ? undefined : String(v);
}

/** PuTTY's proxy types (ProxyMethod): 0 is none. */
const PROXIES: Record<string, string> = {
  1: 'SOCKS 4',
  2: 'SOCKS 5',
  3: 'HTTP',
  4: 'Telnet',
  5: 'local command',
  6: 'SSH',
};

/**
 * Parses PuTTY sessions.
 * @param sessions from {@link parsePuttySessionFile} (the files of `~/.putty/sessions`) or {@link puttySessionsFromReg}
 */
export function parsePuttySessions(sessions: PuttySession[], opts: ParseOptions): ParsedSites {
  const list = new CandidateList(opts);
  if (sessions.length === 0) list.note('no saved sessions found');
  for (const { name: escaped, values } of sessions) {
    const name = unmunge(escaped);
    const origin = `"${name}"`;
    if (name === 'Default Settings') continue;
    const protocol = str(values, 'Protocol') ?? 'ssh';
    if (protocol !== 'ssh') {
      list.skip(origin, `${protocol} session (Sluice speaks SFTP over SSH only)`);
      continue;
    }
    let host = (str(values, 'HostName') ?? '').trim();
    let user = str(values, 'UserName');
    const at = host.lastIndexOf('@');
    if (at > 0) {
      user ||= host.slice(0, at);
      host = host.slice(at + 1);
    }
    if (host === '') {
      list.skip(origin, 'no host name');
      continue;
    }
    const notes: string[] = [];
    const proxy = str(values, 'ProxyMethod') ?? '0';
    if (proxy !== '0')
      notes.push(
        `not imported: ${PROXIES[proxy] ?? ''} proxy ${str(values, 'ProxyHost') ?? ''}`.replace(/\s+/g, ' ').trim(),
      );
    list.add(
      origin,
      {
        name,
        host,
        port: portOf(values.get('PortNumber')),
        user,
        keyPath: str(values, 'PublicKeyFile'),
      },
      notes,
    );
  }
  return list.result();
}
