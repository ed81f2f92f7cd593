/**
 * `sluice get` and `sluice put`: one transfer run with its tries (cli/retry.ts), its journal (cli/resume.ts), its
 * output (cli/output.ts) and its signals (cli/signals.ts). Loaded by cli.ts only when `get` or `put` runs.
 */
import fs from 'node:fs';
import { SluiceError, displayText, exitCodeFor, type ErrorCode } from '../errors';
import { toFatal, writeFatal, type FatalError } from './fatal';
import { makeOutput, type Output } from './output';
import { transferRequest, type CliOptions } from './program';
import { withBookmark } from './bookmarks';
import { connectedLine, engineOptions, jobTarget, openJobEngine, resolveOperands } from './jobSetup';
import { SIGNAL_EXIT_CODES, guardSignals, type HandledSignal } from './signals';
import { formatSummary } from './summary';
import { openRunJournal, recognizedGetDest } from './resume';
import { RetryingJob, keptMessage } from './retry';
import { CLOSED_PIPE_EXIT_CODE, onStdoutClosed, stdoutClosed } from './closedPipe';
import { DEFAULT_RETRY_POLICY } from '../../common/retry';
import type { TransferReport } from '../transfer/types';

/** Exit code for a finished job: 0, or the shared category of every failure (else 1). */
export function exitCodeForReport(r: TransferReport): number {
  if (!r.failed.length) return 0;
  const codes = new Set(r.failed.map((f) => exitCodeFor(f.code as ErrorCode)));
  return codes.size === 1 ? [...codes][0] : 1;
}

/**
 * The fatal error a run ends with; after a signal, that signal's exit code and name; `keptBytes` (the journal keeps
 * them for the next run of the command) said in the same line.
 */
function fatalFor(e: unknown, signal: HandledSignal | undefined, keptBytes: number): FatalError {
  const f = toFatal(e, signal && SIGNAL_EXIT_CODES[signal]);
  const message = signal && f.code === 'ABORTED' ? `${f.message} (${signal})` : f.message;
  return { ...f, message: keptBytes > 0 ? `${message}; ${keptMessage(keptBytes)}` : message };
}

/** Prints the end of a finished job: the report line under --json, else the summary. */
function printReport(report: TransferReport, out: Output, json: boolean): void {
  out.done();
  if (json) process.stdout.write(`${JSON.stringify({ type: 'report', ...report })}\n`);
  else for (const line of formatSummary(report, out.notes)) process.stderr.write(`${line}\n`);
}

/** The run's tries (cli/retry.ts): each connects, opens the journal and transfers. */
function retryingJob(direction: 'get' | 'put', operands: string[], given: CliOptions, out: Output): RetryingJob {
  const {
    spec,
    sources,
    dest: typed,
  } = resolveOperands(direction, operands.slice(0, -1), operands[operands.length - 1]);
  const o = withBookmark(given, spec.bookmark);
  const say = (line: string): void => out.info(line);
  // The journal and the queue know the server as resolved, and a get's target however its destination is written.
  const target = o.resume ? jobTarget(spec, o) : undefined;
  const dest = target && direction === 'get' ? recognizedGetDest(target, sources, typed) : typed;
  return new RetryingJob(
    {
      connect: () => openJobEngine(engineOptions({ direction, spec, sources, dest }, o, out), spec, o),
      connected: (engine) => {
        if (o.verbose) say(connectedLine(spec, engine));
      },
      openJournal: () => (target ? openRunJournal(direction, target, sources, dest, say) : null),
      request: transferRequest(direction, sources, dest, o),
      onEvent: (e) => out.event(e),
      say,
      retrying: (n) => out.retry(n),
    },
    { policy: { ...DEFAULT_RETRY_POLICY, tries: Math.max(1, o.retries) } },
  );
}

/**
 * A put's local folder without `-r`, refused before connecting (the engine would refuse it too, after the login).
 * @throws SluiceError USAGE `SOURCE is a folder (use -r)`
 */
function refuseFolderWithoutRecursive(direction: 'get' | 'put', operands: string[], o: CliOptions): void {
  if (direction !== 'put' || o.recursive) return;
  for (const src of operands.slice(0, -1)) {
    let folder = false;
    try {
      folder = fs.statSync(src).isDirectory();
    } catch {
      // missing or unreadable: the engine names the failure with the server's context
    }
    if (folder) throw new SluiceError('USAGE', `${displayText(src, 500)} is a folder (use -r)`);
  }
}

/** Runs one get or put; every failure is reported here (fatal.ts). @returns the exit code */
export async function run(direction: 'get' | 'put', operands: string[], o: CliOptions): Promise<number> {
  const json = o.json === true;
  const abort = new AbortController();
  let job: RetryingJob | null = null;
  let out: Output | null = null;
  const guard = guardSignals({
    cancel: () => abort.abort(),
    cleanupPending: () => job !== null && job.engine !== null,
    write: (text) => {
      out?.halt();
      process.stderr.write(`${text}\n`);
    },
    quit: (exitCode, message) => {
      job?.abandon();
      out?.done();
      if (json)
        process.stdout.write(
          `${JSON.stringify({ type: 'error', code: 'ABORTED', message, exitCode } satisfies FatalError)}\n`,
        );
      process.exit(exitCode);
    },
  });
  // `--json … | head -1`: the reader is gone, the job is cancelled (temporary files removed) and ends quietly.
  const unwatchPipe = onStdoutClosed(() => abort.abort());
  try {
    if (operands.length < 2) throw new SluiceError('USAGE', `${direction} needs at least one SOURCE and a DEST`);
    refuseFolderWithoutRecursive(direction, operands, o);
    out = makeOutput({ ...o, mayRetry: o.retries > 1 }, direction === 'put' ? 'up  ' : 'down');
    job = retryingJob(direction, operands, o, out);
    const report = await job.run(abort.signal);
    if (stdoutClosed()) return CLOSED_PIPE_EXIT_CODE;
    printReport(report, out, json);
    return guard.exitCode() ?? exitCodeForReport(report);
  } catch (e) {
    out?.done();
    if (stdoutClosed()) return CLOSED_PIPE_EXIT_CODE;
    return writeFatal(fatalFor(e, guard.received, job?.keptBytes ?? 0), json);
  } finally {
    unwatchPipe();
    out?.done();
    await job?.close();
    guard.dispose();
  }
}
