/**
 * The `sluice` command line: `sluice get|put [-r] SOURCE… DEST` over the same engine as the desktop app.
 * Exit codes: 0 all done and verified, 1 some transfer failed, 2 usage, 3 authentication, 4 host key
 * refused, 5 remote not found or permission denied, 6 local error, 130 interrupted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import cliProgress from 'cli-progress';
import { keyTypeLabel } from '../common/model/hostKey';
import { SluiceError, displayText, exitCodeFor, type ErrorCode } from './errors';
import { isInteractive, terminalPrompter } from './cli/prompt';
import { formatRemote, parseRemoteUrl, type RemoteSpec } from './cli/remoteSpec';
import { openSession } from './ssh/openSession';
import { learnedKeysMessage } from './ssh/hostKeys';
import { AUTO_TUNE, SESSION_DEFAULTS, SSH2_DEFAULT_WINDOW, WINDOW_TUNE, type Session, type SessionOptions } from './ssh/session';
import type { EngineEvent, TransferReport } from './transfer/types';

interface CliOptions {
  recursive?: boolean;
  identity?: string[];
  agent: boolean;
  batch?: boolean;
  acceptNew?: boolean;
  clobber: boolean;
  verify: 'size' | 'sha256';
  json?: boolean;
  verbose?: boolean;
  progress: boolean;
  cipher?: string[];
  kex?: string[];
  mac?: string[];
  hostKeyAlgorithms?: string[];
  connections?: number;
  channels?: number;
  requests: number;
  segmentSize: number;
  window?: number;
  keepalive: number;
  keepaliveCount: number;
  connectTimeout: number;
}

const EXAMPLES = `
Examples:
  sluice put ./big.iso sftp://alice@files.example.com/srv/isos/
  sluice put -r ./site sftp://alice@host:2222/var/www/       # folder into a folder
  sluice get sftp://alice@host/var/log/syslog ./syslog.txt    # single file to a new name
  sluice get -r --connections 4 sftp://host/data ./backup/   # parallel, 4 SSH connections
  sluice put --verify sha256 --json a.bin b.bin sftp://host/in/ > events.ndjson

URLs: sftp://[user@]host[:port]/path ('/abs/path', '/~/rel/to/home', or nothing for the login folder).
Auth: ssh-agent (SSH_AUTH_SOCK), -i key files (default ~/.ssh/id_ed25519, id_ecdsa, id_rsa), then a
password prompt; SLUICE_PASSWORD supplies the password to scripts.
Host keys: ~/.ssh/known_hosts and /etc/ssh/ssh_known_hosts (SLUICE_KNOWN_HOSTS overrides both).

Exit codes: 0 done and verified, 1 some transfer failed, 2 usage, 3 authentication, 4 host key refused,
5 remote not found or permission denied, 6 local error (disk full, permission), 130 interrupted.
Ctrl-C cancels and removes temporary files; a second Ctrl-C quits at once (a .part file may remain).`;

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number ≥ 1');
  return n;
}

function nonNegativeInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number ≥ 0');
  return n;
}

/** Parses sizes such as 16M, 512K, 1G or plain bytes (binary units). */
export function parseSize(v: string): number {
  const m = /^(\d+)([KMG]i?B?)?$/i.exec(v.trim());
  if (!m) throw new InvalidArgumentError('expected a size such as 16M, 512K or 1048576');
  const unit = (m[2] ?? '').toUpperCase()[0];
  const mult = unit === 'K' ? 1024 : unit === 'M' ? 1024 ** 2 : unit === 'G' ? 1024 ** 3 : 1;
  const n = Number(m[1]) * mult;
  if (n < 65536) throw new InvalidArgumentError('must be at least 64K');
  return n;
}

/** `--window`: a size from 2 MiB (ssh2's own window) to 256 MiB (an SSH window is a uint32, RFC 4254 §5.2). */
export function parseWindow(v: string): number {
  const n = parseSize(v);
  if (n < SSH2_DEFAULT_WINDOW || n > 256 * 1024 * 1024) throw new InvalidArgumentError('must be between 2M and 256M');
  return n;
}

