/**
 * Shared helpers of the end-to-end CLI suite (app/node/test): spawn the real `sluice` CLI with a bounded
 * time, collect its output and NDJSON events, make random files and trees, hash them.
 * The servers come from e2e/fixtures (re-exported here, so only this file crosses into e2e/).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomFillSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI_BIN } from '../cli';

export { CLI_BIN };
import { poolOptionsFor, type EngineOptions } from '../engine/setup';
import { ConnectionPool } from '../ssh/connectionPool';
import { QueueStore } from '../stores/queueStore';
import type { EngineEvent, ServerLearnings, TransferReport } from '../transfer/types';

export { SSHD_PATH, startSshd, startTestServer, type SshServer, type SshdServer } from '../../../e2e/fixtures/sshd';
export { fakeFileEntry, startScriptedServer, type ScriptedServer } from '../../../e2e/fixtures/scriptedServer';
export { serveSftp, startSsh2SftpServer, type ConnectionState } from '../../../e2e/fixtures/ssh2SftpServer';
export { startToxiproxy, toxiproxyAvailable, type Toxiproxy } from '../../../e2e/fixtures/toxiproxy';
export { startAgent, type TestAgent } from '../../../e2e/fixtures/agent';
import { startProxyInFront, type Toxic, type Toxiproxy } from '../../../e2e/fixtures/toxiproxy';
import { makeTempDir, removeDir, scratchDir, waitUntil } from '../../../e2e/fixtures/tmp';
import { startSshd, type SshServer, type SshdOptions, type SshdServer } from '../../../e2e/fixtures/sshd';
export {
  generateKeyFile,
  knownHostsLineFor,
  makeTempDir,
  parsableEd25519Pair,
  removeDir,
  waitUntil,
  killOnExit,
} from '../../../e2e/fixtures/tmp';
import { giveTo, spawnIdentity, type TestUser } from './asUser';
import { isolatedHome } from './isolatedHome';
import { serverWithKnownHosts } from './suites';
export {
  cappedSshdHooks,
  serverWithKnownHosts,
  trustedServerHooks,
  withTrustedServer,
  type CappedSshd,
  type ServerLike,
  type TrustedServer,
} from './suites';

/** A server as the CLI sees it. */
export interface Target {
  user: string;
  port: number;
  clientKeyPath: string;
}

/** `sftp://user@127.0.0.1:PORT<absPath>`. */
export function urlOf(t: Target, absPath: string): string {
  return `sftp://${t.user}@127.0.0.1:${t.port}${absPath}`;
}

/** Flags every non-interactive test run passes: no prompts, no agent, the fixture key, no progress bar. */
export function baseFlags(t: Pick<Target, 'clientKeyPath'>): string[] {
  return ['--batch', '--no-agent', '-i', t.clientKeyPath, '--no-progress'];
}

/** What a finished CLI run produced. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Parsed NDJSON lines of stdout (only with `--json`). */
  events: Array<EngineEvent | ({ type: 'report' } & TransferReport)>;
  /** The final `{"type":"report"}` line, when present. */
  report?: TransferReport;
  /** Wall time of the run, ms. */
  ms: number;
}

