/**
 * OpenSSH known_hosts read/write (sshd(8) "SSH_KNOWN_HOSTS FILE FORMAT").
 *
 * Reads plain and hashed (`|1|salt|hmac`) host fields, comma-separated patterns with `*`, `?` and `!`,
 * `[host]:port` for non-default ports, `@revoked` and `@cert-authority` markers. Lookup follows OpenSSH's
 * `check_key_in_hostkeys()`: an equal stored key → trusted; stored keys for the host but none equal → changed;
 * nothing stored → unknown; the presented key on any `@revoked` line → revoked.
 * Writing only ever appends one line; every other byte of the file is kept.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { HostKeyVerdict, StoredKeyRef } from '../../common/model/hostKey';
import { expandTilde, homeOf, isNullDevice, pathFor, systemSshDir } from '../sys/platformPaths';

/** Files a {@link KnownHosts} reads, in order, and the one file it appends to. */
export interface KnownHostsPaths {
  readPaths: string[];
  writePath: string;
}

/** One parsed key line of a known_hosts file. Comments, blanks and unparseable lines produce none. */
export interface KnownHostsEntry {
  file: string;
  /** 1-based line number. */
  line: number;
  marker: 'none' | 'cert-authority' | 'revoked';
  /** The raw host field: a pattern list or one `|1|salt|hmac` hash. */
  hosts: string;
  keyType: string;
  blob: Buffer;
  fingerprint: string;
}

const DEFAULT_PORT = 22;
const HASH_MAGIC = '|1|';
const SHA1_SALT_LEN = 20;

/**
 * Where known_hosts lives, like OpenSSH's `UserKnownHostsFile` / `GlobalKnownHostsFile` defaults (on Windows
 * `%ProgramData%\ssh\ssh_known_hosts` is the global one).
 * `SLUICE_KNOWN_HOSTS` (a file path, `~/` expanded) replaces both: only that file is read and written.
 * @param env environment to read `SLUICE_KNOWN_HOSTS` (and on Windows `ProgramData`, `USERPROFILE`) from
 * @param home the user's home folder
 */
export function defaultKnownHostsPaths(
  env: NodeJS.ProcessEnv = process.env,
  home?: string,
  platform: NodeJS.Platform = process.platform,
): KnownHostsPaths {
  const p = pathFor(platform);
  const h = home ?? homeOf(env, platform);
  const override = env.SLUICE_KNOWN_HOSTS;
  if (override !== undefined && override.trim() !== '') {
    const file = p.resolve(expandTilde(override, h, platform));
    return { readPaths: [file], writePath: file };
  }
  const user = p.join(h, '.ssh', 'known_hosts');
  return { readPaths: [user, p.join(systemSshDir(env, platform), 'ssh_known_hosts')], writePath: user };
}

/**
 * SHA-256 fingerprint of a public key blob, as `ssh-keygen -lf` prints it.
 * @param keyBlob the SSH wire encoding of the public key (RFC 4253 §6.6)
 * @returns `SHA256:` + unpadded base64
 */
export function sha256Fingerprint(keyBlob: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '');
}

/**
 * The key type named at the start of a public key blob (RFC 4253 §6.6: `string` format identifier).
 * @throws Error when the blob does not start with a plausible SSH string
 */
export function keyTypeOf(keyBlob: Buffer): string {
  if (keyBlob.length < 4) throw new Error('host key blob too short');
  const len = keyBlob.readUInt32BE(0);
  if (len < 1 || len > 64 || 4 + len > keyBlob.length) throw new Error('host key blob has no valid key type');
  const type = keyBlob.toString('latin1', 4, 4 + len);
  if (!/^[A-Za-z0-9@._+-]+$/.test(type)) throw new Error('host key blob has no valid key type');
  return type;
}

/**
 * The host string OpenSSH looks up and hashes: the lower-cased host for port 22, `[host]:port` otherwise.
 * @param host host name or address (IPv6 may come with or without brackets)
 * @param port TCP port
 */
export function knownHostsName(host: string, port: number): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  return port === DEFAULT_PORT ? h : `[${h}]:${port}`;
}

/** `|1|salt|hmac`: HMAC-SHA1 of `name` keyed by a salt, both base64 (OpenSSH `host_hash()`). */
export function hashKnownHostsName(name: string, salt: Buffer = randomBytes(SHA1_SALT_LEN)): string {
  const mac = createHmac('sha1', salt).update(name).digest();
  return `${HASH_MAGIC}${salt.toString('base64')}|${mac.toString('base64')}`;
}

