/**
 * The command line's grammar: `sluice get|put [options] SOURCE… DEST`, `--version`, `--help`, the option parsers,
 * and how the parsed options become a TransferRequest.
 */
import { Command, Option } from 'commander';
import { DEFAULT_RETRY_POLICY } from '../../common/retry';
import { TRANSFER_LIMITS } from '../../common/transferLimits';
import { POOL_DEFAULTS, WINDOW_TUNE } from '../ssh/poolDefaults';
import { AUTO_TUNE } from '../ssh/poolPlan';
import { DEFAULT_MAX_DEPTH } from '../transfer/remoteWalk';
import type { ConflictRule, TransferRequest } from '../transfer/types';
import { addAlgorithmOptions, addLoginOptions, addReachOptions } from './connectionOptions';
import { intIn, nonNegativeInt, parseConflict, parseRate, parseSize, parseVerify, parseWindow } from './optionParsers';
import { packageVersion } from './version';

export { packageVersion };

/** The options of `get` and `put`, as commander parses them. */
export interface CliOptions {
  recursive?: boolean;
  /** `-L`: follow symlinks in the folder walk (both ways). */
  dereference?: boolean;
  /** `-K, --keep-dirlinks`: write into a folder symlink found inside the destination, like rsync -K. */
  keepDirlinks?: boolean;
  /** `-f, --force` (get only): replace a read-only target, like cp -f. */
  force?: boolean;
  /** `--max-depth N` (get only): folders nested deeper than this below a source are not walked. */
  maxDepth?: number;
  identity?: string[];
  agent: boolean;
  batch?: boolean;
  acceptNew?: boolean;
  /** False with `--no-clobber`, the same as `--conflict skip`. */
  clobber: boolean;
  /** `--conflict RULE`: what to do when a target exists (default overwrite). */
  conflict?: ConflictRule;
  /** Record progress for a later run and resume an interrupted one (`--no-resume` turns it off). */
  resume: boolean;
  /** `--no-times` makes it false: targets keep the time of their transfer instead of the source's mtime. */
  times?: boolean;
  /** `-p`, `--perms`: targets get the source's permission bits exactly. */
  perms?: boolean;
  verify: 'size' | 'sha256';
  json?: boolean;
  verbose?: boolean;
  /** `--trace FILE`: a timed trace of every SSH and SFTP packet (ssh/packetTrace.ts). */
  trace?: string;
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
  /** `--keepalive` ms; absent: ssh_config ServerAliveInterval, else POOL_DEFAULTS. */
  keepalive?: number;
  keepaliveCount?: number;
  /** `--connect-timeout` ms; absent: ssh_config ConnectTimeout, else POOL_DEFAULTS. */
  connectTimeout?: number;
  /** `-J`: jump hosts (ProxyJump syntax), `none` to ignore the configuration's ProxyJump. */
  jump?: string;
  /**
   * `-F`: the OpenSSH client configuration file to read instead of ~/.ssh/config and /etc/ssh/ssh_config (`none`:
   * none).
   */
  sshConfig?: string;
  /** `--limit`: speed limit in bytes per second (0 = none). */
  limit?: number;
  /** `--retries`: tries in all after transient failures (0 and 1: a single try). */
  retries: number;
}

/** Runs one `get` or `put`; resolves with the exit code. */
export type RunCommand = (direction: 'get' | 'put', operands: string[], opts: CliOptions) => Promise<number>;

/** Examples of `sluice get --help` (each line fits 80 columns). */
export const GET_EXAMPLES = `
Examples:
  sluice get sftp://alice@host/var/log/syslog ./syslog.txt   # to a new name
  sluice get -r --connections 4 sftp://host/data ./backup/   # 4 connections
  sluice get sftp://myalias/srv/data.csv .     # a Host alias of ~/.ssh/config
  sluice get --limit 10M sftp://host/big.iso . # at most 10 MiB/s`;

/** Examples of `sluice put --help`. */
export const PUT_EXAMPLES = `
Examples:
  sluice put ./big.iso sftp://alice@files.example.com/srv/isos/
  sluice put -r ./site sftp://alice@host:2222/var/www/  # folder into a folder
  sluice put --verify sha256 --json a.bin sftp://host/in/ > events.ndjson
  sluice put -J alice@bastion.example.com a.bin sftp://10.0.0.7/in/  # ssh -J`;

