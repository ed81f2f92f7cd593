/**
 * `sluice sync [options] SRC DEST` (#27): the plan of making DEST like SRC, in either direction (one side an
 * sftp:// URL, a saved site or an ssh_config alias, the other a local folder), with the filters of sync/filters.ts
 * and the comparison of sync/plan.ts. For now only `--dry-run` runs: the plan is printed and nothing is changed;
 * without it the command says so and exits 2 (running the plan through the queue and the journal comes next).
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { SluiceError, isErrorCode, terminalText, type ErrorCode } from '../errors';
import type { Engine } from '../engine/engine';
import { PoolEngine } from '../engine/engine';
import { parseRemoteUrl } from '../engine/remoteSpec';
import { expandRemoteHome } from '../transfer/scan';
import { compileFilters, readExcludeFrom, type FilterRule } from '../sync/filters';
import type { Listing } from '../sync/listing';
import { listLocalTree } from '../sync/localListing';
import { listRemoteTree, type RemoteLister } from '../sync/remoteListing';
import { planSync, type SyncPlan } from '../sync/plan';
import { withBookmark } from './bookmarks';
import { toFatal, writeFatal } from './fatal';
import { engineOptions, openJobEngine, resolveOperands } from './jobSetup';
import { nonNegativeInt } from './optionParsers';
import { addConnectionOptions, type CliOptions } from './program';
import { SIGNAL_EXIT_CODES, guardSignals } from './signals';
import { planJsonLines, planLines } from './syncOutput';

/** The options of `sync`, as commander parses them (the connection options are get's and put's). */
export interface SyncOptions extends Omit<CliOptions, 'verify' | 'resume' | 'clobber' | 'progress'> {
  dryRun?: boolean;
  delete?: boolean;
  maxDelete?: number;
  sizeOnly?: boolean;
  checksum?: boolean;
  /** `--modify-window`, ms. */
  modifyWindow?: number;
}

const SYNC_EXAMPLES = `
Examples:
  sluice sync -n ./site sftp://alice@host/var/www   # what would change
  sluice sync -n --delete sftp://host/data ./backup # with deletions
  sluice sync -n --exclude '*.tmp' --exclude /build/ ./src sftp://host/src
  sluice sync -n --include '*.jpg' sftp://host/photos ./photos # jpgs only
Filters: first match wins; '*.log' any depth, '/build' at the top only,
'tmp/' folders only, '**' across folders; see docs/cli.md "sync".
For now sync plans only: --dry-run (-n) is required.`;

/**
 * `--modify-window`: milliseconds, or a number with `ms` or `s` (rclone writes `2s`).
 * @throws InvalidArgumentError for anything else
 */
export function parseModifyWindow(v: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s)?$/.exec(v.trim());
  if (!m) throw new InvalidArgumentError('expected a time such as 2s, 1500ms or 2000 (ms)');
  return Math.round(Number(m[1]) * (m[2] === 's' ? 1000 : 1));
}

/** The server side of a sync and the two folders. */
interface SyncJob {
  direction: 'get' | 'put';
  spec: ReturnType<typeof resolveOperands>['spec'];
  localRoot: string;
  remoteRoot: string;
}

/**
 * SRC and DEST as a job: the one that is an sftp:// URL (or a saved site) is the server's side.
 * @throws SluiceError USAGE when both or neither are URLs
 */
export function syncJob(src: string, dest: string): SyncJob {
  const srcUrl = parseRemoteUrl(src) !== null;
  const destUrl = parseRemoteUrl(dest) !== null;
  if (srcUrl && destUrl) throw new SluiceError('USAGE', 'sync needs one local folder: SRC and DEST are both URLs');
  if (!srcUrl && !destUrl) throw new SluiceError('USAGE', 'sync needs an sftp:// URL as SRC or DEST: both are local');
  if ((srcUrl ? dest : src) === '') throw new SluiceError('USAGE', 'sync needs a local folder: it is empty (use .)');
  const direction = srcUrl ? 'get' : 'put';
  const r = resolveOperands(direction, [src], dest);
  return direction === 'get'
    ? { direction, spec: r.spec, localRoot: r.dest, remoteRoot: r.sources[0] }
    : { direction, spec: r.spec, localRoot: r.sources[0], remoteRoot: r.dest };
}