/** Glob match with `*` (any run) and `?` (one character), whole string (OpenSSH `match_pattern()`). */
function globMatch(text: string, pattern: string): boolean {
  let t = 0;
  let p = 0;
  let starP = -1;
  let starT = 0;
  while (t < text.length) {
    if (p < pattern.length && (pattern[p] === '?' || pattern[p] === text[t])) {
      t++;
      p++;
    } else if (p < pattern.length && pattern[p] === '*') {
      starP = p++;
      starT = t;
    } else if (starP >= 0) {
      p = starP + 1;
      t = ++starT;
    } else return false;
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

/**
 * Whether a known_hosts host field matches `name` (from {@link knownHostsName}).
 * Hashed fields compare HMACs; pattern lists follow OpenSSH `match_pattern_list()`: a matching negated
 * pattern vetoes the line, otherwise any matching positive pattern matches.
 */
export function hostFieldMatches(hosts: string, name: string): boolean {
  if (hosts.startsWith('|')) {
    if (!hosts.startsWith(HASH_MAGIC)) return false;
    const [salt64, mac64] = hosts.slice(HASH_MAGIC.length).split('|');
    if (salt64 === undefined || mac64 === undefined) return false;
    const salt = Buffer.from(salt64, 'base64');
    const mac = Buffer.from(mac64, 'base64');
    if (salt.length !== SHA1_SALT_LEN || mac.length !== 20) return false;
    return createHmac('sha1', salt).update(name).digest().equals(mac);
  }
  let positive = false;
  for (const raw of hosts.toLowerCase().split(',')) {
    const negated = raw.startsWith('!');
    const pattern = negated ? raw.slice(1) : raw;
    if (pattern === '' || !globMatch(name, pattern)) continue;
    if (negated) return false;
    positive = true;
  }
  return positive;
}

/**
 * Parses known_hosts text into key entries. Lines that are comments, blank or malformed (bad marker,
 * missing fields, undecodable key, key type field not matching the blob) yield no entry; line numbers
 * still count them.
 * @param text file content
 * @param file path recorded in each entry
 */
export function parseKnownHosts(text: string, file: string): KnownHostsEntry[] {
  const entries: KnownHostsEntry[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const fields = lines[i]
      .replace(/\r$/, '')
      .trim()
      .split(/[ \t]+/);
    if (fields[0] === '' || fields[0].startsWith('#')) continue;
    let marker: KnownHostsEntry['marker'] = 'none';
    if (fields[0].startsWith('@')) {
      if (fields[0] === '@revoked') marker = 'revoked';
      else if (fields[0] === '@cert-authority') marker = 'cert-authority';
      else continue;
      fields.shift();
    }
    const [hosts, keyType, key64] = fields;
    if (!hosts || !keyType || !key64 || key64.startsWith('#')) continue;
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key64)) continue;
    const blob = Buffer.from(key64, 'base64');
    let blobType: string;
    try {
      blobType = keyTypeOf(blob);
    } catch {
      continue;
    }
    if (blobType !== keyType) continue;
    entries.push({ file, line: i + 1, marker, hosts, keyType, blob, fingerprint: sha256Fingerprint(blob) });
  }
  return entries;
}

function refOf(e: KnownHostsEntry): StoredKeyRef {
  return { file: e.file, line: e.line, keyType: e.keyType, fingerprint: e.fingerprint };
}

async function readOrEmpty(file: string, tolerateDenied: boolean): Promise<string> {
  try {
    return await fs.promises.readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return '';
    if (tolerateDenied && (code === 'EACCES' || code === 'EPERM' || code === 'EISDIR')) return '';
    throw err;
  }
}

// Process-wide, keyed by the resolved write path, so several KnownHosts over one file (one per job,
// or a stale one) still append a given host/key once and never interleave their read-check-append steps.
const pendingAdds = new Map<string, Promise<boolean>>();
const writeChains = new Map<string, Promise<unknown>>();

/**
 * Runs `step` after every earlier write step for the same file (resolved path) has settled, so appends and
 * rewrites of one known_hosts file never interleave within this process.
 */
export function serializeKnownHostsWrite<T>(file: string, step: () => Promise<T>): Promise<T> {
  const prev = writeChains.get(file) ?? Promise.resolve();
  const next = prev.then(step, step);
  const tail = next.catch(() => undefined);
  writeChains.set(file, tail);
  void tail.then(() => {
    if (writeChains.get(file) === tail) writeChains.delete(file);
  });
  return next;
}

/** An in-memory view of known_hosts files plus appends to the user's file. */
export class KnownHosts {
  private entries: KnownHostsEntry[] = [];

  private constructor(readonly paths: KnownHostsPaths) {}