/** Examples of `sluice --help`: a few of each command. */
export const EXAMPLES = `
Examples:
  sluice get sftp://alice@host/var/log/syslog ./syslog.txt   # to a new name
  sluice get -r --connections 4 sftp://host/data ./backup/   # 4 connections
  sluice put -r ./site sftp://alice@host:2222/var/www/  # folder into a folder
  sluice put -J alice@bastion.example.com a.bin sftp://10.0.0.7/in/  # ssh -J
  sluice queue add get sftp://host/var/backups/db.dump ./dumps/
Each command's options and examples: sluice get --help, sluice put --help, …`;

/**
 * What `sluice --help`, `get --help` and `put --help` say after their examples: URLs, authentication, units,
 * --json, retries, exit codes, signals. Every line fits 80 columns.
 */
export const REFERENCE = `
URLs: sftp://[user@]host[:port]/path ('/abs/path', '/~/rel/to/home', or nothing
for the login folder); scp's user@host:path is written sftp://user@host/path.
The host is looked up in ~/.ssh/config and /etc/ssh/ssh_config (or -F FILE) as
ssh does; the URL's user and port win.
Auth: ssh-agent (SSH_AUTH_SOCK), -i key files (default ~/.ssh/id_ed25519,
id_ecdsa, id_rsa), then a password prompt (3 tries, NumberOfPasswordPrompts);
SLUICE_PASSWORD supplies the password to scripts.
Host keys: ~/.ssh/known_hosts and /etc/ssh/ssh_known_hosts (SLUICE_KNOWN_HOSTS
overrides both).
Units: sizes and rates are shown in binary units (KiB, MiB, GiB; MiB/s =
1048576 bytes per second); typed as rsync reads them: 10M = 10MiB = 10 MiB,
10MB = 10,000,000 bytes.
--json: one event per line on stdout, then a "report" line; a run that cannot
start or finish (refused connection or host key, authentication, usage,
interrupt) ends with {"type":"error","code":…,"exitCode":…}; each retry is a
{"type":"retry","attempt":2,"of":5,"delayMs":…,"code":…,"message":…} line.
Retries: once connected, a lost, refused or stalled connection or a timeout is
tried again (--retries tries in all, default 5, about 2 minutes of waits at
most), reconnecting and resuming; other failures end the run at once.

Exit codes: 0 done and verified, 1 some transfer failed, 2 usage,
3 authentication, 4 host key refused, 5 remote not found or permission denied,
6 local error (disk full, permission), 7 host not found, 130 interrupted
(Ctrl-C), 143 terminated (SIGTERM), 129 hangup (SIGHUP), 141 stdout closed,
149 Ctrl+Break (Windows; a closed console window is SIGHUP there).
Ctrl-C, Ctrl+Break, SIGTERM and SIGHUP cancel and remove temporary files; a
second one quits at once (a .part file may remain).`;

const VERIFY_HELP =
  'size (default): the size on the other side is checked; sha256: SHA-256 of both sides, and the report names ' +
  'the level reached: sha256-remote (the server hashed its own copy: sha256sum over exec, or the check-file-name extension) ' +
  'or sha256-reread (the file read back over SFTP and hashed here: a server whose read path corrupts data can fool it)';

const TIMES_HELP =
  "do not give targets their source's modification time (kept by default, like scp -p and rsync -t; " +
  'a server that refuses it gets one warning and the files still arrive)';

const PERMS_HELP =
  "give targets their source's permission bits exactly, like scp -p and rsync -p (default: new files get " +
  "the source's bits less the umask of the receiving side, like cp)";

/** What `--retries` does, for the help. */
export const RETRIES_HELP =
  "tries in all, like rclone's --retries: a lost, refused or stalled connection or a timeout once " +
  'connected is tried again with a fresh connection (the host key checked again), resuming where the journal says, after ' +
  'a wait of 2 s growing about ×2 per try with jitter (60 s at most, 2 min in all); 0 or 1: no retry. Permanent ' +
  'failures (authentication, host key, permission denied, no such file, disk full) are never retried';
const CONFLICT_HELP =
  'when a target exists: overwrite (default, like cp and sftp); skip; newer (overwrite when the source is newer, ' +
  'to the second, else skip); size (overwrite when the sizes differ, else skip); rename (write NAME (1).ext beside it); append ' +
  "(resume a partial target: when its bytes have the SHA-256 of the source's start, send only the rest into it, else overwrite)";

