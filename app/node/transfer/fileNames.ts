/**
 * A job's own names: temporary names beside the target, free names for the "rename" conflict answer, and errors told
 * with the user's path. (Names a server sends are checked by safeNames.ts; what a destination can hold: localNames.ts.)
 */
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { SluiceError } from '../errors';
import { hiddenSiblingName } from '../../common/nameBytes';

/**
 * Temporary name beside `finalPath` (posix for remote paths, native for local ones): `.NAME.sluice-XXXXXXXX.part`, its
 * NAME cut so the whole stays within 255 bytes (a target name of 234–255 bytes would otherwise make it too long).
 */
export function tempNameFor(finalPath: string, remote: boolean): string {
  const p = remote ? path.posix : path;
  const suffix = `.sluice-${randomBytes(4).toString('hex')}.part`;
  return p.join(p.dirname(finalPath), hiddenSiblingName(p.basename(finalPath), suffix));
}

/**
 * The temporary name a journalled job uses for a file: `proposed` (from {@link tempNameFor}) with its random part
 * replaced by a hash of `key` (the job and the source), so that every run of the job writes the same name and a run
 * killed before it could record the name leaves nothing the next run does not overwrite or commit.
 */
export function stableTempName(proposed: string, key: string): string {
  const tag = createHash('sha256').update(key).digest('hex').slice(0, 8);
  return proposed.replace(/\.sluice-[0-9a-f]{8}\.part$/, `.sluice-${tag}.part`);
}

/**
 * The error as the user should read it: a message that names only our temporary file names the user's file too.
 * @param temp the file's temporary name, @param dst its final name
 */
export function inUserTerms(e: SluiceError, temp: string, dst: string): SluiceError {
  // A file written in place has no temporary name: its target is already named.
  if (temp === dst || !e.message.includes(temp)) return e;
  const named = e.message.split(temp).join(`${dst} (temporary ${path.posix.basename(temp)})`);
  // Creating the temporary file failed for want of its folder: that folder is what the user must hear about.
  if (e.code === 'NO_SUCH_FILE' && e.message.startsWith('OPEN')) {
    return new SluiceError(e.code, `folder ${path.posix.dirname(dst)} does not exist on the server (${named})`, {
      cause: e,
    });
  }
  return new SluiceError(e.code, named, { cause: e });
}

/** A server's refusal of a segmented upload (not a lost connection, not an interrupt): one handle may still work. */
export function refusedByServer(e: SluiceError): boolean {
  return (
    e.code === 'REMOTE_FAILURE' ||
    e.code === 'PERMISSION_DENIED' ||
    e.code === 'NO_SUCH_FILE' ||
    e.code === 'VERIFY_FAILED'
  );
}

/** `NAME (1).ext`, `NAME (2).ext`, … : the first that does not exist (the conflict answer "rename"). */
export function nextFreeName(
  exists: (p: string) => Promise<boolean>,
  target: string,
  remote: boolean,
): Promise<string> {
  const p = remote ? path.posix : path;
  const ext = p.extname(target);
  const stem = target.slice(0, target.length - ext.length);
  return (async () => {
    for (let n = 1; n < 10_000; n++) {
      const candidate = `${stem} (${n})${ext}`;
      if (!(await exists(candidate))) return candidate;
    }
    throw new SluiceError('EXISTS', `no free name next to ${target}`);
  })();
}
