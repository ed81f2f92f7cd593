/**
 * The service's side of Synchronize… (#27): `sync.preview` lists both folders recursively (the remote one through
 * the site's session and its pool's streamed READDIRs, the local one from the disk; bounded in entries and depth,
 * cancelled by `sync.cancel`) and plans them with sync/plan.ts exactly as `sluice sync --dry-run` does; the plan is
 * kept (the last few) for `sync.run`, which queues it without listing again.
 */
import type { InvokeRequests, InvokeResponses } from '../../common/ipc/contract';
import type { SyncPreview, SyncPreviewItem, SyncRunResult } from '../../common/ipc/syncIpc';
import { listerOf, type Engine } from '../engine/engine';
import { SluiceError } from '../errors';
import { expandRemoteHome } from '../transfer/scan';
import { compileFilters } from '../sync/filters';
import type { Listing } from '../sync/listing';
import { listLocalTree } from '../sync/localListing';
import { listRemoteTree } from '../sync/remoteListing';
import { planSync, REASON_TEXT, type SyncPlan } from '../sync/plan';
import { checksumPlan } from '../sync/checksum';
import { hashersOf } from './syncHashers';
import type { SiteSessions } from './sessions';

/** Entries a preview lists at most per side: more makes the listing incomplete (so nothing is deleted). */
export const PREVIEW_MAX_ENTRIES = 200_000;

/** Plans kept for `sync.run` (the newest). */
const KEPT_PLANS = 4;

type PreviewRequest = InvokeRequests['sync.preview'];

/** A previewed plan as `sync.run` needs it. */
export interface KeptPlan {
  siteId: string;
  direction: 'upload' | 'download';
  localRoot: string;
  remoteRoot: string;
  plan: SyncPlan;
}

/** A kept plan's direction and SRC and DEST roots, as sync/enqueue.ts takes them. */
export function syncRoots(k: KeptPlan): { direction: KeptPlan['direction']; srcRoot: string; destRoot: string } {
  const upload = k.direction === 'upload';
  return {
    direction: k.direction,
    srcRoot: upload ? k.localRoot : k.remoteRoot,
    destRoot: upload ? k.remoteRoot : k.localRoot,
  };
}

/** The preview's items (create, update, delete), errors and counts from a plan and its listings. */
export function previewOf(
  req: Pick<PreviewRequest, 'previewId' | 'direction'>,
  roots: { localRoot: string; remoteRoot: string },
  plan: SyncPlan,
  local: Listing,
  remote: Listing,
): SyncPreview {
  const items: SyncPreviewItem[] = [];
  for (const it of plan.items) {
    if (it.action === 'create' || it.action === 'update' || it.action === 'delete')
      items.push({ path: it.path, kind: it.kind, action: it.action, reason: REASON_TEXT[it.reason], bytes: it.bytes });
  }
  const errors = [
    ...local.errors.map((e) => ({ side: 'local' as const, path: e.path, message: e.message })),
    ...remote.errors.map((e) => ({ side: 'remote' as const, path: e.path, message: e.message })),
  ];
  const t = plan.totals;
  const preview: SyncPreview = {
    previewId: req.previewId,
    direction: req.direction,
    ...roots,
    items,
    same: t.same.files + t.same.folders,
    onlyInDest: plan.onlyInDest,
    skipped: t.skip.files + t.skip.folders + local.skipped.length + remote.skipped.length,
    errors,
  };
  if (plan.deletionsWithheld) preview.deletionsWithheld = plan.deletionsWithheld;
  return preview;
}

/** The CLI's words of a checksum refusal (`--checksum`, `--checksum=reread`) as the dialog's. */
function appWords(e: SluiceError): SluiceError {
  if (e.code !== 'USAGE' || !e.message.startsWith('--checksum:')) return e;
  const why = /\(([^)]*)\)/.exec(e.message)?.[1] ?? 'no check-file-name, no sha256sum';
  return new SluiceError(
    'USAGE',
    `Compare by checksum: the server cannot hash its files itself (${why}); compare by size and time instead`,
  );
}

/** Previews in flight (cancellable) and the plans of the last ones. */
export class SyncPreviews {
  private readonly running = new Map<string, AbortController>();
  private readonly kept = new Map<string, KeptPlan>();