const DEREFERENCE_HELP =
  'follow symlinks in the folder walk, like cp -L (default, both ways: a file symlink is copied only ' +
  'when its target is inside the tree; others are reported and skipped)';

/** What `--limit` says about its units, for the help. */
export const LIMIT_HELP =
  'speed limit per second, read as rsync --bwlimit reads it: 10M or 10MiB = 10 MiB/s (1024-based, ' +
  'as curl --limit-rate 10M too); 10MB = 10 MB/s = 10,000,000 bytes/s (SI); K, G alike; no unit: bytes/s; a ' +
  'trailing /s and decimals are fine (1.5M); 0 = none';

/**
 * Adds the options every `get` and `put` shares (and `sluice queue add get|put`): what to copy, then how to connect.
 */
export function addTransferOptions(cmd: Command, direction: 'get' | 'put'): Command {
  return addConnectionOptions(addCopyOptions(cmd, direction));
}

/** The options that say what is copied and how: folders, links, conflicts, times, permissions, verify, output. */
function addCopyOptions(cmd: Command, direction: 'get' | 'put'): Command {
  cmd.option('-r, --recursive', 'copy folders recursively');
  cmd.option('-L, --dereference', DEREFERENCE_HELP);
  cmd.option(
    '-K, --keep-dirlinks',
    'write into a folder symlink inside the destination, like rsync -K (default: ' +
      'such a folder is reported and not written through)',
  );
  if (direction === 'get') {
    cmd.option('-f, --force', 'replace a read-only target, like cp -f (default: it is reported and kept)');
    cmd.option(
      '--max-depth <n>',
      `with -r, folders nested deeper than this below a source are reported and not copied, ` +
        `${TRANSFER_LIMITS.maxDepth.text} (default ${DEFAULT_MAX_DEPTH}, like OpenSSH's sftp)`,
      intIn(TRANSFER_LIMITS.maxDepth),
    );
  }
  return addLoginOptions(cmd)
    .option('--no-clobber', 'do not overwrite existing files (skip them): the same as --conflict skip')
    .addOption(new Option('--conflict <rule>', CONFLICT_HELP).argParser(parseConflict).conflicts('clobber'))
    .option(
      '--no-resume',
      'neither resume an interrupted run of the same command nor record this one for a later resume',
    )
    .option('--no-times', TIMES_HELP)
    .option('-p, --perms', PERMS_HELP)
    .option('--verify <level>', VERIFY_HELP, parseVerify, 'size')
    .option('--json', 'newline-delimited JSON events on stdout (fatal errors too, as {"type":"error"} lines)')
    .option('--no-progress', 'no progress bar')
    .option('-v, --verbose', 'print the negotiated algorithms, each file done, and more')
    .option('--trace <file>', 'write the time of every SSH and SFTP packet sent and received to FILE');
}

/** The options of the connections: algorithms, parallelism, window, keepalives, timeouts, jumps, limit, retries. */
export function addConnectionOptions(cmd: Command): Command {
  return addReachOptions(
    addAlgorithmOptions(cmd)
      .option(
        '--connections <n>',
        `SSH connections, each in its own thread, ${TRANSFER_LIMITS.connections.text} (default: ${AUTO_TUNE.connections} with ${AUTO_TUNE.channels} channels each when the measured RTT is ≥ ${AUTO_TUNE.rttMs} ms, else 1 with 1 channel, ${AUTO_TUNE.segmentedPutChannels} for a put of a file above --segment-size)`,
        intIn(TRANSFER_LIMITS.connections),
      )
      .option(
        '--channels <n>',
        `SFTP channels per connection, ${TRANSFER_LIMITS.channels.text} (default: see --connections)`,
        intIn(TRANSFER_LIMITS.channels),
      )
      .option(
        '--requests <n>',
        `outstanding requests per channel, ${TRANSFER_LIMITS.requests.text}`,
        intIn(TRANSFER_LIMITS.requests),
        POOL_DEFAULTS.requests,
      )
      .addOption(
        new Option(
          '--segment-size <size>',
          `split files larger than this across channels, ${TRANSFER_LIMITS.segmentSize.text} (16M = 16 MiB)`,
        )
          .argParser(parseSize)
          .default(POOL_DEFAULTS.segmentSize, `${POOL_DEFAULTS.segmentSize / 1048576} MiB`),
      )
      .option(
        '--window <size>',
        `receive window per SFTP channel, ${TRANSFER_LIMITS.window.text} (default: RTT × ${WINDOW_TUNE.bytesPerSecond / 1048576} MiB/s, from 2M up to ${WINDOW_TUNE.maxBytes / 1048576}M)`,
        parseWindow,
      ),
  )
    .option('--limit <rate>', LIMIT_HELP, parseRate)
    .option('--retries <n>', RETRIES_HELP, nonNegativeInt, DEFAULT_RETRY_POLICY.tries);
}