function collect(v: string, prev: string[] = []): string[] {
  return [...prev, v];
}

interface Output {
  info(msg: string): void;
  event(e: EngineEvent): void;
  done(): void;
}

function makeOutput(o: CliOptions, totalHint: string): Output {
  if (o.json) {
    return {
      info: (msg) => process.stdout.write(`${JSON.stringify({ type: 'log', level: 'info', message: msg })}\n`),
      event: (e) => process.stdout.write(`${JSON.stringify(e)}\n`),
      done: () => undefined,
    };
  }
  const tty = process.stderr.isTTY === true && o.progress;
  let bar: cliProgress.SingleBar | null = null;
  return {
    info: (msg) => { if (bar) bar.stop(); bar = null; process.stderr.write(`${msg}\n`); },
    event: (e) => {
      if (e.type === 'file' && e.state === 'failed') {
        bar?.stop(); bar = null;
        process.stderr.write(`sluice: ${displayText(e.error?.message ?? `${e.path}: failed`, 2000)}\n`);
      } else if (e.type === 'log' && (e.level !== 'info' || o.verbose)) {
        process.stderr.write(`sluice: ${e.message}\n`);
      } else if (e.type === 'hostKeysLearned' && o.verbose) {
        process.stderr.write(`sluice: ${learnedKeysMessage(e.host, e.port, e.keys, e.file)}\n`);
      } else if (e.type === 'progress' && tty) {
        if (!bar) {
          bar = new cliProgress.SingleBar({
            format: `${totalHint} [{bar}] {percentage}% | {done}/{total} | {files} files | {rate}/s | ETA {eta_formatted}`,
            hideCursor: true, stream: process.stderr, fps: 4,
          }, cliProgress.Presets.shades_classic);
          bar.start(Math.max(1, e.bytesTotal), 0, {});
        }
        bar.setTotal(Math.max(1, e.bytesTotal));
        bar.update(e.bytesDone, {
          done: formatBytes(e.bytesDone), total: formatBytes(e.bytesTotal) + (e.scanning ? '+' : ''),
          files: `${e.filesDone}/${e.filesTotal}`, rate: formatBytes(e.rate),
        });
      }
    },
    done: () => { bar?.stop(); bar = null; },
  };
}

/** Formats a byte count with binary units (KiB, MiB, GiB). */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return `${n.toFixed(i ? 1 : 0)} ${units[i]}`;
}