  /**
   * Lists both folders and plans them.
   * @param browse runs a listing on the site's engine (SiteSessions.browse: tried again after a reconnect)
   * @throws SluiceError INVALID_REQUEST for a preview id in use, ABORTED when cancelled, USAGE when a path is not a
   *   folder, NO_SUCH_FILE when SRC does not exist, NOT_CONNECTED / CONNECTION_* from the session
   */
  async preview(
    req: PreviewRequest,
    browse: <T>(op: (engine: Engine) => Promise<T>) => Promise<T>,
  ): Promise<SyncPreview> {
    if (this.running.has(req.previewId))
      throw new SluiceError('INVALID_REQUEST', `a preview with id ${req.previewId} is already running`);
    const controller = new AbortController();
    this.running.set(req.previewId, controller);
    try {
      const limits = { filter: compileFilters(req.rules), signal: controller.signal, maxEntries: PREVIEW_MAX_ENTRIES };
      const { remoteRoot, plan, local, remote } = await browse(async (engine) => {
        const root = await expandRemoteHome(engine, req.remotePath);
        const listed = await listRemoteTree(listerOf(engine), root, limits);
        const mine = await listLocalTree(req.localPath, limits);
        const upload = req.direction === 'upload';
        const [src, dest] = upload ? [mine, listed] : [listed, mine];
        if (!src.rootExists) {
          const where = upload ? req.localPath : `${root} on the server`;
          throw new SluiceError('NO_SUCH_FILE', `cannot synchronize from ${where}: it does not exist`);
        }
        let planned = planSync(src, dest, { sizeOnly: req.compare === 'size', delete: req.delete });
        if (req.compare === 'checksum') {
          const [hs, hd] = hashersOf(engine, req.direction, req.localPath, root);
          planned = await checksumPlan(planned, hs, hd, false, controller.signal).catch((e: unknown) => {
            throw appWords(SluiceError.from(e));
          });
        }
        return { remoteRoot: root, plan: planned, local: mine, remote: listed };
      });
      const roots = { localRoot: req.localPath, remoteRoot };
      this.keep(req.previewId, { siteId: req.siteId, direction: req.direction, ...roots, plan });
      return previewOf(req, roots, plan, local, remote);
    } finally {
      this.running.delete(req.previewId);
    }
  }

  /** Stops a preview still listing (it then answers ABORTED). @returns whether one was */
  cancel(previewId: string): boolean {
    const c = this.running.get(previewId);
    c?.abort();
    return c !== undefined;
  }

  /** The plan of a finished preview of this site. @throws SluiceError NOT_FOUND when it is not kept (any more) */
  plan(siteId: string, previewId: string): KeptPlan {
    const k = this.kept.get(previewId);
    if (!k || k.siteId !== siteId)
      throw new SluiceError('NOT_FOUND', 'This preview is no longer available: preview the synchronization again');
    return k;
  }

  private keep(previewId: string, k: KeptPlan): void {
    this.kept.delete(previewId);
    this.kept.set(previewId, k);
    while (this.kept.size > KEPT_PLANS) this.kept.delete(this.kept.keys().next().value as string);
  }
}

type SyncChannel = 'sync.preview' | 'sync.cancel' | 'sync.run';
type SyncHandlers = {
  [C in SyncChannel]: (req: InvokeRequests[C]) => Promise<InvokeResponses[C]>;
};

/**
 * The service's `sync.*` channels over the site's session (a listing cut by a lost connection is tried again once
 * the session reconnected).
 * @param run queues a kept plan less the paths left out (`sync.run`)
 */
export function syncHandlers(
  sessions: Pick<SiteSessions, 'browse'>,
  run?: (kept: KeptPlan, leaveOut: ReadonlySet<string>) => SyncRunResult,
): SyncHandlers {
  const previews = new SyncPreviews();
  return {
    'sync.preview': async (req) => previews.preview(req, (op) => sessions.browse(req.siteId, op)),
    'sync.cancel': async ({ previewId }) => previews.cancel(previewId),
    'sync.run': async ({ siteId, previewId, leaveOut }) => {
      const kept = previews.plan(siteId, previewId);
      if (!run) throw new SluiceError('INVALID_STATE', 'Running a synchronization from the app is not built yet');
      return run(kept, new Set(leaveOut));
    },
  };
}