/** A running CLI. */
export interface CliRun {
  child: ChildProcess;
  /** Resolves when the process exits (rejects when it outlives `timeoutMs`, after SIGKILLing it). */
  result: Promise<CliResult>;
  /** Resolves with the first NDJSON event matching `pred` (rejects on timeout or exit). */
  waitForEvent(pred: (e: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Resolves once stderr matches `re` (rejects on timeout or exit). */
  waitForStderr(re: RegExp, timeoutMs?: number): Promise<void>;
}

/** Options of {@link startCli}. */
export interface CliOptions {
  /** Known hosts file; becomes SLUICE_KNOWN_HOSTS. */
  knownHosts: string;
  /** Extra environment (undefined removes a variable). */
  env?: Record<string, string | undefined>;
  /** Kill the CLI after this long (ms); default 60 s. */
  timeoutMs?: number;
  cwd?: string;
  /** Run the CLI as this user (asUser.ts: `nobody` when the tests run as root); its HOME is the caller's to give. */
  user?: TestUser;
}

let emptyHome: string | undefined;

/** A HOME without ~/.ssh, so the CLI uses only what the test gives it. */
function testHome(): string {
  emptyHome ??= scratchDir('sluice-test-home-');
  return emptyHome;
}

/**
 * The CLI's environment under test: SLUICE_KNOWN_HOSTS, no ssh-agent or password, an empty HOME, then `opts.env`;
 * USERPROFILE follows HOME (Windows' home) unless `opts.env` sets it.
 */
export function cliEnv(opts: CliOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: testHome(), SLUICE_KNOWN_HOSTS: opts.knownHosts };
  delete env.SSH_AUTH_SOCK;
  delete env.SLUICE_PASSWORD;
  // The CLI's data folder follows its HOME, as before, unless the test chose one.
  if (isolatedHome !== undefined && env.SLUICE_HOME === isolatedHome) delete env.SLUICE_HOME;
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  // os.homedir() reads USERPROFILE on Windows and HOME elsewhere: both name the test's home.
  if (!opts.env || !('USERPROFILE' in opts.env)) env.USERPROFILE = env.HOME;
  return env;
}

/**
 * Spawns `node bin/sluice.js ARGS` with SLUICE_KNOWN_HOSTS set, no ssh-agent, an empty HOME and no terminal.
 * The child never outlives `timeoutMs`.
 */
export function startCli(args: string[], opts: CliOptions): CliRun {
  const env = cliEnv(opts);
  const started = Date.now();
  // A CLI that hangs is asked for a Node diagnostic report (SIGUSR2) before it is killed: its JS stack goes into the
  // error.
  const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-cli-report-'));
  if (opts.user) giveTo(opts.user, reportDir);
  const child = spawn(process.execPath, ['--report-on-signal', `--report-directory=${reportDir}`, CLI_BIN, ...args], {
    env,
    cwd: opts.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...spawnIdentity(opts.user),
  });
  let stdout = '';
  let stderr = '';
  let partial = '';
  const events: Array<Record<string, unknown>> = [];
  const waiters = new Set<{
    pred: (e: Record<string, unknown>) => boolean;
    resolve: (e: Record<string, unknown>) => void;
  }>();
  child.stdout!.on('data', (d: Buffer) => {
    const text = d.toString();
    stdout += text;
    partial += text;
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      let e: Record<string, unknown>;
      try {
        e = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue;
      }
      events.push(e);
      for (const w of [...waiters])
        if (w.pred(e)) {
          waiters.delete(w);
          w.resolve(e);
        }
    }
  });
  const stderrWaiters = new Set<{ re: RegExp; resolve: () => void }>();
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    for (const w of [...stderrWaiters])
      if (w.re.test(stderr)) {
        stderrWaiters.delete(w);
        w.resolve();
      }
  });
  const timeoutMs = opts.timeoutMs ?? 60_000;
  let timedOut = false;
  let hangReport = '';
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGUSR2');
    // The report is written in pieces: wait until the whole JSON parses.
    void waitUntil(
      'a diagnostic report',
      () => {
        const f = fs.readdirSync(reportDir).find((n) => n.endsWith('.json'));
        if (!f) return undefined;
        try {
          JSON.parse(fs.readFileSync(path.join(reportDir, f), 'utf8'));
          return f;
        } catch {
          return undefined;
        }
      },
      5_000,
    )
      .then(
        (f) => {
          hangReport = summarizeReport(path.join(reportDir, f));
        },
        () => {
          hangReport = '(no diagnostic report within 5 s)';
        },
      )
      .finally(() => child.kill('SIGKILL'));
  }, timeoutMs);
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const result = exited.then(() => {
    clearTimeout(timer);
    fs.rmSync(reportDir, { recursive: true, force: true });
    if (timedOut)
      throw new Error(
        `sluice ${args.join(' ')} did not finish within ${timeoutMs} ms\nstderr: ${stderr}\n${hangReport}`,
      );
    const report = events.find((e) => e.type === 'report') as (TransferReport & { type: 'report' }) | undefined;
    return {
      code: child.exitCode,
      signal: child.signalCode as NodeJS.Signals | null,
      stdout,
      stderr,
      events: events as CliResult['events'],
      report,
      ms: Date.now() - started,
    };
  });
  return {
    child,
    result,
    waitForStderr(re, ms = 30_000) {
      if (re.test(stderr)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const w = {
          re,
          resolve: () => {
            clearTimeout(t);
            resolve();
          },
        };
        const t = setTimeout(() => {
          stderrWaiters.delete(w);
          reject(new Error(`stderr did not match ${re} within ${ms} ms: ${stderr}`));
        }, ms);
        stderrWaiters.add(w);
        void exited.then(() => {
          if (!stderrWaiters.has(w)) return;
          stderrWaiters.delete(w);
          clearTimeout(t);
          reject(
            new Error(`sluice exited (${child.exitCode ?? child.signalCode}) before stderr matched ${re}: ${stderr}`),
          );
        });
      });
    },
    waitForEvent(pred, ms = 30_000) {
      const seen = events.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const w = {
          pred,
          resolve: (e: Record<string, unknown>) => {
            clearTimeout(t);
            resolve(e);
          },
        };
        const t = setTimeout(() => {
          waiters.delete(w);
          reject(new Error(`no matching event within ${ms} ms; stderr: ${stderr}`));
        }, ms);
        waiters.add(w);
        void exited.then(() => {
          if (!waiters.has(w)) return;
          waiters.delete(w);
          clearTimeout(t);
          reject(
            new Error(
              `sluice exited (${child.exitCode ?? child.signalCode}) before the awaited event; stderr: ${stderr}`,
            ),
          );
        });
      });
    },
  };
}

