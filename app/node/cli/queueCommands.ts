/**
 * The grammar and actions of `sluice queue add|list|run|pause|resume|cancel|retry|clear` (issue #14), over the queue
 * database shared with the desktop app (`<data folder>/queue.db`; SLUICE_HOME overrides the folder).
 */
import { Command } from 'commander';
import type { JobState } from '../../common/model/job';
import { QueueStore } from '../stores/queueStore';
import type { QueuedJob } from '../stores/queueRows';
import { toFatal, writeFatal } from './fatal';
import { parseRate, positiveInt } from './optionParsers';
import { addOperands, addTransferOptions, type CliOptions } from './program';
import { addToQueue, changeState, dropPartialCopies, QUEUE_ORIGIN, resolveJobIds, type ChangeResult } from './queueOps';
import { QueueRunner, type QueueRunOptions } from './queueRunner';
import { formatRemote } from '../engine/remoteSpec';
import { SIGNAL_EXIT_CODES, guardSignals } from './signals';
import { formatBytes, plural } from './units';

const QUEUE_HELP = `
The queue is shared with the desktop app and kept in <data folder>/queue.db
(SLUICE_HOME overrides the folder). Jobs keep the options they were added with;
a killed or interrupted run resumes where it stopped.
Ids: the first 8 characters that \`sluice queue list\` shows are enough (4 at
least).

Examples:
  sluice queue add put -r ./photos sftp://alice@host/srv/photos/
  sluice queue add get sftp://host/var/backups/db.dump ./dumps/
  sluice queue run --limit 10M   # works the queue until it is empty
  sluice queue pause 3f2a9c1e     # from another terminal: the run stops that
                                  # job and keeps its partial copy
  sluice queue resume --all
  sluice queue clear              # forgets done, failed and cancelled jobs`;

/**
 * Runs `action` on the opened queue store, then closes it; errors become the CLI's fatal error. @returns the exit code
 */
async function withStore(json: boolean, action: (store: QueueStore) => number | Promise<number>): Promise<number> {
  let store: QueueStore | undefined;
  try {
    store = QueueStore.open();
    return await action(store);
  } catch (e) {
    return writeFatal(toFatal(e), json);
  } finally {
    store?.close();
  }
}

/** Where a job goes, as a URL for a put and a local path for a get. */
function route(job: QueuedJob): string {
  const t = job.target;
  const server =
    'host' in t
      ? formatRemote({ host: t.host, port: t.port, user: t.user || undefined, path: '' })
      : `site ${t.siteId}`;
  return job.direction === 'upload' ? `${job.source} → ${server}${job.dest}` : `${server}${job.source} → ${job.dest}`;
}

/** The columns of `queue list`, as {@link listLine} lays them out. */
export const LIST_HEADER = `${'ID'.padEnd(8)}  ${'STATE'.padEnd(9)} CMD  ${'PROGRESS'.padEnd(24)} ROUTE`;

/** A job's bytes: done/total and the percentage; `-` while its size is not known yet (before its run has looked). */
function progressText(job: QueuedJob): string {
  const unfinished = job.state === 'queued' || job.state === 'running' || job.state === 'paused';
  if (unfinished && job.bytesTotal === 0 && job.bytesDone === 0) return '-';
  const pct = job.bytesTotal > 0 ? ` ${Math.floor((100 * job.bytesDone) / job.bytesTotal)}%` : '';
  return `${formatBytes(job.bytesDone)}/${formatBytes(job.bytesTotal)}${pct}`;
}

/** What a job not made by `queue add` is: the app's, or a get/put's record (resumable while it is unfinished). */
function originText(job: QueuedJob): string {
  if (job.options.origin === QUEUE_ORIGIN) return '';
  if (job.options.origin !== 'cli') return ' (app)';
  return job.state === 'done' || job.state === 'cancelled'
    ? ' (a get/put)'
    : ' (an interrupted get/put: run it again to resume)';
}

/** One human line of `queue list`. */
export function listLine(job: QueuedJob): string {
  const error = job.state === 'failed' && job.error ? `: ${job.error.message}` : '';
  return `${job.id.slice(0, 8)}  ${job.state.padEnd(9)} ${job.direction === 'upload' ? 'put' : 'get'}  ${progressText(job).padEnd(24)} ${route(job)}${originText(job)}${error}`;
}

