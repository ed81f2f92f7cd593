/**
 * `sluice sync --checksum` (rsync -c, rclone --checksum): files of the same size on both sides are compared by their
 * SHA-256 instead of their times. The server's side is hashed by the server itself where it offers it
 * (check-file-name, or `sha256sum` over exec: ssh/remoteHash.ts); a server that offers neither is refused rather than
 * read back file by file, unless the user asked for that (`--checksum=reread`).
 */
import { SluiceError } from '../errors';
import { totalsOf, type PlanItem, type SyncPlan } from './plan';

/** How one side's file is hashed: its SHA-256 (hex) and whether the server read it back to get it. */
export type SideHasher = (rel: string, size: number) => Promise<{ sha256: string; reread: boolean; why?: string }>;

/** Files hashed at once (each side's hashes of one file run side by side). */
const HASHING = 8;

/** Items whose verdict a checksum decides: files both sides have with the same size. */
function needsHash(it: PlanItem): boolean {
  return it.kind === 'file' && it.src !== undefined && it.dest !== undefined && it.src.size === it.dest.size;
}

/**
 * The plan with every file of the same size on both sides decided by SHA-256: equal hashes `same` (whatever the
 * times), different ones `update`. Other items are kept as planned.
 * @param allowReread the user gave `--checksum=reread`: a server that cannot hash is read back instead of refused
 * @throws SluiceError USAGE when the server had to read a file back to hash it and `allowReread` is false (naming
 *   why it could not hash it itself); what the hashers throw; ABORTED when `signal` fires
 */
export async function checksumPlan(
  plan: SyncPlan,
  src: SideHasher,
  dest: SideHasher,
  allowReread: boolean,
  signal?: AbortSignal,
): Promise<SyncPlan> {
  const items = [...plan.items];
  const todo = items.map((it, i) => [it, i] as const).filter(([it]) => needsHash(it));
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < todo.length) {
      if (signal?.aborted) throw new SluiceError('ABORTED', 'checksums cancelled');
      const [it, i] = todo[next++];
      const [a, b] = await Promise.all([src(it.path, it.src!.size), dest(it.path, it.src!.size)]);
      const reread = [a, b].find((h) => h.reread);
      if (reread && !allowReread) {
        throw new SluiceError(
          'USAGE',
          `--checksum: the server cannot hash its files itself (${reread.why ?? 'no check-file-name, no sha256sum'}); ` +
            '--checksum=reread reads every file back to hash it, or compare by size and time (the default)',
        );
      }
      const same = a.sha256 === b.sha256;
      items[i] = {
        ...it,
        action: same ? 'same' : 'update',
        reason: same ? 'same-checksum' : 'checksum-differs',
        bytes: same ? 0 : it.src!.size,
      };
    }
  };
  await Promise.all(Array.from({ length: Math.min(HASHING, todo.length) }, worker));
  return { ...plan, items, totals: totalsOf(items) };
}
