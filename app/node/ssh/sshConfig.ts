/**
 * OpenSSH client configuration (ssh_config(5)) evaluated for one host the way ssh(1) does (readconf.c): the files in
 * order (`-F FILE` alone, else `~/.ssh/config` then `/etc/ssh/ssh_config`, on Windows `%ProgramData%\ssh\ssh_config`),
 * `Host` and `Match` blocks, `Include` (paths in the local platform's path module, `~\` too on Windows), and
 * for every keyword the first value obtained wins (`IdentityFile` accumulates). The `ssh-config` package parses the
 * text; evaluation is here, because its `compute()` reads no `Include`, runs `Match exec` commands, and lets `?` match
 * zero characters. `Match` understands `all`, `host`, `originalhost`, `user`, `localuser` and `final` (with `!`);
 * a block with any other criterion (`exec`, `localnetwork`, `tagged`, `canonical`, …) is skipped with a note.
 * Which keywords Sluice then uses, and how, is engine/hostSettings.ts.
 */
import fs from 'node:fs';
import type path from 'node:path';
import SSHConfig, { LineType, type Line } from 'ssh-config';
import { SluiceError, displayText } from '../errors';
import { expandTilde, pathFor, systemSshDir } from '../sys/platformPaths';

/** The system-wide client configuration, read after the user's (ssh(1) FILES), on Linux and macOS. */
export const SYSTEM_SSH_CONFIG = '/etc/ssh/ssh_config';

/** The system-wide client configuration of a platform: `%ProgramData%\ssh\ssh_config` on Windows. */
export function systemSshConfig(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  return pathFor(platform).join(systemSshDir(env, platform), 'ssh_config');
}

/** How the files are read; node:fs unless injected (tests of another platform's paths). */
export interface ConfigFs {
  readFileSync(file: string, encoding: 'utf8'): string;
  readdirSync(dir: string): string[];
}

/** Include depth at which ssh(1) gives up (readconf.c READCONF_MAX_DEPTH). */
const MAX_INCLUDE_DEPTH = 16;

/** One configuration file to read: `system` decides where a relative `Include` points (its folder, else ~/.ssh). */
export interface ConfigFile {
  path: string;
  system: boolean;
  /** `-F FILE`: an error when it cannot be read (ssh: "Can't open user config file"). */
  required: boolean;
}

/**
 * The files ssh(1) reads: `-F FILE` alone (`none`: no file at all), else `~/.ssh/config` then the system file.
 * @param configFile the `-F` argument, `~/` (and on Windows `~\`) expanded against `home`
 * @param systemFile default: the platform's ({@link systemSshConfig})
 */
export function configFilesFor(
  configFile: string | undefined,
  home: string,
  systemFile?: string,
  platform: NodeJS.Platform = process.platform,
): ConfigFile[] {
  const p = pathFor(platform);
  if (configFile !== undefined) {
    if (configFile.trim().toLowerCase() === 'none') return [];
    return [{ path: p.resolve(expandTilde(configFile, home, platform)), system: false, required: true }];
  }
  return [
    { path: p.join(home, '.ssh', 'config'), system: false, required: false },
    { path: systemFile ?? systemSshConfig(process.env, platform), system: true, required: false },
  ];
}

/** A keyword's arguments and the file they came from. */
export interface ConfigValue {
  /** The arguments: one for most keywords, several for `UserKnownHostsFile`. */
  args: string[];
  file: string;
}

/** What the files say for one host. */
export interface SshConfigResult {
  /** First value of each keyword, by lower-case keyword (except `identityfile`). */
  values: Map<string, ConfigValue>;
  /** Every `IdentityFile` that applies, in order. */
  identityFiles: ConfigValue[];
  /** The files that were read, includes too, in order. */
  files: string[];
}

/** The host and who asks: what `Host` and `Match` test. */
export interface HostQuery {
  /** The host as typed (an alias or a name). */
  host: string;
  /** Remote user from the command line or the site; it wins over `User`, and `Match user` tests it. */
  user?: string;
  localUser: string;
  home: string;
  files: ConfigFile[];
  /** Notes for `-v`: skipped `Match` blocks. */
  onNote?: (message: string) => void;
  /** Whose path rules `Include` follows; default process.platform. */
  platform?: NodeJS.Platform;
  /** Default node:fs. */
  fs?: ConfigFs;
}

/**
 * True when `text` matches a single ssh pattern: `*` any run of characters, `?` exactly one (match.c match_pattern).
 * @param ignoreCase host names compare case-insensitively (match_hostname)
 */