/** What is refused before connecting: anything but a dry run, and `--checksum`. @throws SluiceError USAGE */
function refuseUnbuilt(o: SyncOptions): void {
  if (o.checksum) {
    throw new SluiceError(
      'USAGE',
      '--checksum is not built yet: compare by size and time (the default) or --size-only',
    );
  }
  if (!o.dryRun) {
    throw new SluiceError(
      'USAGE',
      'sync only plans for now: add --dry-run (-n) to see what it would change ' +
        '(copying and deleting come in a later version)',
    );
  }
}

/** The engine's streamed listing (ConnectionPool.listEach), or its plain `list` for an engine without a session. */
function listerOf(engine: Engine): RemoteLister {
  if (engine instanceof PoolEngine) return engine.connectionPool;
  return {
    stat: (p) => engine.stat(p),
    listEach: async (p, onNames) => {
      const names = await engine.list(p);
      await onNames(names);
      return names.length;
    },
  };
}

/** Both sides listed at once, as [SRC, DEST]. @throws SluiceError NO_SUCH_FILE when SRC does not exist */
async function listBoth(
  engine: Engine,
  job: SyncJob,
  rules: FilterRule[],
  signal: AbortSignal,
): Promise<[Listing, Listing]> {
  const limits = { filter: compileFilters(rules), signal };
  const remoteRoot = await expandRemoteHome(engine, job.remoteRoot);
  const [remote, local] = await Promise.all([
    listRemoteTree(listerOf(engine), remoteRoot, limits),
    listLocalTree(job.localRoot, limits),
  ]);
  const [src, dest] = job.direction === 'put' ? [local, remote] : [remote, local];
  if (!src.rootExists) {
    const where = job.direction === 'put' ? job.localRoot : `${remoteRoot} on the server`;
    throw new SluiceError('NO_SUCH_FILE', `SRC ${where} does not exist`);
  }
  return [src, dest];
}

/** Prints the plan and what was left out; @returns the exit code (listing errors and a refused plan are not 0). */
function report(plan: SyncPlan, src: Listing, dest: Listing, o: SyncOptions): number {
  const json = o.json === true;
  const width = process.stdout.isTTY ? process.stdout.columns || 80 : 80;
  const lines = json ? planJsonLines(plan) : planLines(plan, { verbose: o.verbose, width });
  process.stdout.write(`${lines.join('\n')}\n`);
  const skipped = [...src.skipped, ...dest.skipped];
  if (skipped.length && !json) {
    if (o.verbose)
      for (const s of skipped) process.stderr.write(terminalText(`sluice: left out ${s.path}: ${s.reason}\n`));
    else process.stderr.write(`sluice: ${skipped.length} paths left out (links, special files): -v lists them\n`);
  }
  const errors = [
    ...src.errors.map((e) => ({ ...e, side: 'SRC' })),
    ...dest.errors.map((e) => ({ ...e, side: 'DEST' })),
  ];
  if (!json) {
    for (const e of errors) {
      process.stderr.write(terminalText(`sluice: cannot list ${e.side} ${e.path || '(top folder)'}: ${e.message}\n`));
    }
  }
  if (plan.refused) return writeFatal(toFatal(new SluiceError('USAGE', plan.refused)), json);
  if (errors.length) {
    const first = errors[0].code;
    const code: ErrorCode = isErrorCode(first) ? first : 'REMOTE_FAILURE';
    const why = plan.deletionsWithheld
      ? `no deletion planned: ${plan.deletionsWithheld}`
      : `the plan is incomplete: ${errors.length} folder${errors.length > 1 ? 's' : ''} could not be listed`;
    return writeFatal(toFatal(new SluiceError(code, why)), json);
  }
  return 0;
}

