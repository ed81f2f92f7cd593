/**
 * WinSCP's stored sites to candidate sites, from its INI file (`WinSCP.ini`, sections `[Sessions\NAME]`) or from a
 * registry export of `HKEY_CURRENT_USER\Software\Martin Prikryl\WinSCP 2\Sessions` (a `.reg` file). WinSCP escapes
 * session names and string values the PuTTY way (`%XX` per byte, UTF-8 after an escaped byte order mark); a name's
 * `/` separates its folders (`Work/Prod` is the site Prod in the folder Work). A session keeps only what differs from
 * the factory defaults: port 22, protocol SFTP.
 *
 * Read: HostName, PortNumber, UserName, PublicKeyFile, RemoteDirectory, LocalDirectory, FSProtocol (0 SCP only,
 * 1 SFTP with SCP fallback, 2 SFTP only, 5 FTP, 6 WebDAV, 7 S3: only 1 and 2 are imported). Passwords are not
 * imported (WinSCP keeps them in its own reversible encoding keyed to the host and user; a note says so); tunnels
 * and proxies are noted as not imported. Workspaces and empty folders are skipped.
 */
import { CandidateList, portOf, unmunge, type ParseOptions, type ParsedSites } from './candidates';
import { isRegFile, parseIni, parseRegFile, sessionSections } from './settingsFiles';

const FS_PROTOCOLS: Record<number, string> = { 0: 'SCP-only', 5: 'FTP', 6: 'WebDAV', 7: 'S3' };

/** A string value, unescaped; numbers (registry DWORDs) as text. */
function str(values: Map<string, string | number>, name: string): string | undefined {
  const v = values.get(name);
  if (v === undefined) return undefined;
  return typeof v === 'number' ? String(v) : unmunge(v);
}

/** A whole-number value (INI text or registry DWORD). */
function int(values: Map<string, string | number>, name: string): number | undefined {
  const v = values.get(name);
  if (typeof v === 'number') return v;
  return v !== undefined && /^-?\d+$/.test(v.trim()) ? Number(v) : undefined;
}

/** What a session has that a Sluice site does not keep. */
function droppedNotes(values: Map<string, string | number>): string[] {
  const notes: string[] = [];
  if (values.has('Password'))
    notes.push('password not imported: WinSCP keeps it in its own encoding; type it when connecting');
  if (int(values, 'Tunnel') === 1)
    notes.push(`not imported: SSH tunnel through ${str(values, 'TunnelHostName') ?? 'another host'}`);
  const proxy = int(values, 'ProxyMethod') ?? 0;
  if (proxy !== 0) notes.push(`not imported: proxy ${str(values, 'ProxyHost') ?? ''}`.trim());
  return notes;
}

/**
 * Parses WinSCP's sites.
 * @param text a WinSCP.ini, or a `.reg` export of WinSCP's registry key
 */
export function parseWinScp(text: string, opts: ParseOptions): ParsedSites {
  const list = new CandidateList(opts);
  const sections = isRegFile(text) ? parseRegFile(text) : parseIni(text);
  const sessions = sessionSections(sections);
  if (sessions.length === 0) list.note('no [Sessions\\…] sections: no sites');
  for (const { name: escaped, values } of sessions) {
    const full = unmunge(escaped);
    const origin = `"${full}"`;
    if (full === 'Default Settings') continue;
    if (int(values, 'IsWorkspace') === 1) {
      list.skip(origin, 'a workspace');
      continue;
    }
    if (int(values, 'IsFolder') === 1) continue;
    const protocol = int(values, 'FSProtocol') ?? 1;
    if (protocol !== 1 && protocol !== 2) {
      list.skip(origin, `${FS_PROTOCOLS[protocol] ?? `protocol ${protocol}`} session (Sluice speaks SFTP only)`);
      continue;
    }
    const host = str(values, 'HostName') ?? '';
    if (host === '') {
      list.skip(origin, 'no host name');
      continue;
    }
    const parts = full.split('/').filter((p) => p.length > 0);
    list.add(
      origin,
      {
        name: parts.pop() ?? full,
        folder: parts.join('/'),
        host,
        port: portOf(int(values, 'PortNumber')),
        user: str(values, 'UserName'),
        keyPath: str(values, 'PublicKeyFile'),
        remoteDir: str(values, 'RemoteDirectory'),
        localDir: str(values, 'LocalDirectory'),
      },
      droppedNotes(values),
    );
  }
  return list.result();
}
