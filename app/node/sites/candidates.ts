/**
 * What every import parser returns: candidate sites, each with the notes of what it dropped (a jump host, a password
 * not imported), and the notes of entries that gave no site (an FTP entry, a wildcard Host). A candidate is checked
 * against the same validator as a site saved from the UI (`siteInputSchema`), so an import never saves what the site
 * form would refuse.
 */
import { siteInputSchema } from '../../common/ipc/contract';
import { normalizeFolder, type AuthMethod, type SiteInput } from '../../common/model/site';
import type { SiteBookmark } from '../../common/model/bookmark';

/** A site found in a source. */
export interface Candidate {
  /** Where it is in the source, e.g. `Host web1`, `Work/Prod`. */
  origin: string;
  site: Omit<SiteInput, 'id'>;
  /** The source's password for it (FileZilla, Sluice JSON); never leaves the engine except into the secret store. */
  password?: string;
  /** Its directory bookmarks (a Sluice export's), saved with it. */
  bookmarks?: SiteBookmark[];
  notes: string[];
}

/** A parsed source. */
export interface ParsedSites {
  candidates: Candidate[];
  /** Entries that gave no candidate, and notes about the whole source. */
  notes: string[];
}

/** What a parser knows of one entry; the gaps are filled by {@link CandidateList.add}. */
export interface Draft {
  name: string;
  folder?: string;
  host: string;
  port?: number;
  user?: string;
  authMethod?: AuthMethod;
  keyPath?: string;
  localDir?: string;
  remoteDir?: string;
  password?: string;
  connections?: number;
  channels?: number;
  ciphers?: string[];
  kex?: string[];
  macs?: string[];
  hostKeyAlgorithms?: string[];
  speedLimit?: number;
  bookmarks?: SiteBookmark[];
}

/** What every parser is given. */
export interface ParseOptions {
  /** The login name when the source names none (ssh uses the local user name). */
  defaultUser: string;
}

/** The note for a key file in PuTTY's format, which ssh2 reads only in its version 2 with RSA or DSA keys. */
export function ppkNote(keyPath: string): string | undefined {
  if (!/\.ppk$/i.test(keyPath)) return undefined;
  return (
    `key file ${keyPath} is in PuTTY's format: Sluice reads version 2 RSA and DSA .ppk files only; convert others with ` +
    `"puttygen KEY.ppk -O private-openssh -o KEY"`
  );
}

/** Collects a parser's candidates and notes. */
export class CandidateList {
  private readonly candidates: Candidate[] = [];
  private readonly notes: string[] = [];

  constructor(private readonly opts: ParseOptions) {}

  /** A note about the whole source. */
  note(text: string): void {
    this.notes.push(text);
  }

  /** An entry that gives no site, and why. */
  skip(origin: string, why: string): void {
    this.notes.push(`skipped ${origin}: ${why}`);
  }

  /**
   * Adds an entry: port 22 and the default user when absent, the authentication from what it has (a password, a key
   * file, else the agent). An entry the site validator refuses is skipped with the validator's reason.
   * @returns whether it was added
   */
  add(origin: string, d: Draft, notes: string[] = []): boolean {
    const own = [...notes];
    let user = d.user?.trim();
    if (!user) {
      user = this.opts.defaultUser;
      own.push(`no user name: the local user name (${user}) is used, as ssh does`);
    }
    const keyPath = d.keyPath?.trim() || undefined;
    const authMethod: AuthMethod = d.authMethod ?? (d.password !== undefined ? 'password' : keyPath ? 'key' : 'agent');
    if (keyPath) {
      const n = ppkNote(keyPath);
      if (n) own.push(n);
    }
    const site: Record<string, unknown> = {
      name: d.name.trim() || d.host,
      folder: normalizeFolder(d.folder ?? ''),
      host: d.host.trim(),
      port: d.port ?? 22,
      user,
      authMethod,
      keyPath,
      localDir: d.localDir?.trim() || undefined,
      remoteDir: d.remoteDir?.trim() || undefined,
      connections: d.connections,
      channels: d.channels,
      ciphers: d.ciphers,
      kex: d.kex,
      macs: d.macs,
      hostKeyAlgorithms: d.hostKeyAlgorithms,
      speedLimit: d.speedLimit,
    };
    for (const k of Object.keys(site)) if (site[k] === undefined) delete site[k];
    const checked = siteInputSchema.safeParse(site);
    if (!checked.success) {
      this.skip(origin, checked.error.issues.map((i) => `${i.path.join('.') || 'site'}: ${i.message}`).join('; '));
      return false;
    }
    const { id: _id, ...valid } = checked.data;
    this.candidates.push({
      origin,
      site: valid,
      ...(d.password !== undefined ? { password: d.password } : {}),
      ...(d.bookmarks?.length ? { bookmarks: d.bookmarks } : {}),
      notes: own,
    });
    return true;
  }

  /** The candidates and notes collected. */
  result(): ParsedSites {
    return { candidates: this.candidates, notes: this.notes };
  }
}

/**
 * Percent-decoding as PuTTY and WinSCP store names (PuTTY's `mungestr`/`escape_registry_key`: `%XX` per byte) and
 * WinSCP its string values: bytes after a UTF-8 byte order mark are UTF-8 (WinSCP's `MungeStr`); others are UTF-8
 * when they are valid UTF-8, else the Windows ANSI code page (read as Latin-1). A `%` not followed by two hex digits
 * stays as it is.
 */
export function unmunge(text: string): string {
  const parts = text.split(/(%[0-9a-f]{2})/i);
  let buf = Buffer.concat(
    parts.map((p, i) => (i % 2 === 1 ? Buffer.from([parseInt(p.slice(1), 16)]) : Buffer.from(p, 'utf8'))),
  );
  if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    return buf.toString('latin1');
  }
}

/** A whole number in 1..65535 from a source's text, or undefined. */
export function portOf(value: string | number | undefined): number | undefined {
  const n = typeof value === 'number' ? value : value !== undefined && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  return Number.isInteger(n) && n >= 1 && n <= 65535 ? n : undefined;
}
