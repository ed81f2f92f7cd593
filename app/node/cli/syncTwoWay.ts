/**
 * `sluice sync --two-way A B` (#27): both folders listed, compared with the stored listing of the last completed run
 * (sync/syncState.ts, in the data folder) by sync/twoWay.ts planTwoWay, then run as the one-way runs of
 * cli/syncRun.ts do: first each conflict's server copy renamed to its conflict name, then one queue batch local →
 * server (copies, deletions on the server) and one server → local (copies, deletions here), each through the resume
 * journal. The new stored listing is written only when both batches completed and every listing did: a run that
 * failed or was killed leaves the previous one, and the next run plans from it again (what did arrive is then found
 * the same on both sides).
 */
import path from 'node:path';
import { SluiceError, terminalText } from '../errors';
import { PoolEngine, type Engine } from '../engine/engine';
import { expandRemoteHome } from '../transfer/scan';
import { resolveHome } from '../stores/dataDir';
import { formatTarget, type JobTarget } from '../stores/queueRows';
import { compileFilters, type FilterRule } from '../sync/filters';
import type { Listing } from '../sync/listing';
import { listLocalTree } from '../sync/localListing';
import { foldersAtOnce, listRemoteTree, type RemoteLister } from '../sync/remoteListing';
import { readSyncState, writeSyncState, type SyncPairKey } from '../sync/syncState';
import { planTwoWay, stateAfter, twoWayBatches, type TwoWayPlan } from '../sync/twoWay';
import type { SyncPlan } from '../sync/plan';
import { toFatal, writeFatal } from './fatal';
import type { Output } from './output';
import { twoWayJsonLines, twoWayPlanLines, twoWaySummary } from './twoWayOutput';

/** What a two-way run needs from `sluice sync`'s setup. */
export interface TwoWayInput {
  engine: Engine;
  lister: RemoteLister;
  target: Extract<JobTarget, { host: string }>;
  /** The local folder and the remote one as typed (`~` not yet expanded). */
  localRoot: string;
  remoteRoot: string;
  rules: FilterRule[];
  options: {
    dryRun?: boolean;
    sizeOnly?: boolean;
    modifyWindow?: number;
    maxDelete?: number;
    json?: boolean;
    verbose?: boolean;
    progress?: boolean;
  };
  signal: AbortSignal;
  onOutput?(out: Output): void;
  /** The data folder (default stores/dataDir.ts resolveHome()). */
  home?: string;
  /** The time in conflict names (default now). */
  now?: Date;
}

/** `host-20261128-120000`: what a conflict's renamed copy carries (the server's name, the run's time in UTC). */
export function conflictSuffix(host: string, now: Date): string {
  const t = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${host.replace(/[^A-Za-z0-9.-]/g, '_')}-${t}`;
}

/** The pool's channels open now (1 for an engine without a pool). */
function lanesOf(engine: Engine): number {
  return engine instanceof PoolEngine ? engine.connectionPool.lanes().length : 1;
}

async function listBoth(input: TwoWayInput, remoteRoot: string): Promise<[Listing, Listing]> {
  const limits = { filter: compileFilters(input.rules), signal: input.signal };
  const [remote, local] = await Promise.all([
    listRemoteTree(input.lister, remoteRoot, { ...limits, concurrency: foldersAtOnce(lanesOf(input.engine)) }),
    listLocalTree(input.localRoot, limits),
  ]);
  return [local, remote];
}

/** Says which folders could not be listed; @returns the exit code (0 when every listing completed). */
function listingErrors(local: Listing, remote: Listing, plan: TwoWayPlan, json: boolean): number {
  const errors = [
    ...local.errors.map((e) => ({ ...e, side: 'here' })),
    ...remote.errors.map((e) => ({ ...e, side: 'on the server' })),
  ];
  if (!errors.length) return 0;
  if (!json)
    for (const e of errors)
      process.stderr.write(terminalText(`sluice: cannot list ${e.path || '(top folder)'} ${e.side}: ${e.message}\n`));
  const why = plan.deletionsWithheld
    ? `no deletion planned: ${plan.deletionsWithheld}; the stored listing is kept for the next run`
    : `${errors.length} folder(s) could not be listed; the stored listing is kept for the next run`;
  return writeFatal(toFatal(new SluiceError('REMOTE_FAILURE', why)), json);
}

/** A one-way plan with something to do. */
const hasWork = (p: SyncPlan): boolean => p.items.length > 0;

/**
 * Runs one two-way sync (or prints its plan under `dryRun`).
 * @returns the exit code: 0, 2 for a refused plan, else the first failure's (as get/put)
 * @throws SluiceError from the listings, the renames and the runs (ABORTED when `signal` fires)
 */
export async function runTwoWaySync(input: TwoWayInput): Promise<number> {
  const o = input.options;
  const json = o.json === true;
  const localRoot = path.resolve(input.localRoot);
  const remoteRoot = await expandRemoteHome(input.engine, input.remoteRoot);
  const [local, remote] = await listBoth({ ...input, localRoot }, remoteRoot);
  const home = input.home ?? resolveHome();
  const key: SyncPairKey = { server: formatTarget(input.target), localRoot, remoteRoot };
  const stored = readSyncState(home, key);
  const plan = planTwoWay(local, remote, stored, {
    sizeOnly: o.sizeOnly,
    modifyWindowMs: o.modifyWindow,
    maxDelete: o.maxDelete,
    conflictSuffix: conflictSuffix(input.target.host, input.now ?? new Date()),
  });
  if (o.dryRun || json) {
    const width = process.stdout.isTTY ? process.stdout.columns || 80 : 80;
    const lines = json
      ? twoWayJsonLines(plan, o.dryRun === true)
      : twoWayPlanLines(plan, { verbose: o.verbose, width });
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  if (plan.refused) return writeFatal(toFatal(new SluiceError('USAGE', plan.refused)), json);
  if (o.dryRun) return listingErrors(local, remote, plan, json);
  if (!json) process.stderr.write(`${terminalText(twoWaySummary(plan))}\n`);
  const batches = twoWayBatches(plan);
  for (const r of batches.renames) {
    const [from, to] = [path.posix.join(remoteRoot, r.from), path.posix.join(remoteRoot, r.to)];
    await input.engine.rename(from, to);
    if (!json)
      process.stderr.write(
        terminalText(`sluice: conflict: ${r.from} changed on both sides: the server's copy kept as ${r.to}\n`),
      );
  }
  const { runSyncPlan } = await import('./syncRun');
  const run = (direction: 'put' | 'get', plan1: SyncPlan): Promise<number> =>
    runSyncPlan({
      engine: input.engine,
      target: input.target,
      direction,
      srcRoot: direction === 'put' ? localRoot : remoteRoot,
      destRoot: direction === 'put' ? remoteRoot : localRoot,
      plan: plan1,
      json,
      verbose: o.verbose,
      progress: o.progress !== false,
      signal: input.signal,
      onOutput: input.onOutput,
    });
  const up = hasWork(batches.upload) ? await run('put', batches.upload) : 0;
  const down = hasWork(batches.download) ? await run('get', batches.download) : 0;
  const listed = listingErrors(local, remote, plan, json);
  if (up || down || listed) return up || down || listed;
  const file = writeSyncState(home, key, stateAfter(plan));
  if (o.verbose && !json)
    process.stderr.write(`${terminalText(`sluice: sync --two-way: listing stored in ${file}`)}\n`);
  return 0;
}
