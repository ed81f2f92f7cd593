/**
 * `sluice sync [options] SRC DEST` (#27): the plan of making DEST like SRC, in either direction (one side an
 * sftp:// URL, a saved site or an ssh_config alias, the other a local folder), with the filters of sync/filters.ts
 * and the comparison of sync/plan.ts. `--dry-run` prints the plan and changes nothing; without it the plan runs as
 * one batch of the queue through the resume journal (cli/syncRun.ts, loaded only then).
 */
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { SluiceError, isErrorCode, terminalText, type ErrorCode } from '../errors';
import type { Engine, EngineOptions } from '../engine/engine';
import { listerOf, PoolEngine } from '../engine/engine';
import { parseRemoteUrl } from '../engine/remoteSpec';
import { expandRemoteHome } from '../transfer/scan';
import { compileFilters, readExcludeFrom, type FilterRule } from '../sync/filters';
import type { Listing } from '../sync/listing';
import { listLocalTree } from '../sync/localListing';
import { foldersAtOnce, listRemoteTree } from '../sync/remoteListing';
import { planSync, type SyncPlan } from '../sync/plan';
import { checksumPlan, type SideHasher } from '../sync/checksum';
import { withBookmark } from './bookmarks';
import { toFatal, writeFatal } from './fatal';
import { engineOptions, jobTarget, openJobEngine, resolveOperands } from './jobSetup';
import { nonNegativeInt } from './optionParsers';
import { addConnectionOptions, type CliOptions } from './program';
import { SIGNAL_EXIT_CODES, guardSignals } from './signals';
import { nothingToDo, planJsonLines, planLines, upToDateLines } from './syncOutput';

/** The options of `sync`, as commander parses them (the connection options are get's and put's). */
export interface SyncOptions extends Omit<CliOptions, 'verify' | 'resume' | 'clobber' | 'progress'> {
  dryRun?: boolean;
  delete?: boolean;
  maxDelete?: number;
  sizeOnly?: boolean;
  /** `--checksum`: true, or `'reread'` (a server that cannot hash is read back). */
  checksum?: boolean | 'reread';
  /** `--modify-window`, ms. */
  modifyWindow?: number;
  /** `--backup-dir`: deleted and replaced files go there (on DEST's side). */
  backupDir?: string;
  progress?: boolean;
  /** `--two-way`: changes on either side go to the other (cli/syncTwoWay.ts). */
  twoWay?: boolean;
  /** `--watch`: after the sync, local changes are uploaded as they settle (cli/syncWatch.ts). */
  watch?: boolean;
}

const SYNC_EXAMPLES = `
Examples:
  sluice sync -n ./site sftp://alice@host/var/www   # what would change
  sluice sync -n --delete sftp://host/data ./backup # with deletions
  sluice sync -n --exclude '*.tmp' --exclude /build/ ./src sftp://host/src
  sluice sync -n --include '*.jpg' sftp://host/photos ./photos # jpgs only
  sluice sync --delete --backup-dir /srv/old ./site sftp://host/srv/www
  sluice sync --two-way ./notes sftp://host/notes # both ways, conflicts kept
  sluice sync --watch --delete ./site sftp://host/www # then keep it up to date
Filters: first match wins; '*.log' any depth, '/build' at the top only,
'tmp/' folders only, '**' across folders; see docs/cli.md "sync".
A run killed at any point and run again finishes the same plan: what
arrived is found the same, partial files resume. Deletions run only after
every copy is committed, never after a listing error.`;

/**
 * `--modify-window`: milliseconds, or a number with `ms` or `s` (rclone writes `2s`).
 * @throws InvalidArgumentError for anything else
 */
export function parseModifyWindow(v: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s)?$/.exec(v.trim());
  if (!m) throw new InvalidArgumentError('expected a time such as 2s, 1500ms or 2000 (ms)');
  return Math.round(Number(m[1]) * (m[2] === 's' ? 1000 : 1));
}

