/**
 * The store side of `sluice queue` (issue #14): adding a command's sources as a batch of jobs, listing them, and the
 * state changes pause, resume, cancel, retry and clear. Running the queue is queueRunner.ts. Everything here works on
 * the shared `queue.db` (stores/queueStore.ts); a job another process is running is paused or cancelled by its state,
 * which that runner watches.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { canTransition, type JobState } from '../../common/model/job';
import { SluiceError } from '../errors';
import { resolveHome } from '../stores/dataDir';
import { LeftoverJournal } from '../stores/leftovers';
import type { QueueStore } from '../stores/queueStore';
import type { ConflictSetting, JobOptions, QueuedJob } from '../stores/queueRows';
import type { ConflictRule } from '../transfer/types';
import { withBookmark } from './bookmarks';
import { jobTarget, resolveOperands } from './jobSetup';
import { remoteKeyPath } from './resume';
import { conflictRuleOf, type CliOptions } from './program';
import { startsWithTilde } from '../sys/platformPaths';

/** The `origin` of jobs `sluice queue add` makes; `sluice queue run` takes only these. */
export const QUEUE_ORIGIN = 'queue';

/** The options a queued job keeps for its run: those of CliOptions that shape the transfer and its connection. */
const KEPT_OPTIONS = [
  'recursive',
  'dereference',
  'identity',
  'agent',
  'acceptNew',
  'clobber',
  'conflict',
  'resume',
  'times',
  'perms',
  'verify',
  'cipher',
  'kex',
  'mac',
  'hostKeyAlgorithms',
  'connections',
  'channels',
  'requests',
  'segmentSize',
  'window',
  'keepalive',
  'keepaliveCount',
  'connectTimeout',
  'limit',
  'retries',
  'jump',
  'sshConfig',
  'keepDirlinks',
  'force',
] as const satisfies ReadonlyArray<keyof CliOptions>;

/** The command options a queued job was added with (JobOptions.cli). */
export type QueuedCliOptions = Partial<Pick<CliOptions, (typeof KEPT_OPTIONS)[number]>>;

/** How `queue add` named a job's server (JobOptions.via): the URL's host (a site's host), port and user, if any. */
export interface QueuedVia {
  host: string;
  port: number;
  user?: string;
}

/** How a job's server was named (JobOptions.via), if `queue add` kept it (older jobs: their target). */
export function viaOf(job: QueuedJob): QueuedVia | undefined {
  const v = job.options.via as Partial<QueuedVia> | undefined;
  if (typeof v?.host !== 'string' || typeof v.port !== 'number') return undefined;
  return { host: v.host, port: v.port, ...(typeof v.user === 'string' ? { user: v.user } : {}) };
}

/** A queued job's command options, as `queue add` stored them. */
export function cliOptionsOf(job: QueuedJob): QueuedCliOptions {
  return (job.options.cli ?? {}) as QueuedCliOptions;
}

/**
 * The queue's `conflict` column for a rule (ask, overwrite, skip, rename: what the app's queue knows); the finer
 * rules (newer, size, append) are kept with the job's command options (JobOptions.cli.conflict), which the run reads.
 */
function conflictSetting(rule: ConflictRule): ConflictSetting {
  return rule === 'skip' || rule === 'rename' ? rule : 'overwrite';
}

/**
 * `sluice queue add get|put [options] SOURCE… DEST`: one job per SOURCE, added as one batch behind the queue.
 * Local paths are made absolute; a put's local sources must exist now (so a typo fails here, not in the run). A saved
 * site named as the URL's host gives the job its server and the options the command leaves unset (cli/bookmarks.ts).
 * @returns the stored jobs, `queued`
 * @throws SluiceError USAGE for operands as `get`/`put` would refuse them; LOCAL_IO for a missing local source
 */