/** Splits operands into the remote target (one host) and plain paths. */
function resolveOperands(direction: 'get' | 'put', sources: string[], dest: string): { spec: RemoteSpec; sources: string[]; dest: string } {
  if (direction === 'put') {
    const spec = parseRemoteUrl(dest);
    if (!spec) throw new SluiceError('USAGE', `put needs an sftp:// URL as the destination, got ${JSON.stringify(dest)}`);
    for (const s of sources) if (parseRemoteUrl(s)) throw new SluiceError('USAGE', `put copies local files: ${s} is a URL (use get)`);
    return { spec, sources, dest: spec.path };
  }
  if (parseRemoteUrl(dest)) throw new SluiceError('USAGE', 'get copies to a local path: the destination is a URL (use put)');
  let spec: RemoteSpec | null = null;
  const paths: string[] = [];
  for (const s of sources) {
    const p = parseRemoteUrl(s);
    if (!p) throw new SluiceError('USAGE', `get needs sftp:// URLs as sources, got ${JSON.stringify(s)}`);
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
function setupRequests(direction: 'get' | 'put', sources: string[], dest: string, o: CliOptions): SessionOptions['prefetch'] {
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

async function run(direction: 'get' | 'put', operands: string[], o: CliOptions): Promise<number> {
  if (operands.length < 2) throw new SluiceError('USAGE', `${direction} needs at least one SOURCE and a DEST`);
  const { spec, sources, dest } = resolveOperands(direction, operands.slice(0, -1), operands[operands.length - 1]);
  const interactive = isInteractive() && !o.batch;
  const prompter = interactive ? terminalPrompter() : undefined;
  const out = makeOutput(o, direction === 'put' ? 'up  ' : 'down');
  const abort = new AbortController();
  let session: Session | null = null;
  let interrupts = 0;
  // The first Ctrl-C cancels and cleans up: the temporary files' removal may wait behind data already on its way
  // (about 1 s of it, up to 32 MiB in an upload's first seconds: worker.ts UPLOAD_BUDGET). A second one exits at once.
  const onSigint = () => {
    abort.abort();
    if (!session) process.exit(130);
    if (++interrupts === 1) {
      process.stderr.write('sluice: interrupted: cancelling and removing temporary files (Ctrl-C again to quit at once)\n');
      return;
    }
    process.stderr.write('sluice: interrupted again: quitting without cleanup; a temporary file (.NAME.sluice-XXXXXXXX.part) may remain\n');
    process.exit(130);
  };
  process.on('SIGINT', onSigint);
  try {
    session = await openSession({
      host: spec.host,
      port: spec.port,
      username: spec.user,
      auth: { identityFiles: o.identity, useAgent: o.agent ? undefined : false, prompter },
      algorithms: { cipher: o.cipher, kex: o.kex, hmac: o.mac, serverHostKey: o.hostKeyAlgorithms },
      hostKeyMode: o.acceptNew ? 'accept-new' : interactive ? 'ask' : 'strict',
      hostKeyPrompt: prompter && (async (v) => {
        process.stderr.write(`The authenticity of host '${v.identity.host}' (port ${v.identity.port}) can't be established.\n`
          + `${keyTypeLabel(v.identity.keyType)} key fingerprint is ${v.identity.fingerprint}.\n`);
        const a = await prompter.choose('Accept it [once], accept and [save] to known_hosts, or [no]?', ['once', 'save', 'no'], 'no');
        return a === 'once' ? 'accept-once' : a === 'save' ? 'accept-save' : 'reject';
      }),
      askPassword: prompter ? () => prompter.secret(`${spec.user ?? ''}@${spec.host}'s password: `) : undefined,
      connections: o.connections,
      channels: o.channels,
      requests: o.requests,
      segmentSize: o.segmentSize,
      channelWindow: o.window,
      keepaliveIntervalMs: o.keepalive,
      keepaliveCountMax: o.keepaliveCount,
      readyTimeoutMs: o.connectTimeout,
      prefetch: setupRequests(direction, sources, dest, o),
      onWarning: (m) => out.info(`sluice: warning: ${m}`),
      onEvent: (e) => out.event(e),
    });
    if (o.verbose) {
      const n = session.negotiated;
      out.info(`connected to ${formatRemote(spec)}: kex ${n.kex}, host key ${n.serverHostKey}, cipher ${n.cipher}, mac ${n.mac}; auth ${session.authMethod}; ${session.connections.length} connection(s) × ${session.settings.channels} channel(s)`
        + (session.rttMs !== undefined ? ` (RTT ${session.rttMs.toFixed(1)} ms)` : ''));
    }
    const report = await session.transfer({
      id: `${direction}-${Date.now()}`,
      direction,
      sources,
      dest,
      recursive: o.recursive === true,
      conflict: o.clobber ? 'overwrite' : 'skip',
      verify: o.verify,
    }, abort.signal);
    out.done();
    const mb = report.bytes / 1e6;
    const secs = report.elapsedMs / 1000;
    const summary = `${report.files} file(s), ${formatBytes(report.bytes)} in ${secs.toFixed(2)} s (${(mb / Math.max(secs, 1e-3)).toFixed(1)} MB/s), verified: ${report.verify}`
      + (report.skipped ? `, ${report.skipped} skipped` : '') + (report.failed.length ? `, ${report.failed.length} FAILED` : '');
    if (o.json) process.stdout.write(`${JSON.stringify({ type: 'report', ...report })}\n`);
    else process.stderr.write(`${summary}\n`);
    return exitCodeForReport(report);
  } finally {
    out.done();
    process.off('SIGINT', onSigint);
    await session?.close();
  }
}

function buildProgram(): Command {
  const program = new Command('sluice')
    .description('Fast, verified SFTP transfers: parallel connections, pipelined requests, never a half-written file.')
    .exitOverride()
    .showHelpAfterError('(run sluice --help for usage)');
  for (const direction of ['get', 'put'] as const) {
    program.command(direction)
      .description(direction === 'get' ? 'download SOURCE… (sftp:// URLs) to DEST' : 'upload SOURCE… (local paths) to DEST (an sftp:// URL)')
      .argument('<operands...>', 'SOURCE… DEST')
      .option('-r, --recursive', 'copy folders recursively')
      .option('-i, --identity <file>', 'private key file (repeatable)', collect)
      .option('--no-agent', 'do not use ssh-agent')
      .option('--batch', 'never prompt (unknown host keys are refused unless --accept-new)')
      .option('--accept-new', 'accept and save unknown host keys (changed keys are still refused)')
      .option('--no-clobber', 'do not overwrite existing files (skip them)')
      .option('--verify <level>', 'size (default) or sha256 (hash both sides)', (v) => {
        if (v !== 'size' && v !== 'sha256') throw new InvalidArgumentError('size or sha256');
        return v;
      }, 'size')
      .option('--json', 'newline-delimited JSON events on stdout')
      .option('--no-progress', 'no progress bar')
      .option('-v, --verbose', 'print the negotiated algorithms and more')
      .option('--cipher <list>', 'cipher preference, comma separated', collect)
      .option('--kex <list>', 'key exchange preference, comma separated', collect)
      .option('--mac <list>', 'MAC preference, comma separated', collect)
      .option('--host-key-algorithms <list>', 'host key algorithm preference, comma separated', collect)
      .option('--connections <n>', `SSH connections, each in its own thread (default: ${AUTO_TUNE.connections} with ${AUTO_TUNE.channels} channels each when the measured RTT is ≥ ${AUTO_TUNE.rttMs} ms, else 1 with 1 channel, ${AUTO_TUNE.segmentedPutChannels} for a put of a file above --segment-size)`, positiveInt)
      .option('--channels <n>', 'SFTP channels per connection (default: see --connections)', positiveInt)
      .option('--requests <n>', 'outstanding requests per channel', positiveInt, SESSION_DEFAULTS.requests)
      .option('--segment-size <size>', 'split files larger than this across channels', parseSize, SESSION_DEFAULTS.segmentSize)
      .option('--window <size>', `receive window per SFTP channel, 2M to 256M (default: RTT × ${WINDOW_TUNE.bytesPerSecond / 1048576} MiB/s, from 2M up to ${WINDOW_TUNE.maxBytes / 1048576}M)`, parseWindow)
      .option('--keepalive <ms>', 'keepalive interval in ms (0 = off)', nonNegativeInt, SESSION_DEFAULTS.keepaliveIntervalMs)
      .option('--keepalive-count <n>', 'missed keepalives before the connection is dropped', positiveInt, SESSION_DEFAULTS.keepaliveCountMax)
      .option('--connect-timeout <ms>', 'connect + authentication timeout in ms', positiveInt, SESSION_DEFAULTS.readyTimeoutMs)
      .addHelpText('after', EXAMPLES)
      .action(async (operands: string[], opts: CliOptions) => {
        program.setOptionValue('exitCode', await run(direction, operands, opts));
      });
  }
  program.addHelpText('after', EXAMPLES);
  return program;
}

/**
 * Runs the CLI.
 * @param argv process.argv-style (node, script, args…)
 * @returns the exit code
 */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    if (argv.length <= 2) {
      program.outputHelp();
      return 2;
    }
    await program.parseAsync(argv);
    return (program.getOptionValue('exitCode') as number | undefined) ?? 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.exitCode === 0 ? 0 : 2;
    }
    const se = e instanceof SluiceError ? e : new SluiceError('REMOTE_FAILURE', (e as Error)?.message ?? String(e));
    process.stderr.write(`sluice: ${se.message}\n`);
    return exitCodeFor(se.code);
  }
}

/** The path of the compiled CLI, for tests and benchmarks that spawn it. */
export const CLI_BIN = path.join(__dirname, '..', '..', '..', 'bin', 'sluice.js');