/** Runs one `sync`; every failure is reported here. @returns the exit code */
async function runSync(src: string, dest: string, given: SyncOptions, rules: FilterRule[]): Promise<number> {
  const abort = new AbortController();
  let engine: Engine | null = null;
  const guard = guardSignals({
    cancel: () => abort.abort(),
    cleanupPending: () => engine !== null,
    write: (text) => process.stderr.write(`${text}\n`),
    quit: (exitCode) => process.exit(exitCode),
  });
  try {
    refuseUnbuilt(given);
    const job = syncJob(src, dest);
    const o = withBookmark(
      { ...given, verify: 'size', resume: false, clobber: true, progress: false },
      job.spec.bookmark,
    );
    const quiet = { info: (m: string) => process.stderr.write(`${terminalText(m)}\n`), event: () => undefined };
    const eo = engineOptions({ direction: job.direction, spec: job.spec, sources: [], dest: '' }, o, quiet);
    engine = await openJobEngine({ ...eo, prefetch: {} }, job.spec, o);
    const [s, d] = await listBoth(engine, job, rules, abort.signal);
    const plan = planSync(s, d, {
      sizeOnly: given.sizeOnly,
      modifyWindowMs: given.modifyWindow,
      delete: given.delete,
      maxDelete: given.maxDelete,
    });
    return report(plan, s, d, given);
  } catch (e) {
    const signal = guard.received;
    const f = toFatal(e, signal && SIGNAL_EXIT_CODES[signal]);
    return writeFatal(
      signal && f.code === 'ABORTED' ? { ...f, message: `${f.message} (${signal})` } : f,
      given.json === true,
    );
  } finally {
    await engine?.close().catch(() => undefined);
    guard.dispose();
  }
}

/**
 * Adds `sluice sync` to the program. `--include`, `--exclude` and `--exclude-from` go into one list in the order
 * given (first match wins). The action stores its exit code as the root program's `exitCode` option.
 */
export function addSyncCommand(program: Command): void {
  const rules: FilterRule[] = [];
  const rule = (kind: FilterRule['kind']) => (pattern: string) => {
    rules.push({ kind, pattern });
    return rules;
  };
  const cmd = program
    .command('sync')
    .description('plan making DEST like SRC (a local folder and an sftp:// URL)')
    .argument('<src>')
    .argument('<dest>')
    .usage('[options] <src> <dest>')
    .option('-n, --dry-run', 'print the plan (each path, its action and reason, counts and bytes); change nothing')
    .option('--delete', 'delete from DEST what SRC does not have (never after a listing error)')
    .option('--max-delete <n>', 'refuse a plan that deletes more than N paths', nonNegativeInt)
    .option('--size-only', 'files of the same size are the same, whatever their times')
    .option('--modify-window <time>', 'times this close count as equal (2s, 1500ms; default 0)', parseModifyWindow)
    .addOption(new Option('--checksum', 'compare by hash (not built yet: refused)'))
    .option('--exclude <glob>', 'leave out matching paths (repeatable)', rule('exclude'))
    .option('--include <glob>', 'keep matching paths; with any include, other files are left out', rule('include'))
    .option('--exclude-from <file>', 'exclude patterns from FILE, one a line (# comments)', (file: string) => {
      rules.push(...readExcludeFrom(file));
      return rules;
    })
    .option('-i, --identity <file>', 'private key file (repeatable)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--no-agent', 'do not use ssh-agent')
    .option('--batch', 'never prompt (unknown host keys are refused unless --accept-new)')
    .option('--accept-new', 'accept and save unknown host keys (changed keys are still refused)')
    .option('--json', 'the plan as JSON lines on stdout')
    .option('-v, --verbose', 'list paths found the same and those left out too');
  addConnectionOptions(cmd)
    .addHelpText('after', SYNC_EXAMPLES)
    .action(async (src: string, dest: string, o: SyncOptions) => {
      program.setOptionValue('exitCode', await runSync(src, dest, o, rules));
    });
}
