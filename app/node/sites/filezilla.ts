/**
 * FileZilla's Site Manager file (`sitemanager.xml`: `<FileZilla3><Servers>` holding `<Folder>`s, named by their text,
 * and `<Server>`s) to candidate sites, read with fast-xml-parser. Only SFTP entries (`<Protocol>1</Protocol>`) are
 * sites; FTP, FTPS and the others are skipped with a note. A folder path becomes the site's Sluice folder.
 *
 * Per server: `Host`, `Port`, `User`, `Logontype` (0 anonymous, 1 normal, 2 ask for password, 3 interactive,
 * 4 account, 5 key file), `Keyfile`, `Pass` (`encoding="base64"` is decoded for the secret store; `encoding="crypt"`,
 * protected by FileZilla's master password, is not), `Name` (older files name a server by its text), `LocalDir`, and
 * `RemoteDir` in FileZilla's own "safe path" form (`1 0 4 home 5 alice`: server type, prefix length, then the length
 * and text of each segment; type 1 is Unix).
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { SluiceError } from '../errors';
import { CandidateList, portOf, type Draft, type ParseOptions, type ParsedSites } from './candidates';

type XmlNode = Record<string, unknown>;

/** FileZilla's protocol numbers (ServerProtocol in its source), for the notes on skipped entries. */
const PROTOCOLS: Record<string, string> = {
  0: 'FTP',
  1: 'SFTP',
  2: 'HTTP',
  3: 'FTPS',
  4: 'FTPES',
  5: 'HTTPS',
  6: 'insecure FTP',
  7: 'S3',
  8: 'Storj',
  9: 'WebDAV',
  10: 'Azure file storage',
  11: 'Azure blob storage',
  12: 'Swift',
  13: 'Google Cloud Storage',
  14: 'Google Drive',
  15: 'OneDrive',
  16: 'Dropbox',
  17: 'Box',
  18: 'Rackspace',
};

/** The text of an element (`<Host>x</Host>`, or `{#text}` when it has attributes), trimmed; undefined when absent. */
function textOf(node: unknown): string | undefined {
  if (typeof node === 'string') return node.trim();
  if (typeof node === 'number') return String(node);
  if (node && typeof node === 'object' && '#text' in node) return String((node as XmlNode)['#text']).trim();
  return node === undefined ? undefined : '';
}

function listOf(node: unknown): XmlNode[] {
  return Array.isArray(node) ? (node as XmlNode[]) : node && typeof node === 'object' ? [node as XmlNode] : [];
}

/**
 * FileZilla's "safe path" (CServerPath::GetSafePath) to a path: `1 0 4 home 5 alice` -> `/home/alice`, `1 0` -> `/`.
 * @returns undefined for another server type than Unix (1) or default (0), or text not in that form
 */
export function fromSafePath(safe: string): string | undefined {
  const m = /^(\d+) (\d+)(?: (.*))?$/s.exec(safe);
  if (!m || (m[1] !== '0' && m[1] !== '1') || m[2] !== '0') return undefined;
  const segments: string[] = [];
  let rest = m[3] ?? '';
  while (rest.length > 0) {
    const len = /^(\d+) /.exec(rest);
    if (!len) return undefined;
    const n = Number(len[1]);
    const segment = rest.slice(len[0].length, len[0].length + n);
    if (segment.length !== n) return undefined;
    segments.push(segment);
    rest = rest.slice(len[0].length + n);
    if (rest.startsWith(' ')) rest = rest.slice(1);
    else if (rest.length > 0) return undefined;
  }
  return `/${segments.join('/')}`;
}

/** The password of a server, or the note why there is none to import. */
function passwordOf(server: XmlNode, notes: string[]): string | undefined {
  const pass = server.Pass;
  if (pass === undefined) return undefined;
  const encoding = pass && typeof pass === 'object' ? String((pass as XmlNode)['@_encoding'] ?? '') : '';
  const text = textOf(pass) ?? '';
  if (encoding === 'crypt') {
    notes.push('password not imported: FileZilla protects it with its master password');
    return undefined;
  }
  if (text === '') return undefined;
  return encoding === 'base64' ? Buffer.from(text, 'base64').toString('utf8') : text;
}

/** One `<Server>`: a candidate, or a note why not. */
function addServer(list: CandidateList, server: XmlNode, folder: string): void {
  const name = textOf(server.Name) || textOf(server['#text']) || textOf(server.Host) || '(unnamed)';
  const origin = `"${folder ? `${folder}/` : ''}${name}"`;
  const protocol = textOf(server.Protocol) ?? '0';
  if (protocol !== '1') {
    list.skip(origin, `${PROTOCOLS[protocol] ?? `protocol ${protocol}`} entry (Sluice speaks SFTP only)`);
    return;
  }
  const host = textOf(server.Host) ?? '';
  if (host === '') return list.skip(origin, 'no host');
  const logon = textOf(server.Logontype) ?? '1';
  if (logon === '0') return list.skip(origin, 'anonymous logon');
  const notes: string[] = [];
  const d: Draft = { name, folder, host, port: portOf(textOf(server.Port)), user: textOf(server.User) };
  if (logon === '5') {
    d.authMethod = 'key';
    d.keyPath = textOf(server.Keyfile);
  } else {
    d.authMethod = 'password';
    d.password = passwordOf(server, notes);
  }
  const remote = textOf(server.RemoteDir);
  if (remote) {
    d.remoteDir = fromSafePath(remote);
    if (d.remoteDir === undefined) notes.push(`not imported: remote folder "${remote}" (not a Unix path)`);
  }
  d.localDir = textOf(server.LocalDir) || undefined;
  list.add(origin, d, notes);
}

/** A `<Folder>` (or `<Servers>`) and everything below it: folders first, as FileZilla's Site Manager lists them. */
function walk(list: CandidateList, node: XmlNode, folder: string): void {
  for (const sub of listOf(node.Folder)) {
    const name = (textOf(sub['#text']) ?? '').replace(/\//g, '-') || '(unnamed folder)';
    walk(list, sub, folder ? `${folder}/${name}` : name);
  }
  for (const server of listOf(node.Server)) addServer(list, server, folder);
}

/**
 * Parses a FileZilla `sitemanager.xml`.
 * @param xml the file's text
 * @throws SluiceError INVALID_REQUEST when the text is not well-formed XML or has no `<FileZilla3><Servers>`
 */
export function parseFileZilla(xml: string, opts: ParseOptions): ParsedSites {
  const valid = XMLValidator.validate(xml);
  if (valid !== true)
    throw new SluiceError(
      'INVALID_REQUEST',
      `Not a FileZilla sitemanager.xml: ${valid.err.msg} (line ${valid.err.line})`,
    );
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    isArray: (tag) => tag === 'Server' || tag === 'Folder',
  });
  const doc = parser.parse(xml) as XmlNode;
  const root = doc.FileZilla3 as XmlNode | undefined;
  if (!root || typeof root !== 'object')
    throw new SluiceError('INVALID_REQUEST', 'Not a FileZilla sitemanager.xml: no <FileZilla3> element');
  const list = new CandidateList(opts);
  const servers = root.Servers;
  if (servers && typeof servers === 'object') walk(list, servers as XmlNode, '');
  else list.note('the file has no <Servers>: no sites');
  return list.result();
}
