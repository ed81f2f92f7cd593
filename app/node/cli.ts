/**
 * The `sluice` command line: `sluice get|put [-r] SOURCE… DEST` over the same engine as the desktop app.
 * Exit codes: 0 all done and verified, 1 some transfer failed, 2 usage, 3 authentication, 4 host key
 * refused, 5 remote not found or permission denied, 6 local error, 130 interrupted (SIGINT), 143 terminated
 * (SIGTERM), 129 hangup (SIGHUP).
 *
 * The pieces live in ./cli/: the grammar (program.ts), URLs (remoteSpec.ts), prompts (prompt.ts), event output and
 * progress bar (output.ts, progressBar.ts), units (units.ts), the summary (summary.ts), fatal errors (fatal.ts),
 * signals (signals.ts), the resume journal (resume.ts) and the tries after a transient failure (retry.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { CommanderError } from 'commander';
import { SluiceError, exitCodeFor, type ErrorCode } from './errors';
import { toFatal, wantsJson, writeFatal, type FatalError } from './cli/fatal';
import { makeOutput, type Output } from './cli/output';
import { buildProgram, transferRequest, type CliOptions } from './cli/program';
import { askHostKey, isInteractive, terminalPrompter } from './cli/prompt';
import { formatRemote, parseRemoteUrl, remoteOperandHint, type RemoteSpec } from './cli/remoteSpec';
import { SIGNAL_EXIT_CODES, guardSignals, type HandledSignal } from './cli/signals';
import { formatSummary } from './cli/summary';
import { formatBytes } from './cli/units';
import { openEngine, type Engine, type EngineOptions } from './engine/engine';
import { openRunJournal } from './cli/resume';
import { RetryingJob } from './cli/retry';
import { DEFAULT_RETRY_POLICY } from '../common/retry';
import type { TransferReport } from './transfer/types';

export { parseRate, parseSize, parseWindow } from './cli/program';

/** The USAGE error for an operand that should be an sftp:// URL, with a hint when one applies (remoteOperandHint). */
function notAUrl(what: string, operand: string): SluiceError {
  const hint = remoteOperandHint(operand, (p) => fs.existsSync(p));
  return new SluiceError('USAGE', `${what}, got ${JSON.stringify(operand)}${hint ? `: ${hint}` : ''}`);
}

/** Splits operands into the remote target (one host) and plain paths. @throws SluiceError('USAGE') */
function resolveOperands(direction: 'get' | 'put', sources: string[], dest: string): { spec: RemoteSpec; sources: string[]; dest: string } {
  if (direction === 'put') {
    const spec = parseRemoteUrl(dest);
    if (!spec) throw notAUrl('put needs an sftp:// URL as the destination', dest);
    for (const s of sources) if (parseRemoteUrl(s)) throw new SluiceError('USAGE', `put copies local files: ${s} is a URL (use get)`);
    return { spec, sources, dest: spec.path };
  }
  if (parseRemoteUrl(dest)) throw new SluiceError('USAGE', 'get copies to a local path: the destination is a URL (use put)');
  let spec: RemoteSpec | null = null;
  const paths: string[] = [];
  for (const s of sources) {
    const p = parseRemoteUrl(s);
    if (!p) throw notAUrl('get needs sftp:// URLs as sources', s);
    if (spec && (p.host !== spec.host || p.port !== spec.port || (p.user ?? '') !== (spec.user ?? ''))) {
      throw new SluiceError('USAGE', 'all sources of one get must be on the same server and user');
    }
    spec ??= p;
    paths.push(p.path);
  }
  return { spec: spec!, sources: paths, dest };
}

/** Exit code for a finished job: 0, or the shared category of every failure (else 1). */
export function exitCodeForReport(r: TransferReport): number {
  if (!r.failed.length) return 0;
  const codes = new Set(r.failed.map((f) => exitCodeFor(f.code as ErrorCode)));
  return codes.size === 1 ? [...codes][0] : 1;
}

/**
 * The job's first requests, sent with the SFTP set-up (ConnectParams.prefetch): a get stats its sources and opens
 * a single one on every channel; a put stats its destination and, when a source file will be cut into segments,
 * runs the out-of-order probe in the destination's folder (its parent when DEST names a file or a new folder).
 */
function setupRequests(direction: 'get' | 'put', sources: string[], dest: string, o: CliOptions): EngineOptions['prefetch'] {
  if (direction === 'get') {
    const stat = sources.filter((p) => p !== '');
    return { stat, read: stat.length === 1 && sources.length === 1 && !o.recursive ? stat : [] };
  }
  if (dest === '') return {};
  const segmented = sources.some((src) => {
    try {
      const st = fs.statSync(src);
      return st.isFile() && st.size > o.segmentSize;
    } catch {
      return false;
    }
  });
  return { stat: [dest], probeDir: segmented ? (dest.endsWith('/') ? dest : path.posix.dirname(dest)) : undefined };
}

