/**
 * `remote.list`'s entries with their symbolic links resolved, as a file manager shows them: a link to a file is a file
 * (the target's size and date), a link to a folder a folder, a link whose target is missing says so; the path the link
 * names goes with it (the pane's tooltip). SSH_FXP_READDIR reports a link's own attributes (lstat), so each link costs
 * an SSH_FXP_STAT (follows links, draft-ietf-secsh-filexfer-02 §6.8) and an SSH_FXP_READLINK, sent a few at a time.
 */
import type { FsEntry } from '../../common/ipc/contract';
import { ownership } from '../engine/ownership';
import { SluiceError } from '../errors';
import type { RemoteEntry, RemoteStat } from '../ssh/workerProtocol';

/** The two calls link resolution needs (a session). */
export interface LinkCalls {
  /** SSH_FXP_STAT, following links; null when the target does not exist. */
  stat(path: string): Promise<RemoteStat | null>;
  /** SSH_FXP_READLINK. */
  readlink(path: string): Promise<string>;
}

/** Links resolved per listing at most; the rest stay plain links (a folder of 100,000 links lists without waiting). */
export const MAX_LINKS_RESOLVED = 2000;
/** Links resolved at once (requests in flight on the browsing channel). */
const LINKS_AT_ONCE = 16;

/** The owner and group a long listing named (names from its `ls -l` line, else ids); nothing for a short listing. */
function ownerOf(e: RemoteEntry): Pick<FsEntry, 'owner' | 'group'> {
  if (e.longname === undefined && e.uid === undefined && e.gid === undefined) return {};
  const { owner, group } = ownership(e);
  return { owner, group };
}

function join(dir: string, name: string): string {
  return dir.endsWith('/') ? `${dir}${name}` : `${dir}/${name}`;
}

/**
 * A target the server refuses to STAT (missing, a loop, no permission) makes the link broken; a lost connection throws.
 */
async function statTarget(calls: LinkCalls, full: string): Promise<RemoteStat | null> {
  try {
    return await calls.stat(full);
  } catch (e) {
    const code = SluiceError.from(e).code;
    if (code === 'CONNECTION_LOST' || code === 'ABORTED') throw e;
    return null;
  }
}

async function resolveOne(calls: LinkCalls, dir: string, e: RemoteEntry): Promise<FsEntry> {
  const full = join(dir, e.name);
  const [target, st] = await Promise.all([calls.readlink(full).catch(() => ''), statTarget(calls, full)]);
  if (!st || st.type === 'symlink')
    return { name: e.name, type: 'symlink', size: 0, mtimeMs: e.mtimeMs, mode: e.mode, link: { target, broken: true } };
  return {
    name: e.name,
    type: st.type,
    size: st.size,
    mtimeMs: st.mtimeMs,
    mode: st.mode,
    link: { target, broken: false },
  };
}

/**
 * @param dir the folder listed (absolute, as the server resolved it)
 * @param entries its SSH_FXP_READDIR entries (links with their own attributes)
 * @returns the entries in the same order, the first {@link MAX_LINKS_RESOLVED} links resolved
 * @throws SluiceError CONNECTION_LOST when the connection drops meanwhile
 */
export async function resolveLinks(calls: LinkCalls, dir: string, entries: readonly RemoteEntry[]): Promise<FsEntry[]> {
  const out: FsEntry[] = entries.map((e) => ({
    name: e.name,
    type: e.type,
    size: e.size,
    mtimeMs: e.mtimeMs,
    mode: e.mode,
    ...ownerOf(e),
  }));
  const links = entries.flatMap((e, i) => (e.type === 'symlink' ? [i] : [])).slice(0, MAX_LINKS_RESOLVED);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < links.length) {
      const i = links[next++];
      out[i] = { ...(await resolveOne(calls, dir, entries[i])), ...ownerOf(entries[i]) };
    }
  };
  await Promise.all(Array.from({ length: Math.min(LINKS_AT_ONCE, links.length) }, worker));
  return out;
}