/** The main thread's JS stack and live handles from a Node diagnostic report (process.report), for hang diagnosis. */
function summarizeReport(file: string): string {
  try {
    interface Report {
      javascriptStack?: { message?: string; stack?: string[] };
      libuv?: Array<{ type: string; is_active?: boolean; remoteEndpoint?: unknown }>;
      workers?: Report[];
    }
    const describe = (r: Report, who: string): string => {
      const stack = (r.javascriptStack?.stack ?? []).slice(0, 15).join('\n    ');
      const handles = (r.libuv ?? [])
        .filter((h) => h.is_active && h.type !== 'async')
        .map((h) => `${h.type}${h.remoteEndpoint ? ` → ${JSON.stringify(h.remoteEndpoint)}` : ''}`);
      return `${who}: JS stack: ${r.javascriptStack?.message ?? ''}\n    ${stack}\n  active handles: ${handles.join(', ')}`;
    };
    const r = JSON.parse(fs.readFileSync(file, 'utf8')) as Report;
    return [
      '--- diagnostic report of the hung CLI ---',
      describe(r, 'main thread'),
      ...(r.workers ?? []).map((w, i) => describe(w, `worker ${i}`)),
    ].join('\n');
  } catch (e) {
    return `(no diagnostic report: ${(e as Error).message})`;
  }
}

/** Runs the CLI to completion; see {@link startCli}. */
export function runCli(args: string[], opts: CliOptions): Promise<CliResult> {
  return startCli(args, opts).result;
}

/** A `progress` event that shows bytes moving. */
export function isProgressWithBytes(e: Record<string, unknown>): boolean {
  return e.type === 'progress' && typeof e.bytesDone === 'number' && e.bytesDone > 0;
}

/** Bytes the queue database under `home` (SLUICE_HOME) holds as durably done, over every file of every job. */
export function journalledBytes(home: string): number {
  const store = QueueStore.open({ home });
  try {
    return store.jobs
      .list({ limit: 100 })
      .jobs.flatMap((j) => store.files.list(j.id))
      .reduce((n, f) => n + store.journal.doneBytes(f.id), 0);
  } finally {
    store.close();
  }
}