/**
 * The `sluice` program. Commander errors throw (exitOverride) instead of exiting; `--version` prints the version and
 * throws a CommanderError with exit code 0. A command's exit code is stored as the option value `exitCode`.
 * @param runCommand what `get` and `put` do
 */
export function buildProgram(runCommand: RunCommand): Command {
  const program = new Command('sluice')
    .description('Fast, verified SFTP transfers: parallel connections, pipelined requests, never a half-written file.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .exitOverride()
    .showHelpAfterError('(run sluice --help for usage)')
    // A command's line in the list of commands is its usage (`get [options] <source...> <dest>`).
    .configureHelp({ subcommandTerm: (cmd) => `${cmd.name()} ${cmd.usage()}` });
  for (const direction of ['get', 'put'] as const) {
    const cmd = program
      .command(direction)
      .description(
        direction === 'get'
          ? 'download SOURCE… (sftp:// URLs) to DEST'
          : 'upload SOURCE… (local paths) to DEST (an sftp:// URL)',
      );
    addOperands(cmd);
    addTransferOptions(cmd, direction)
      .addHelpText('after', `${direction === 'get' ? GET_EXAMPLES : PUT_EXAMPLES}\n${REFERENCE}`)
      .action(async (operands: string[], opts: CliOptions) => {
        program.setOptionValue('exitCode', await runCommand(direction, operands, opts));
      });
  }
  program.addHelpText('after', `${EXAMPLES}\n${REFERENCE}`);
  return program;
}

/**
 * The operands of get, put and `queue add get|put`: shown as `<source...> <dest>` (commander takes one variadic
 * argument, the last of which is DEST).
 */
export function addOperands(cmd: Command): Command {
  return cmd.argument('<source...>').usage('[options] <source...> <dest>');
}

/**
 * Makes every command's usage errors point at its own help (`(run sluice queue add get --help for usage)`), as
 * commander otherwise repeats the root's hint. Call once every command is added.
 */
export function helpHintPerCommand(cmd: Command, path = cmd.name()): void {
  cmd.showHelpAfterError(`(run ${path} --help for usage)`);
  for (const sub of cmd.commands) helpHintPerCommand(sub, `${path} ${sub.name()}`);
}

/** The conflict rule of parsed options: `--conflict`, else `skip` for `--no-clobber`, else `overwrite` (like `cp`). */
export function conflictRuleOf(o: Pick<CliOptions, 'clobber' | 'conflict'>): ConflictRule {
  return o.conflict ?? (o.clobber ? 'overwrite' : 'skip');
}

/**
 * The engine request for a parsed command: cp semantics, `--conflict` (`--no-clobber` as `skip`), `--verify`,
 * `--no-times` as `preserveTimes: false`, `-p` as `preservePermissions`, and `-L` as `followSymlinks` (both ways; the
 * engine's default without it: a file symlink is copied only when its target is inside the tree, the others are
 * reported and skipped).
 */
export function transferRequest(
  direction: 'get' | 'put',
  sources: string[],
  dest: string,
  o: CliOptions,
  id = `${direction}-${Date.now()}`,
): TransferRequest {
  const req: TransferRequest = {
    id,
    direction,
    sources,
    dest,
    recursive: o.recursive === true,
    conflict: conflictRuleOf(o),
    verify: o.verify,
  };
  req.followSymlinks = o.dereference === true;
  if (direction === 'get' && o.maxDepth !== undefined) req.maxDepth = o.maxDepth;
  if (o.keepDirlinks === true) req.keepDirlinks = true;
  if (direction === 'get' && o.force === true) req.force = true;
  if (o.times === false) req.preserveTimes = false;
  if (o.perms === true) req.preservePermissions = true;
  return req;
}