export function matchPattern(text: string, pattern: string, ignoreCase = false): boolean {
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${re}$`, ignoreCase ? 'is' : 's').test(text);
}

/**
 * ssh's pattern lists: any negated (`!pat`) match refuses, else any plain match accepts (match.c match_pattern_list).
 * @param patterns the patterns, already split (a `Host` line's words, or a comma list split)
 */
export function matchPatternList(text: string, patterns: string[], ignoreCase = false): boolean {
  let matched = false;
  for (const p of patterns) {
    if (p.startsWith('!')) {
      if (matchPattern(text, p.slice(1), ignoreCase)) return false;
    } else if (matchPattern(text, p, ignoreCase)) {
      matched = true;
    }
  }
  return matched;
}

/** The arguments of a parsed directive (ssh-config gives a string or a list of words). */
function argsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.map((v) => String((v as { val: string }).val));
  return [String(value)];
}

/** The entries of `dir` whose names match `pattern` (glob(3): `*` and `?` do not match a leading dot), sorted. */
function globDir(dir: string, pattern: string, p: path.PlatformPath, files: ConfigFs): string[] {
  let names: string[];
  try {
    names = files.readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => (!n.startsWith('.') || pattern.startsWith('.')) && matchPattern(n, pattern))
    .sort()
    .map((n) => p.join(dir, n));
}

/**
 * Expands `*` and `?` in each component of an absolute path, as glob(3) does for `Include`: from the path's root
 * (`/`, `C:\` or `\\server\share\`), components split on the platform's separators (`/` and `\` on Windows).
 */
export function expandGlob(
  pattern: string,
  platform: NodeJS.Platform = process.platform,
  files: ConfigFs = fs,
): string[] {
  const p = pathFor(platform);
  const root = p.parse(pattern).root;
  const parts = pattern
    .slice(root.length)
    .split(platform === 'win32' ? /[\\/]/ : '/')
    .filter((c) => c !== '');
  let found = [root];
  for (const part of parts) {
    found = /[*?]/.test(part) ? found.flatMap((d) => globDir(d, part, p, files)) : found.map((d) => p.join(d, part));
  }
  return found;
}

/** Evaluates the files for one host; see {@link computeHostConfig}. */
class Evaluation {
  readonly values = new Map<string, ConfigValue>();
  readonly identityFiles: ConfigValue[] = [];
  readonly read: string[] = [];
  private readonly parsed = new Map<string, Line[] | null>();
  private readonly notes = new Set<string>();
  private wantFinal = false;
  private final = false;
  /** The name `Host` patterns are tested against: the host as typed, in the final pass the HostName. */
  private hostArg: string;

  constructor(private readonly q: HostQuery) {
    this.hostArg = q.host;
  }

  run(): void {
    this.pass();
    if (!this.wantFinal) return;
    // `Match final` (ssh_config(5)): the files are read again; values already obtained stay.
    this.final = true;
    this.hostArg = this.hostName();
    this.pass();
  }

  private pass(): void {
    for (const f of this.q.files) this.walkFile(f.path, f.system, true, false, 0, f.required);
  }

  /** HostName so far (with `%h`), else the host as typed: what `Match host` tests. */
  private hostName(): string {
    const v = this.values.get('hostname');
    return v ? v.args[0].replace(/%(%|h)/g, (_, t: string) => (t === 'h' ? this.q.host : '%')) : this.q.host;
  }

  /** The remote user so far: the given one, else `User` so far, else the local user (`Match user`). */
  private user(): string {
    return this.q.user ?? this.values.get('user')?.args[0] ?? this.q.localUser;
  }

  private note(message: string): void {
    if (this.notes.has(message)) return;
    this.notes.add(message);
    this.q.onNote?.(message);
  }

  private parse(file: string, required: boolean): Line[] | null {
    if (this.parsed.has(file)) return this.parsed.get(file)!;
    let lines: Line[] | null = null;
    try {
      lines = SSHConfig.parse((this.q.fs ?? fs).readFileSync(file, 'utf8'));
      this.read.push(file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') {
        if (required) throw new SluiceError('USAGE', `cannot open ssh config file ${displayText(file)}: no such file`);
      } else if (code !== undefined) {
        if (required)
          throw new SluiceError('USAGE', `cannot read ssh config file ${displayText(file)}: ${(e as Error).message}`);
        this.note(`ssh config ${file}: not read (${(e as Error).message})`);
      } else {
        throw new SluiceError('USAGE', `ssh config file ${displayText(file)}: ${(e as Error).message}`);
      }
    }
    this.parsed.set(file, lines);
    return lines;
  }

  private walkFile(
    file: string,
    system: boolean,
    active: boolean,
    neverMatch: boolean,
    depth: number,
    required = false,
  ): void {
    const lines = this.parse(file, required);
    if (lines) this.walk(lines, file, system, active, neverMatch, depth);
  }

  /**
   * One level of lines: a `Host`/`Match` section applies its lines when it matches (never inside an Include read from
   * an inactive block: readconf.c SSHCONF_NEVERMATCH); an `Include` reads its files with the activity of where it
   * stands.
   */
  private walk(
    lines: Line[],
    file: string,
    system: boolean,
    active: boolean,
    neverMatch: boolean,
    depth: number,
  ): void {
    for (const line of lines) {
      if (line.type !== LineType.DIRECTIVE) continue;
      const keyword = line.param.toLowerCase();
      const args = argsOf(line.value);
      if (keyword === 'host' || keyword === 'match') {
        const on =
          !neverMatch && (keyword === 'host' ? matchPatternList(this.hostArg, args, true) : this.matchLine(args, file));
        if ('config' in line) this.walk(line.config as Line[], file, system, on, !on, depth);
      } else if (keyword === 'include') {
        if (active) this.include(args, file, system, neverMatch, depth);
      } else if (active) {
        this.set(keyword, args, file);
      }
    }
  }

  private include(patterns: string[], file: string, system: boolean, neverMatch: boolean, depth: number): void {
    if (depth + 1 > MAX_INCLUDE_DEPTH)
      throw new SluiceError(
        'USAGE',
        `ssh config ${displayText(file)}: Include nested more than ${MAX_INCLUDE_DEPTH} deep`,
      );
    const platform = this.q.platform ?? process.platform;
    const p = pathFor(platform);
    // Relative Includes: from ~/.ssh in user files, from the system file's folder in system ones (readconf.c).
    const systemFile = this.q.files.find((f) => f.system)?.path;
    const systemDir = systemFile ? p.dirname(systemFile) : systemSshDir(process.env, platform);
    const base = system ? systemDir : p.join(this.q.home, '.ssh');
    for (const pattern of patterns) {
      const expanded = expandTilde(pattern, this.q.home, platform);
      const absolute = p.isAbsolute(expanded) ? expanded : p.join(base, expanded);
      for (const f of expandGlob(absolute, platform, this.q.fs)) this.walkFile(f, system, true, neverMatch, depth + 1);
    }
  }

  /** Keeps the first value of a keyword; `IdentityFile` accumulates; ProxyJump and ProxyCommand exclude each other. */
  private set(keyword: string, args: string[], file: string): void {
    if (keyword === 'identityfile') {
      // Duplicates are dropped (readconf.c add_identity_file), which also keeps the final pass from doubling them.
      if (!this.identityFiles.some((f) => f.args[0] === args[0])) this.identityFiles.push({ args, file });
      return;
    }
    if (this.values.has(keyword)) return;
    if (
      (keyword === 'proxyjump' && this.values.has('proxycommand')) ||
      (keyword === 'proxycommand' && this.values.has('proxyjump'))
    )
      return;
    this.values.set(keyword, { args, file });
  }

  /** A `Match` line's criteria, all of which must hold (readconf.c match_cfg_line). */
  private matchLine(args: string[], file: string): boolean {
    let result = true;
    for (let i = 0; i < args.length;) {
      const word = args[i++];
      const negate = word.startsWith('!');
      const criterion = (negate ? word.slice(1) : word).toLowerCase();
      let hit: boolean;
      if (criterion === 'all') hit = true;
      else if (criterion === 'final') {
        this.wantFinal = true;
        hit = this.final;
      } else {
        const arg = args[i++];
        if (arg === undefined && ['host', 'originalhost', 'user', 'localuser'].includes(criterion)) {
          throw new SluiceError('USAGE', `ssh config ${displayText(file)}: Match ${criterion} needs an argument`);
        }
        const list = (arg ?? '').split(',');
        if (criterion === 'host') hit = matchPatternList(this.hostName(), list, true);
        else if (criterion === 'originalhost') hit = matchPatternList(this.q.host, list, true);
        else if (criterion === 'user') hit = matchPatternList(this.user(), list);
        else if (criterion === 'localuser') hit = matchPatternList(this.q.localUser, list);
        else {
          this.note(
            `ssh config ${file}: "Match ${args.join(' ')}" skipped: Sluice does not evaluate Match ${criterion}`,
          );
          return false;
        }
      }
      if (hit === negate) result = false;
    }
    return result;
  }
}

/**
 * Evaluates the configuration files for one host, as ssh(1) does before it connects.
 * @throws SluiceError USAGE when a `-F` file cannot be read, a file does not parse, or Includes nest too deep
 */
export function computeHostConfig(q: HostQuery): SshConfigResult {
  const e = new Evaluation(q);
  e.run();
  return { values: e.values, identityFiles: e.identityFiles, files: e.read };
}