/** Remote folders listed at once over the engine's pool (sync/remoteListing.ts foldersAtOnce). */
function remoteFoldersAtOnce(engine: Engine): number {
  return foldersAtOnce(engine instanceof PoolEngine ? engine.connectionPool.lanes().length : 1);
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

/** What is refused before connecting. @throws SluiceError USAGE */
function refuseUnbuilt(o: SyncOptions): void {
  if (o.checksum && o.sizeOnly) throw new SluiceError('USAGE', '--checksum and --size-only: choose one');
  if (o.backupDir === '') throw new SluiceError('USAGE', '--backup-dir needs a folder');
  if (o.twoWay && (o.checksum || o.backupDir !== undefined))
    throw new SluiceError('USAGE', '--two-way does not take --checksum or --backup-dir yet');
  if (o.watch && (o.twoWay || o.dryRun)) throw new SluiceError('USAGE', '--watch does not go with --two-way or -n');
}

/**
 * Each side's SHA-256 of a file for `--checksum`: the server's by hashRemote (check-file-name, sha256sum over exec,
 * else a re-read, which checksumPlan refuses unless asked), the local one by hashLocal; as [SRC, DEST].
 */
function hashersOf(engine: Engine, job: SyncJob, remoteRoot: string): [SideHasher, SideHasher] {
  if (!(engine instanceof PoolEngine)) throw new SluiceError('USAGE', '--checksum needs a connection pool');
  const pool = engine.connectionPool;
  const remote: SideHasher = async (rel, size) => {
    const h = await pool.call('hashRemote', { path: path.posix.join(remoteRoot, rel), size, allowExec: true });
    return { sha256: h.sha256, reread: h.method === 'reread', why: h.why };
  };
  const local: SideHasher = async (rel) => ({
    sha256: await pool.call('hashLocal', { path: path.join(job.localRoot, ...rel.split('/')) }),
    reread: false,
  });
  return job.direction === 'put' ? [local, remote] : [remote, local];
}

/** The local side's listing, started before the connection is made (it needs nothing from the server). */
function listLocalEarly(job: SyncJob, rules: FilterRule[], signal: AbortSignal): Promise<Listing> {
  const local = listLocalTree(job.localRoot, { filter: compileFilters(rules), signal });
  local.catch(() => undefined);
  return local;
}

/**
 * Both sides listed, as [SRC, DEST]: the local one already under way (listLocalEarly).
 * @throws SluiceError NO_SUCH_FILE when SRC does not exist
 */
async function listBoth(
  engine: Engine,
  job: SyncJob,
  local: Promise<Listing>,
  r: { rules: FilterRule[]; signal: AbortSignal },
): Promise<[Listing, Listing, string]> {
  const limits = { filter: compileFilters(r.rules), signal: r.signal };
  const remoteRoot = await expandRemoteHome(engine, job.remoteRoot);
  const [remote, localListing] = await Promise.all([
    // Each folder costs OPENDIR, READDIRs and CLOSE: many at once hide the round trips (the pool pipelines them).
    listRemoteTree(listerOf(engine), remoteRoot, { ...limits, concurrency: remoteFoldersAtOnce(engine) }),
    local,
  ]);
  const [src, dest] = job.direction === 'put' ? [localListing, remote] : [remote, localListing];
  if (!src.rootExists) {
    const where = job.direction === 'put' ? job.localRoot : `${remoteRoot} on the server`;
    throw new SluiceError('NO_SUCH_FILE', `SRC ${where} does not exist`);
  }
  return [src, dest, remoteRoot];
}

/** `--backup-dir` as an absolute path on DEST's side (a remote one is taken as typed: absolute or from the login). */
function backupRoot(dir: string | undefined, remoteDest: boolean): string | undefined {
  if (dir === undefined) return undefined;
  return remoteDest ? dir : path.resolve(dir);
}

/** Prints the plan of a dry run. */
function printPlan(plan: SyncPlan, o: SyncOptions): void {
  const width = process.stdout.isTTY ? process.stdout.columns || 80 : 80;
  const lines = o.json ? planJsonLines(plan) : planLines(plan, { verbose: o.verbose, width });
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Says what the listings left out and could not list; @returns the exit code (listing errors are not 0). */
function listingProblems(plan: SyncPlan, src: Listing, dest: Listing, o: SyncOptions): number {
  const json = o.json === true;
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

/** `--two-way`: the run is cli/syncTwoWay.ts's (loaded only then); `setHalt` gets what stops its output. */
async function twoWaySync(
  engine: Engine,
  job: SyncJob,
  r: { o: CliOptions; given: SyncOptions; rules: FilterRule[]; signal: AbortSignal },
  setHalt: (halt: () => void) => void,
): Promise<number> {
  const { runTwoWaySync } = await import('./syncTwoWay');
  return runTwoWaySync({
    engine,
    lister: listerOf(engine),
    target: jobTarget(job.spec, r.o),
    localRoot: job.localRoot,
    remoteRoot: job.remoteRoot,
    rules: r.rules,
    options: r.given,
    signal: r.signal,
    onOutput: (out) => setHalt(() => out.halt()),
  });
}

/** `--watch` after a run: cli/syncWatch.ts (loaded only then); ends by throwing (ABORTED on Ctrl+C). */
async function watchAfter(
  engine: Engine,
  job: SyncJob,
  r: { o: CliOptions; eo: EngineOptions; given: SyncOptions; rules: FilterRule[]; remoteRoot: string },
  signal: AbortSignal,
): Promise<Engine> {
  const { watchAndUpload } = await import('./syncWatch');
  return watchAndUpload({
    engine,
    connect: () => openJobEngine({ ...r.eo, prefetch: {} }, job.spec, r.o),
    listerOf,
    localRoot: path.resolve(job.localRoot),
    remoteRoot: r.remoteRoot,
    rules: r.rules,
    delete: r.given.delete,
    sizeOnly: r.given.sizeOnly,
    modifyWindow: r.given.modifyWindow,
    retries: r.o.retries,
    signal,
  });
}

/**
 * Runs the plan: a plan with nothing to copy, create or delete does nothing at all (no batch is made, the queue
 * database is not even opened), any other runs as one batch (cli/syncRun.ts, loaded only then).
 * @returns the run's exit code
 */
async function runPlan(
  engine: Engine,
  job: SyncJob,
  r: {
    o: CliOptions;
    given: SyncOptions;
    plan: SyncPlan;
    remoteRoot: string;
    destExists: boolean;
    signal: AbortSignal;
  },
  setHalt: (halt: () => void) => void,
): Promise<number> {
  if (nothingToDo(r.plan) && r.destExists) {
    upToDateLines(r.given.json === true);
    return 0;
  }
  const { runSyncPlan } = await import('./syncRun');
  const localRoot = path.resolve(job.localRoot);
  const put = job.direction === 'put';
  return runSyncPlan({
    engine,
    target: jobTarget(job.spec, r.o),
    direction: job.direction,
    srcRoot: put ? localRoot : r.remoteRoot,
    destRoot: put ? r.remoteRoot : localRoot,
    plan: r.plan,
    backupDir: backupRoot(r.given.backupDir, put),
    destRootExists: r.destExists,
    json: r.given.json,
    verbose: r.given.verbose,
    progress: r.given.progress !== false,
    signal: r.signal,
    onOutput: (out) => setHalt(() => out.halt()),
  });
}

/** Runs one `sync`; every failure is reported here. @returns the exit code */
async function runSync(src: string, dest: string, given: SyncOptions, rules: FilterRule[]): Promise<number> {
  const abort = new AbortController();
  let engine: Engine | null = null;
  let halt = (): void => undefined;
  const guard = guardSignals({
    cancel: () => {
      halt();
      abort.abort();
    },
    cleanupPending: () => engine !== null,
    write: (text) => process.stderr.write(`${text}\n`),
    quit: (exitCode) => process.exit(exitCode),
  });
  try {
    refuseUnbuilt(given);
    const job = syncJob(src, dest);
    if (given.watch && job.direction !== 'put') throw new SluiceError('USAGE', '--watch watches SRC: it must be local');
    if (given.backupDir !== undefined && !given.delete)
      throw new SluiceError('USAGE', '--backup-dir keeps what --delete removes: add --delete');
    const o = withBookmark(
      { ...given, verify: 'size', resume: false, clobber: true, progress: false },
      job.spec.bookmark,
    );
    const quiet = { info: (m: string) => process.stderr.write(`${terminalText(m)}\n`), event: () => undefined };
    const eo = engineOptions({ direction: job.direction, spec: job.spec, sources: [], dest: '' }, o, quiet);
    const local = given.twoWay ? undefined : listLocalEarly(job, rules, abort.signal);
    engine = await openJobEngine({ ...eo, prefetch: {} }, job.spec, o);
    if (given.twoWay || !local)
      return await twoWaySync(engine, job, { o, given, rules, signal: abort.signal }, (h) => (halt = h));
    const [s, d, remoteRoot] = await listBoth(engine, job, local, { rules, signal: abort.signal });
    let plan = planSync(s, d, {
      sizeOnly: given.sizeOnly,
      modifyWindowMs: given.modifyWindow,
      delete: given.delete,
      maxDelete: given.maxDelete,
    });
    if (given.checksum) {
      const [hs, hd] = hashersOf(engine, job, remoteRoot);
      plan = await checksumPlan(plan, hs, hd, given.checksum === 'reread', abort.signal);
    }
    if (given.dryRun) printPlan(plan, given);
    if (plan.refused) {
      listingProblems(plan, s, d, given);
      return writeFatal(toFatal(new SluiceError('USAGE', plan.refused)), given.json === true);
    }
    if (given.dryRun) return listingProblems(plan, s, d, given);
    if (given.json) process.stdout.write(`${planJsonLines(plan, false).join('\n')}\n`);
    const ran = await runPlan(
      engine,
      job,
      { o, given, plan, remoteRoot, destExists: d.rootExists, signal: abort.signal },
      (h) => (halt = h),
    );
    const listed = listingProblems(plan, s, d, given);
    if (given.watch && !(listed || ran))
      engine = await watchAfter(engine, job, { o, eo, given, rules, remoteRoot }, abort.signal);
    return listed || ran;
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
    abort.abort(); // a local listing still going (the connection failed) stops
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
    .description('make DEST like SRC (a local folder and an sftp:// URL): copy what differs, optionally delete')
    .argument('<src>')
    .argument('<dest>')
    .usage('[options] <src> <dest>')
    .option('--two-way', 'changes on either side go to the other; a stored listing tells what was deleted')
    .option('--watch', 'after the sync, upload local changes as they settle (deletes only with --delete); Ctrl+C stops')
    .option('-n, --dry-run', 'print the plan (each path, its action and reason, counts and bytes); change nothing')
    .option('--delete', 'delete from DEST what SRC does not have (never after a listing error)')
    .option('--max-delete <n>', 'refuse a plan that deletes more than N paths (nothing is done)', nonNegativeInt)
    .option('--backup-dir <dir>', 'with --delete: move deleted and replaced files into DIR (on DEST) instead')
    .option('--size-only', 'files of the same size are the same, whatever their times')
    .option('--modify-window <time>', 'times this close count as equal (2s, 1500ms; default 0)', parseModifyWindow)
    .addOption(
      new Option(
        '--checksum [reread]',
        "files of the same size compared by SHA-256, hashed by the server (check-file, sha256sum); 'reread' lets it read files back",
      ).choices(['reread']),
    )
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
    .option('--json', 'the plan (-n) or the run as JSON lines on stdout')
    .option('--no-progress', 'no progress bar')
    .option('-v, --verbose', 'list paths found the same and those left out too');
  addConnectionOptions(cmd)
    .addHelpText('after', SYNC_EXAMPLES)
    .action(async (src: string, dest: string, o: SyncOptions) => {
      program.setOptionValue('exitCode', await runSync(src, dest, o, rules));
    });
}
