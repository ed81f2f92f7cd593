/**
 * What the local file system can hold, for a download (#24 item 12; docs/engine.md "Remote names on this computer").
 * The one rule: a remote name becomes the local name unchanged, or it is refused with the reason, and the rest of the
 * transfer goes on. Sluice never maps a name (`a:b` → `a_b` could land on a real file, and the upload back would not
 * map it again). Refused everywhere: see {@link unsafeNameReason} (traversal, control characters, Windows device
 * names, a trailing dot or space, over 255 bytes). Refused where the computer's file system cannot hold them:
 * - Windows: `: * ? " < > |` too;
 * - where names differing only in case are one file (Windows, macOS by default, FAT/exFAT on any platform, found by a
 *   probe of the destination): the first name a folder lists is copied, a later one equal but for case is refused;
 * - macOS (APFS, HFS+): names equal after Unicode normalization (`é` in NFC and NFD) are one file, the same way.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { unsafeNameReason } from './safeNames';

/** The platforms whose naming rules differ; tests inject one ({@link TransferRequest.namePlatform}). */
export type NamePlatform = 'win32' | 'darwin' | 'linux';

/** What one destination can hold. */
export interface LocalNameRules {
  /** Also refuse what only Windows forbids: `: * ? " < > |`. */
  windows: boolean;
  /** Names equal but for case are one file. */
  caseInsensitive: boolean;
  /** Names equal after Unicode normalization (NFC vs NFD) are one file. */
  normalizationInsensitive: boolean;
}

/** The rules of a platform's usual file system (NTFS; APFS, case-insensitive by default; ext4). */
export function nameRulesFor(platform: NamePlatform | NodeJS.Platform): LocalNameRules {
  if (platform === 'win32') return { windows: true, caseInsensitive: true, normalizationInsensitive: false };
  if (platform === 'darwin') return { windows: false, caseInsensitive: true, normalizationInsensitive: true };
  return { windows: false, caseInsensitive: false, normalizationInsensitive: false };
}

/**
 * Whether the file system holding `dir` (or its nearest existing folder above) ignores case: a probe file
 * `.sluice-case-XXXXXXXX` is created there, looked up in upper case, and removed. Undefined when no probe could be
 * made (a read-only folder): the platform's rule stands.
 */
export async function probeCaseInsensitive(dir: string): Promise<boolean | undefined> {
  let folder = path.resolve(dir);
  for (
    let i = 0;
    i < 64 &&
    !(await fs.promises.stat(folder).then(
      (s) => s.isDirectory(),
      () => false,
    ));
    i++
  ) {
    const up = path.dirname(folder);
    if (up === folder) return undefined;
    folder = up;
  }
  const name = `.sluice-case-${randomBytes(4).toString('hex')}`;
  const probe = path.join(folder, name);
  try {
    await (await fs.promises.open(probe, 'wx')).close();
  } catch {
    return undefined;
  }
  try {
    return await fs.promises.stat(path.join(folder, name.toUpperCase())).then(
      () => true,
      () => false,
    );
  } finally {
    await fs.promises.rm(probe, { force: true });
  }
}

/**
 * The rules for a download into `dest`: this platform's, with case-insensitivity as a probe of the destination finds
 * it (a FAT or exFAT stick on Linux ignores case, a case-sensitive APFS volume on macOS does not). With a platform
 * injected (a download meant for another computer) that platform's rules stand, and a probe can only add to them.
 * The probe is made only where collisions can happen (`probe`: a folder walk or several sources).
 */
export async function localNameRules(dest: string, probe: boolean, injected?: NamePlatform): Promise<LocalNameRules> {
  const rules = nameRulesFor(injected ?? process.platform);
  const found = probe ? await probeCaseInsensitive(dest) : undefined;
  if (found === true || (found === false && injected === undefined)) rules.caseInsensitive = found;
  return rules;
}

/** The names of one local folder as a download fills it: what each remote name would collide with. */
export class FolderNames {
  private readonly seen = new Map<string, string>();

  constructor(private readonly rules: LocalNameRules) {}

  /** The key under which this file system stores `name`: names with one key are one file. */
  private keyOf(name: string): string {
    let key = this.rules.normalizationInsensitive ? name.normalize('NFC') : name;
    if (this.rules.caseInsensitive) key = key.toLowerCase().toUpperCase().toLowerCase();
    return key;
  }

  /**
   * Why `name` cannot be written into this folder, or null (and the name is taken). A name the folder already took
   * under another spelling is refused, naming that spelling; the same name listed twice is left to the caller.
   */
  refusal(name: string): string | null {
    const unsafe = unsafeNameReason(name, { windows: this.rules.windows });
    if (unsafe !== null) return unsafe;
    const key = this.keyOf(name);
    const first = this.seen.get(key);
    if (first === undefined) {
      this.seen.set(key, name);
      return null;
    }
    if (first === name) return null;
    const how = first.normalize('NFC') === name.normalize('NFC') ? 'Unicode normalization (NFC/NFD)' : 'case';
    const { windows, normalizationInsensitive: mac } = this.rules;
    const where = windows ? 'Windows' : mac ? 'macOS' : "the destination's file system";
    return (
      `it differs from ${JSON.stringify(first)} only in ${how}: on ${where} it is the same file, ` +
      'so only the first listed is copied'
    );
  }
}