/** The engine to open for a job: the server, authentication, host-key handling and the tuning options. */
function engineOptions(job: { direction: 'get' | 'put'; spec: RemoteSpec; sources: string[]; dest: string }, o: CliOptions, out: Output): EngineOptions {
  const { spec } = job;
  const interactive = isInteractive() && !o.batch;
  const prompter = interactive ? terminalPrompter() : undefined;
  return {
    host: spec.host,
    port: spec.port,
    username: spec.user,
    auth: { identityFiles: o.identity, useAgent: o.agent ? undefined : false, prompter },
    algorithms: { cipher: o.cipher, kex: o.kex, hmac: o.mac, serverHostKey: o.hostKeyAlgorithms },
    hostKeyMode: o.acceptNew ? 'accept-new' : interactive ? 'ask' : 'strict',
    hostKeyPrompt: prompter && ((v) => askHostKey(prompter, v.identity)),
    askPassword: prompter ? () => prompter.secret(`${spec.user ?? ''}@${spec.host}'s password: `) : undefined,
    connections: o.connections,
    channels: o.channels,
    requests: o.requests,
    segmentSize: o.segmentSize,
    channelWindow: o.window,
    keepaliveIntervalMs: o.keepalive,
    keepaliveCountMax: o.keepaliveCount,
    readyTimeoutMs: o.connectTimeout,
    rateLimit: o.limit,
    prefetch: setupRequests(job.direction, job.sources, job.dest, o),
    reserveExecSession: o.verify === 'sha256',
    onWarning: (m) => out.info(`sluice: warning: ${m}`),
    onEvent: (e) => out.event(e),
  };
}

/** `-v`: what was negotiated and how the pool is laid out. */
function connectedLine(spec: RemoteSpec, engine: Engine): string {
  const n = engine.traits.negotiated;
  const pool = engine.pool;
  return `connected to ${formatRemote(spec)}: kex ${n.kex}, host key ${n.serverHostKey}, cipher ${n.cipher}, mac ${n.mac}; auth ${pool.authMethod}; `
    + `pool planned: ${pool.connections} connection(s) × ${pool.channels} channel(s), window ${formatBytes(pool.channelWindow)} per channel; `
    + `up now: ${pool.up.map((c) => `connection ${c.connection} with ${c.channels} channel(s)`).join(', ')}`
    + (pool.rttMs !== undefined ? ` (RTT ${pool.rttMs.toFixed(1)} ms)` : '');
}

/** The fatal error a run ends with; after a signal, that signal's exit code and name. */
function fatalFor(e: unknown, signal: HandledSignal | undefined): FatalError {
  const f = toFatal(e, signal && SIGNAL_EXIT_CODES[signal]);
  return signal && f.code === 'ABORTED' ? { ...f, message: `${f.message} (${signal})` } : f;
}

/** Prints the end of a finished job: the report line under --json, else the summary. */
function printReport(report: TransferReport, out: Output, json: boolean): void {
  out.done();
  if (json) process.stdout.write(`${JSON.stringify({ type: 'report', ...report })}\n`);
  else for (const line of formatSummary(report, out.failedTargets)) process.stderr.write(`${line}\n`);
}

/** The run's tries (cli/retry.ts): each connects, opens the journal and transfers. */
function retryingJob(direction: 'get' | 'put', operands: string[], o: CliOptions, out: Output): RetryingJob {
  const { spec, sources, dest } = resolveOperands(direction, operands.slice(0, -1), operands[operands.length - 1]);
  const say = (line: string): void => out.info(line);
  return new RetryingJob({
    connect: () => openEngine(engineOptions({ direction, spec, sources, dest }, o, out)),
    connected: (engine) => { if (o.verbose) say(connectedLine(spec, engine)); },
    openJournal: () => (o.resume ? openRunJournal(direction, spec, sources, dest, say) : null),
    request: transferRequest(direction, sources, dest, o),
    say,
    retrying: (n) => out.retry(n),
  }, { policy: { ...DEFAULT_RETRY_POLICY, tries: Math.max(1, o.retries) } });
}

/** Runs one get or put; every failure is reported here (fatal.ts). @returns the exit code */
async function run(direction: 'get' | 'put', operands: string[], o: CliOptions): Promise<number> {
  const json = o.json === true;
  const abort = new AbortController();
  let job: RetryingJob | null = null;
  let out: Output | null = null;
  const guard = guardSignals({
    cancel: () => abort.abort(),
    cleanupPending: () => job !== null && job.engine !== null,
    write: (text) => process.stderr.write(`${text}\n`),
    quit: (exitCode, message) => {
      job?.abandon();
      out?.done();
      if (json) process.stdout.write(`${JSON.stringify({ type: 'error', code: 'ABORTED', message, exitCode } satisfies FatalError)}\n`);
      process.exit(exitCode);
    },
  });
  try {
    if (operands.length < 2) throw new SluiceError('USAGE', `${direction} needs at least one SOURCE and a DEST`);
    out = makeOutput({ ...o, mayRetry: o.retries > 1 }, direction === 'put' ? 'up  ' : 'down');
    job = retryingJob(direction, operands, o, out);
    const report = await job.run(abort.signal);
    printReport(report, out, json);
    return guard.exitCode() ?? exitCodeForReport(report);
  } catch (e) {
    out?.done();
    return writeFatal(fatalFor(e, guard.received), json);
  } finally {
    out?.done();
    await job?.close();
    guard.dispose();
  }
}

/**
 * Runs the CLI.
 * @param argv process.argv-style (node, script, args…)
 * @returns the exit code
 */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram(run);
  try {
    if (argv.length <= 2) {
      program.outputHelp();
      return 2;
    }
    await program.parseAsync(argv);
    return (program.getOptionValue('exitCode') as number | undefined) ?? 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.exitCode === 0) return 0;
      // Commander has printed its message (and the usage hint) on stderr.
      const f: FatalError = { type: 'error', code: 'USAGE', message: e.message.replace(/^error: /, ''), exitCode: 2 };
      return writeFatal(f, wantsJson(argv), { humanAlreadyShown: true });
    }
    return writeFatal(toFatal(e), wantsJson(argv));
  }
}

/** The path of the compiled CLI, for tests and benchmarks that spawn it. */
export const CLI_BIN = path.join(__dirname, '..', '..', '..', 'bin', 'sluice.js');