export function addToQueue(
  store: QueueStore,
  direction: 'get' | 'put',
  operands: readonly string[],
  given: CliOptions,
): QueuedJob[] {
  if (operands.length < 2)
    throw new SluiceError('USAGE', `queue add ${direction} needs at least one SOURCE and a DEST`);
  const { spec, sources, dest } = resolveOperands(direction, operands.slice(0, -1), operands[operands.length - 1]);
  const o = withBookmark(given, spec.bookmark);
  const put = direction === 'put';
  const absolute = put ? sources.map((s) => path.resolve(s)) : sources;
  if (put) {
    for (const s of absolute)
      if (!fs.existsSync(s)) throw new SluiceError('LOCAL_IO', `queue add put: no such file or folder: ${s}`);
  }
  const cli: QueuedCliOptions = {};
  for (const k of KEPT_OPTIONS) if (o[k] !== undefined) (cli as Record<string, unknown>)[k] = o[k];
  // `queue run` may start elsewhere: a relative -F file is taken from here.
  if (cli.sshConfig !== undefined && cli.sshConfig.trim().toLowerCase() !== 'none' && !startsWithTilde(cli.sshConfig))
    cli.sshConfig = path.resolve(cli.sshConfig);
  // The job is keyed on the server reached (user, host, port after ssh_config and the site); `via` keeps how the
  // command named it, which `queue run` resolves again (an alias's IdentityFile, ProxyJump, … apply then too).
  const via: QueuedVia = { host: spec.host, port: spec.port, ...(spec.user !== undefined ? { user: spec.user } : {}) };
  const options: JobOptions = { origin: QUEUE_ORIGIN, verify: o.verify, cli, via };
  if (o.limit) options.speedLimit = o.limit;
  const target = jobTarget(spec, o);
  return store.jobs.addBatch(
    absolute.map((source) => ({
      target,
      direction: put ? ('upload' as const) : ('download' as const),
      source: put ? source : remoteKeyPath(source),
      dest: put ? remoteKeyPath(dest) : path.resolve(dest),
      conflict: conflictSetting(conflictRuleOf(o)),
      options,
    })),
  );
}

/**
 * The jobs named on the command line: full ids or their first characters (at least 4), or with `all` every job.
 * @throws SluiceError NOT_FOUND for an id that names no job; USAGE for one that names several, or no ids without `all`
 */
export function resolveJobIds(store: QueueStore, ids: readonly string[], all: boolean): string[] {
  if (all) {
    const out: string[] = [];
    for (let page = store.jobs.list({ limit: 10_000 }); ; page = store.jobs.list({ limit: 10_000, after: page.next })) {
      out.push(...page.jobs.map((j) => j.id));
      if (!page.next) return out;
    }
  }
  if (ids.length === 0)
    throw new SluiceError('USAGE', 'name the jobs (their ids as `sluice queue list` shows them), or --all');
  return ids.map((prefix) => {
    const found = store.jobs.idsByPrefix(prefix);
    if (found.length === 0) throw new SluiceError('NOT_FOUND', `no queued job ${prefix}`);
    if (found.length > 1) throw new SluiceError('USAGE', `${prefix} names ${found.length} jobs: give more of the id`);
    return found[0];
  });
}

/** What a state change did: jobs changed, and jobs left alone (already there, or not allowed from their state). */
export interface ChangeResult {
  changed: QueuedJob[];
  unchanged: Array<{ job: QueuedJob; why: string }>;
}

/**
 * Moves each job to `to` where its lifecycle allows (app/common/model/job.ts); a running job is paused or cancelled by
 * its state alone: its runner sees the change and stops it. `resume` and `retry` both enter `queued` (from paused,
 * and from failed or cancelled).
 */
export function changeState(
  store: QueueStore,
  ids: readonly string[],
  to: JobState,
  from?: readonly JobState[],
): ChangeResult {
  const out: ChangeResult = { changed: [], unchanged: [] };
  for (const id of ids) {
    const job = store.jobs.get(id);
    if (!job) continue;
    if (job.state === to) out.unchanged.push({ job, why: `already ${to}` });
    else if ((from && !from.includes(job.state)) || !canTransition(job.state, to))
      out.unchanged.push({ job, why: `${job.state}, cannot become ${to}` });
    else out.changed.push(store.jobs.setState(id, to));
  }
  return out;
}

/** Where the jobs' partial copies went: removed here (local), or left to the next connection to the server (remote). */
export interface PartialCleanup {
  removedLocal: number;
  remoteLater: number;
}

/**
 * Removes the partial copies of cancelled jobs that no runner holds: a download's local temporary files at once; an
 * upload's remote ones are recorded as leftovers (stores/leftovers.ts), removed by the next connection to that server.
 * The unfinished files' rows and ranges are dropped with them (JobFileStore.discardUnfinished).
 */
export function dropPartialCopies(
  store: QueueStore,
  jobs: readonly QueuedJob[],
  dataDir = resolveHome(),
): PartialCleanup {
  const out: PartialCleanup = { removedLocal: 0, remoteLater: 0 };
  for (const job of jobs) {
    if (store.leases.holder(job.id)) continue;
    const temps = store.files.discardUnfinished([job.id]);
    const journal =
      'host' in job.target
        ? new LeftoverJournal(dataDir, {
            host: job.target.host,
            port: job.target.port,
            user: job.target.user || os.userInfo().username,
          })
        : undefined;
    for (const temp of temps) {
      if (job.direction === 'download') {
        try {
          fs.unlinkSync(temp);
          out.removedLocal++;
        } catch {
          /* never written, or gone */
        }
      } else if (journal && journal.record({ kind: 'temp', path: temp })) {
        out.remoteLater++;
      }
    }
  }
  return out;
}