  /**
   * Reads every file in `paths.readPaths` (and `paths.writePath`, if not listed). Missing files are empty;
   * unreadable files other than the write path are skipped.
   * @throws Error when the write path exists but cannot be read
   */
  static async load(paths: KnownHostsPaths): Promise<KnownHosts> {
    const kh = new KnownHosts({ readPaths: [...paths.readPaths], writePath: paths.writePath });
    await kh.reload();
    return kh;
  }

  /** Re-reads all files (after another program changed them, or after {@link add}). */
  async reload(): Promise<void> {
    const files = [...this.paths.readPaths];
    if (!files.includes(this.paths.writePath)) files.push(this.paths.writePath);
    const parsed = await Promise.all(
      files.map(async (f) => parseKnownHosts(await readOrEmpty(f, f !== this.paths.writePath), f)),
    );
    this.entries = parsed.flat();
  }

  /**
   * Classifies a presented host key (OpenSSH `check_key_in_hostkeys()` semantics, plain keys only;
   * `@cert-authority` lines are not used).
   * @param host host as the user named it; @param port TCP port; @param keyBlob SSH wire encoding of the key
   */
  lookup(host: string, port: number, keyBlob: Buffer): HostKeyVerdict {
    const identity = {
      host,
      port,
      keyType: keyTypeOf(keyBlob),
      fingerprint: sha256Fingerprint(keyBlob),
      key: keyBlob.toString('base64'),
    };
    const revoked = this.entries.find((e) => e.marker === 'revoked' && e.blob.equals(keyBlob));
    if (revoked) return { kind: 'revoked', identity, stored: refOf(revoked) };
    const mine = this.hostEntries(host, port);
    const same = mine.find((e) => e.blob.equals(keyBlob));
    if (same) return { kind: 'trusted', stored: refOf(same) };
    if (mine.length > 0) return { kind: 'changed', identity, stored: mine.map(refOf) };
    return { kind: 'unknown', identity };
  }

  /** Every key line of every file read (all markers), in file order. */
  all(): readonly KnownHostsEntry[] {
    return this.entries;
  }

  /** Every stored plain key for host/port, in file order. */
  keysFor(host: string, port: number): StoredKeyRef[] {
    return this.hostEntries(host, port).map(refOf);
  }

  /**
   * Key types already stored for host/port, so a connector can prefer them in the host-key algorithm
   * list as OpenSSH does (`order_hostkeyalgs()`), avoiding a false "changed" when a server has several keys.
   */
  storedKeyTypes(host: string, port: number): string[] {
    return [...new Set(this.hostEntries(host, port).map((e) => e.keyType))];
  }

  /**
   * Appends `host key` to the write path, hashed (`|1|…`) when that file already holds hashed entries.
   * Creates the folder (0700) and file (0600) when missing. Concurrent calls for the same host/port/key
   * share one write; the file is re-read first, so a key already stored is not written again.
   * Reloads the in-memory view afterwards.
   * @returns true when a line was appended (by this call or a concurrent one sharing it), false when the
   *   key was already stored or the write path is the null device (`UserKnownHostsFile none`: nothing is kept)
   */
  async add(host: string, port: number, keyBlob: Buffer): Promise<boolean> {
    const keyType = keyTypeOf(keyBlob);
    if (isNullDevice(this.paths.writePath)) return false;
    const file = path.resolve(this.paths.writePath);
    const name = knownHostsName(host, port);
    const id = `${file}\0${name}\0${keyBlob.toString('base64')}`;
    let pending = pendingAdds.get(id);
    if (!pending) {
      pending = serializeKnownHostsWrite(file, () => appendIfMissing(file, name, keyType, keyBlob)).finally(() =>
        pendingAdds.delete(id),
      );
      pendingAdds.set(id, pending);
    }
    const written = await pending;
    await this.reload();
    return written;
  }

  private hostEntries(host: string, port: number): KnownHostsEntry[] {
    const name = knownHostsName(host, port);
    return this.entries.filter((e) => e.marker === 'none' && hostFieldMatches(e.hosts, name));
  }
}

async function appendIfMissing(file: string, name: string, keyType: string, keyBlob: Buffer): Promise<boolean> {
  const text = await readOrEmpty(file, false);
  const entries = parseKnownHosts(text, file);
  if (entries.some((e) => e.marker === 'none' && e.blob.equals(keyBlob) && hostFieldMatches(e.hosts, name)))
    return false;
  const hashed = entries.some((e) => e.hosts.startsWith(HASH_MAGIC));
  const hostField = hashed ? hashKnownHostsName(name) : name;
  const sep = text.length > 0 && !text.endsWith('\n') ? '\n' : '';
  const line = `${sep}${hostField} ${keyType} ${keyBlob.toString('base64')}\n`;
  await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const fh = await fs.promises.open(file, 'a', 0o600);
  try {
    await fh.write(line);
  } finally {
    await fh.close();
  }
  return true;
}