/** Writes `size` random bytes to `p` (1 MiB chunks, each fresh, so misplaced blocks cannot match by chance). */
export function writeRandomFile(p: string, size: number): void {
  const fd = fs.openSync(p, 'w');
  try {
    const chunk = Buffer.alloc(Math.min(size, 1 << 20));
    for (let done = 0; done < size;) {
      const n = Math.min(chunk.length, size - done);
      randomFillSync(chunk, 0, n);
      fs.writeSync(fd, chunk, 0, n);
      done += n;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Hex SHA-256 of a file's content. */
export async function sha256File(p: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of fs.createReadStream(p, { highWaterMark: 1 << 20 })) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** `SHA256:<unpadded base64>` of a public key blob, as OpenSSH prints it. */
export function fingerprintOf(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** One entry of {@link treeOf}: relative path, and for files size and SHA-256. */
export interface TreeEntry {
  rel: string;
  type: 'dir' | 'file';
  size?: number;
  sha256?: string;
}

/** Every folder and file under `root` (sorted by relative path), with sizes and hashes of files. */
export async function treeOf(root: string): Promise<TreeEntry[]> {
  const out: TreeEntry[] = [];
  const walk = async (dir: string, rel: string): Promise<void> => {
    for (const e of await fs.promises.readdir(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      const full = path.join(dir, e.name);
      if (e.isDirectory()) {
        out.push({ rel: r, type: 'dir' });
        await walk(full, r);
      } else {
        out.push({ rel: r, type: 'file', size: fs.statSync(full).size, sha256: await sha256File(full) });
      }
    }
  };
  await walk(root, '');
  return out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

/** Names in `dir` that look like Sluice temporary files (`.NAME.sluice-XXXXXXXX.part`), recursively. */
export function tempFilesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (/\.sluice-[0-9a-f]{8}\.part$/.test(e.name)) out.push(full);
      if (e.isDirectory()) walk(full);
    }
  };
  walk(dir);
  return out;
}

/** Rejects with a message naming `what` when `p` does not settle within `ms`. */
export function within<T>(what: string, ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** Text for assertion messages: the CLI's exit and output. */
export function describeRun(r: CliResult): string {
  const out = r.stdout
    .split('\n')
    .filter((l) => !l.includes('"type":"progress"'))
    .join('\n');
  return `exit ${r.code ?? r.signal} after ${r.ms} ms\n--- stderr ---\n${r.stderr}\n--- stdout (no progress) ---\n${out.slice(-4000)}`;
}

/**
 * A site's pool (ConnectionPool) opened with the engine's set-up (engine/setup.ts), for tests below the engine's door;
 * the product opens engines with engine/engine.ts openEngine.
 */
export async function openPool(o: EngineOptions): Promise<ConnectionPool> {
  return ConnectionPool.open(await poolOptionsFor(o));
}

const learnedByPool = new WeakMap<ConnectionPool, ServerLearnings>();

/**
 * What transfers on `session` learned about its server (the out-of-order answer): one record per session, as an
 * engine keeps one (engine/serverTraits.ts), for tests that run transfer/run.ts runTransfer on a bare session.
 */
export function learnedOf(pool: ConnectionPool): ServerLearnings {
  let known = learnedByPool.get(pool);
  if (!known) learnedByPool.set(pool, (known = {}));
  return known;
}

/**
 * openPool bounded to 30 s; a session that opens after the deadline is closed, so its worker threads
 * cannot keep the test process alive.
 */
export function openBounded(o: EngineOptions): Promise<ConnectionPool> {
  const opening = openPool(o);
  return within('openPool', 30_000, opening).catch((e: unknown) => {
    opening.then(
      (s) => s.close(),
      () => undefined,
    );
    throw e;
  });
}

/**
 * Engine options for `server` with only its client key (no agent, no ~/.ssh: `dir` is HOME), trusting its host key
 * through a known_hosts file written in `dir`; `o` adds or overrides options (`o.port`: a proxy in front of `server`,
 * trusted with the server's key).
 */
export function trustingOptions(server: SshServer, dir: string, o: Partial<EngineOptions> = {}): EngineOptions {
  const port = o.port ?? server.port;
  const kh = path.join(dir, `known_hosts-${port}`);
  fs.writeFileSync(kh, `${server.knownHostsLine(port)}\n`);
  return {
    host: server.host,
    port: server.port,
    username: server.user,
    auth: { identityFiles: [server.clientKeyPath], useAgent: false, env: {}, home: dir },
    hostKeyMode: 'strict',
    knownHostsPaths: { readPaths: [kh], writePath: kh },
    ...o,
  };
}

/** A bounded session on `server` with {@link trustingOptions}. */
export function openTrusting(server: SshServer, dir: string, o: Partial<EngineOptions> = {}): Promise<ConnectionPool> {
  return openBounded(trustingOptions(server, dir, o));
}

/**
 * A private sshd and a temporary folder (`local`) holding a known_hosts file that trusts it; see {@link
 * serverWithKnownHosts}.
 */
export async function sshdWithKnownHosts(
  tempPrefix: string,
): Promise<{ server: SshdServer; local: string; knownHosts: string; stop(): Promise<void> }> {
  const t = await serverWithKnownHosts(() => startSshd(), tempPrefix);
  return { ...t, local: t.dir };
}

/** What {@link withProxiedSshd} hands its callback. */
export interface ProxiedSshd {
  srv: SshdServer;
  tox: Toxiproxy;
  /** Port of the proxy in front of `srv` (the toxics apply there). */
  proxyPort: number;
  /** A temporary folder, removed afterwards. */
  dir: string;
}

/**
 * Runs `fn` against a private sshd behind a Toxiproxy proxy carrying `toxics`, with a temporary folder; stops the
 * proxy and the server and removes the folder afterwards, whatever `fn` does.
 */
export async function withProxiedSshd<T>(
  o: { tempPrefix: string; toxics: Toxic[]; sshd?: SshdOptions },
  fn: (e: ProxiedSshd) => Promise<T>,
): Promise<T> {
  const srv = await startSshd(o.sshd);
  try {
    const { toxi, port } = await startProxyInFront(srv.port, o.toxics);
    const dir = await makeTempDir(o.tempPrefix);
    try {
      return await fn({ srv, tox: toxi, proxyPort: port, dir });
    } finally {
      await toxi.stop();
      await removeDir(dir);
    }
  } finally {
    await srv.stop();
  }
}