/** `queue list`: every job in queue order, a page at a time (fast at 100,000 jobs). */
function listJobs(store: QueueStore, o: { json?: boolean; state?: string[]; first?: number }): number {
  const states = o.state as JobState[] | undefined;
  let left = o.first ?? Infinity;
  const write = (text: string): boolean => process.stdout.write(text);
  if (!o.json && store.jobs.count(states) > 0) write(`${LIST_HEADER}\n`);
  for (
    let page = store.jobs.list({ limit: Math.min(5000, left), states });
    ;
    page = store.jobs.list({ limit: Math.min(5000, left), after: page.next, states })
  ) {
    write(page.jobs.map((j) => `${o.json ? JSON.stringify({ type: 'job', ...j }) : listLine(j)}\n`).join(''));
    left -= page.jobs.length;
    if (!page.next || left <= 0) break;
  }
  if (!o.json && store.jobs.count() === 0) process.stderr.write('sluice: the queue is empty\n');
  return 0;
}

/**
 * Prints what a state change did: the jobs changed, and each named job left alone with why; under `--all` the jobs
 * left alone are counted, not listed (most are finished ones, which no state change concerns).
 * @returns 0, or 1 when a named job could not change
 */
function reportChange(verb: string, r: ChangeResult, json: boolean, all: boolean, extra = ''): number {
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ type: verb, changed: r.changed.map((j) => j.id), unchanged: r.unchanged.map((u) => ({ id: u.job.id, why: u.why })) })}\n`,
    );
  } else if (all) {
    const alone = r.unchanged.length
      ? ` (${plural(r.unchanged.length, 'other job')} left as ${r.unchanged.length === 1 ? 'it is' : 'they are'})`
      : '';
    process.stderr.write(`sluice: ${verb}: ${plural(r.changed.length, 'job')}${alone}${extra}\n`);
  } else {
    process.stderr.write(`sluice: ${verb}: ${plural(r.changed.length, 'job')}${extra}\n`);
    for (const u of r.unchanged) process.stderr.write(`sluice: ${u.job.id.slice(0, 8)} left alone: ${u.why}\n`);
  }
  return !all && r.unchanged.length > 0 && r.changed.length === 0 ? 1 : 0;
}

/** `queue pause|resume|cancel|retry`. */
function stateCommand(
  program: Command,
  queue: Command,
  name: string,
  description: string,
  act: (store: QueueStore, ids: string[]) => { r: ChangeResult; extra?: string },
): void {
  queue
    .command(name)
    .description(description)
    .argument('[ids...]', 'job ids (or their first characters)')
    .option('--all', 'every job of the queue')
    .option('--json', 'one JSON line with the jobs changed')
    .action(async (ids: string[], o: { all?: boolean; json?: boolean }) => {
      program.setOptionValue(
        'exitCode',
        await withStore(o.json === true, (store) => {
          const { r, extra } = act(store, resolveJobIds(store, ids, o.all === true));
          return reportChange(name, r, o.json === true, o.all === true, extra);
        }),
      );
    });
}

/** `queue run`: works the queue until nothing is runnable; Ctrl-C puts the running jobs back in line. */
async function runCommand(o: QueueRunOptions): Promise<number> {
  const stop = new AbortController();
  let runner: QueueRunner | undefined;
  const guard = guardSignals({
    cancel: () => stop.abort(),
    cleanupPending: () => true,
    write: (text) => {
      runner?.halt();
      process.stderr.write(`${text}\n`);
    },
    quit: (exitCode) => {
      runner?.halt();
      process.exit(exitCode);
    },
  });
  try {
    const code = await withStore(o.json === true, (store) => (runner = new QueueRunner(store, o, stop.signal)).run());
    return guard.received ? SIGNAL_EXIT_CODES[guard.received] : code;
  } finally {
    guard.dispose();
  }
}

/** `queue add get|put`: the operands and options of get and put, stored as jobs instead of run. */
function addAddCommand(program: Command, queue: Command): void {
  const add = queue.command('add').description('add a get or put to the queue (same operands and options as get/put)');
  for (const direction of ['get', 'put'] as const) {
    addTransferOptions(addOperands(add.command(direction)), direction).action(
      async (operands: string[], o: CliOptions) => {
        program.setOptionValue(
          'exitCode',
          await withStore(o.json === true, (store) => {
            const jobs = addToQueue(store, direction, operands, o);
            if (o.json)
              process.stdout.write(
                `${JSON.stringify({ type: 'queued', batchId: jobs[0].batchId, jobs: jobs.map((j) => ({ id: j.id, source: j.source, dest: j.dest })) })}\n`,
              );
            else
              process.stderr.write(
                `sluice: queued ${plural(jobs.length, 'job')}: ${jobs.map((j) => j.id.slice(0, 8)).join(' ')} (sluice queue run works the queue)\n`,
              );
            return 0;
          }),
        );
      },
    );
  }
}

/** `queue list`: the jobs, as text or JSON lines. */
function addListCommand(program: Command, queue: Command): void {
  queue
    .command('list')
    .description('the jobs in queue order')
    .option('--json', 'one JSON line per job')
    .option(
      '--state <states>',
      'only these states, comma separated (queued, running, paused, done, failed, cancelled)',
      (v) => v.split(','),
    )
    .option('--first <n>', 'at most this many jobs', positiveInt)
    .action(async (o: { json?: boolean; state?: string[]; first?: number }) => {
      program.setOptionValue('exitCode', await withStore(o.json === true, (store) => listJobs(store, o)));
    });
}

/** `queue clear`: forgets the finished jobs. */
function addClearCommand(program: Command, queue: Command): void {
  queue
    .command('clear')
    .description('forget finished jobs (done, failed, cancelled)')
    .option('--json', 'one JSON line with the count')
    .action(async (o: { json?: boolean }) => {
      program.setOptionValue(
        'exitCode',
        await withStore(o.json === true, (store) => {
          const n = store.jobs.clearFinished();
          if (o.json) process.stdout.write(`${JSON.stringify({ type: 'cleared', jobs: n })}\n`);
          else process.stderr.write(`sluice: cleared ${plural(n, 'finished job')}\n`);
          return 0;
        }),
      );
    });
}

/** `queue pause|resume|retry|cancel`. */
function addStateCommands(program: Command, queue: Command): void {
  stateCommand(program, queue, 'pause', 'pause jobs (a running one stops and keeps its partial copy)', (s, ids) => ({
    r: changeState(s, ids, 'paused'),
  }));
  stateCommand(program, queue, 'resume', 'put paused jobs back in line', (s, ids) => ({
    r: changeState(s, ids, 'queued', ['paused']),
  }));
  stateCommand(program, queue, 'retry', 'put failed or cancelled jobs back in line', (s, ids) => ({
    r: changeState(s, ids, 'queued', ['failed', 'cancelled']),
  }));
  stateCommand(program, queue, 'cancel', 'cancel jobs and remove their partial copies', (s, ids) => {
    const r = changeState(s, ids, 'cancelled');
    const c = dropPartialCopies(s, r.changed);
    return {
      r,
      extra: c.remoteLater
        ? `; ${plural(c.remoteLater, 'remote partial file')} will be removed at the next connection to their server`
        : '',
    };
  });
}

/**
 * Adds `sluice queue …` to the program. Each action stores its exit code as the root program's `exitCode` option.
 */
export function addQueueCommands(program: Command): void {
  const queue = program
    .command('queue')
    .description('a persistent queue of transfers, shared with the desktop app')
    .addHelpText('after', QUEUE_HELP);
  addAddCommand(program, queue);
  addListCommand(program, queue);
  queue
    .command('run')
    .description('work the queue until no job is left to run (exit codes as get/put)')
    .option('--json', 'newline-delimited JSON events on stdout')
    .option('--no-progress', 'no progress bar')
    .option('-v, --verbose', 'more detail')
    .option('--batch', 'never prompt')
    .option('--accept-new', 'accept and save unknown host keys')
    .option('--limit <rate>', "speed limit for the run (e.g. 10M = 10 MiB/s; default: each job's own)", parseRate)
    .action(async (o: QueueRunOptions) => {
      program.setOptionValue('exitCode', await runCommand(o));
    });
  addStateCommands(program, queue);
  addClearCommand(program, queue);
}
