/**
 * The grammar and actions of the file commands, for parity with sftp, lftp and rclone (#26 item 8): `sluice ls`,
 * `stat`, `mkdir`, `rm`, `mv`, `chmod`, `ln -s`, `df`. Each takes sftp:// URLs as get and put do (saved sites, ssh
 * config aliases, -J jump hosts, --json) and exits with the same codes (docs/cli.md).
 */
import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { parseModeChange, type ModeChange } from '../../common/fileMode';
import { SluiceError, displayText } from '../errors';
import { chmodRemote } from '../engine/remoteChmod';
import { remoteChild } from '../engine/remoteFiles';
import { removeEmptyFolder, removeTree } from '../engine/remoteRemove';
import { parseRemoteUrl } from '../engine/remoteSpec';
import { TRANSFER_LIMITS } from '../../common/transferLimits';
import { dfLines, entryJson, fsUsage, jsonLine, statText } from './fileFormat';
import { runFileCommand, type FileCommandOptions, type FileContext } from './fileSession';
import { runLs, type LsOptions } from './lsCommand';
import { runFind, type FindOptions } from './findCommand';
import { addAlgorithmOptions, addLoginOptions, addReachOptions } from './connectionOptions';
import { intIn } from './optionParsers';

const FILES_HELP = `
Every operand is an sftp:// URL, as for get and put:
sftp://[user@]host[:port]/path, a saved site's name as the host, an ssh_config
Host alias; -J for jump hosts.
--json prints one JSON object per line on stdout (an entry of ls and stat, a
{"type":"report"} line of the other commands, {"type":"error"} lines).
Exit codes as get/put: 0 done, 1 failed, 2 usage, 3 authentication, 4 host key,
5 not found or permission denied, 7 host not found, 130 interrupted.`;

/** The connection options of every file command (get/put's, without the transfer ones). */
function addConnectOptions(cmd: Command): Command {
  return addReachOptions(
    addAlgorithmOptions(
      addLoginOptions(cmd)
        .option('--json', 'one JSON object per line on stdout')
        .option('--no-progress', 'accepted for symmetry with get and put (file commands draw no bar)')
        .option('-v, --verbose', 'say what is done, and the negotiated algorithms'),
    ),
  );
}

/** A file command: its operands, options and the action run once connected. */
function fileCommand<O extends FileCommandOptions>(
  program: Command,
  name: string,
  args: string,
  description: string,
  run: (ctx: FileContext, o: O, operands: string[]) => Promise<void>,
): Command {
  const cmd = program.command(name).description(description).arguments(args);
  addConnectOptions(cmd).addHelpText('after', FILES_HELP);
  cmd.action(async (...a: unknown[]) => {
    const operands = a.slice(0, -2).flat() as string[];
    const o = a[a.length - 2] as O;
    program.setOptionValue(
      'exitCode',
      await runFileCommand(name, urlOperands(name, operands), o, (ctx) => run(ctx, o, operands)),
    );
  });
  return cmd;
}

/** The URL operands of a command: `ln`'s TARGET and `chmod`'s MODE are not. */
function urlOperands(name: string, operands: string[]): string[] {
  if (name === 'chmod') return operands.slice(1);
  if (name === 'ln') return operands.slice(1);
  if (name === 'find') return operands.slice(0, 1);
  return operands;
}

/** `/`, or a path ending in `.` or `..`: rm refuses them, as rm(1) does. */
function refusedByRm(p: string): boolean {
  const base = path.posix.basename(p);
  return p.replace(/\/+$/, '') === '' || base === '.' || base === '..';
}

async function rmOne(
  ctx: FileContext,
  p: string,
  o: { recursive?: boolean; force?: boolean },
  total: { files: number; folders: number },
): Promise<void> {
  if (refusedByRm(p)) throw new SluiceError('USAGE', `refusing to remove ${displayText(p)}`);
  const st = await ctx.files.stat(p, false);
  if (!st) {
    if (!o.force) throw new SluiceError('NO_SUCH_FILE', `cannot remove ${displayText(p)}: no such file or folder`);
    return;
  }
  const said = (q: string, type: string) => {
    if (ctx.verbose && !ctx.json) ctx.say(`removed ${type === 'dir' ? 'folder ' : ''}${displayText(q, Infinity)}`);
  };
  if (st.type !== 'dir') {
    await ctx.files.call('remove', { path: p });
    total.files++;
    return said(p, st.type);
  }
  if (!o.recursive) {
    await removeEmptyFolder(ctx.files.pool, p);
    total.folders++;
    return said(p, 'dir');
  }
  const outcome = await removeTree(ctx.files, p, { signal: ctx.signal, onRemoved: (q, e) => said(q, e.type) });
  total.files += outcome.files;
  total.folders += outcome.folders;
  for (const e of outcome.failed) ctx.failed(e);
}

/** Runs `one` for each path, a failure of one not stopping the others. */
async function eachPath(ctx: FileContext, paths: string[], one: (p: string) => Promise<void>): Promise<void> {
  for (const p of paths) {
    try {
      await one(p);
    } catch (e) {
      if (SluiceError.from(e).code === 'ABORTED') throw e;
      ctx.failed(e);
    }
  }
}

function report(ctx: FileContext, fields: Record<string, unknown>): void {
  if (ctx.json) ctx.print(jsonLine({ type: 'report', ...fields }));
}

async function statCommand(ctx: FileContext, o: { dereference?: boolean }): Promise<void> {
  await eachPath(ctx, ctx.paths, async (p) => {
    const st = await ctx.files.stat(p, o.dereference === true);
    if (!st) throw new SluiceError('NO_SUCH_FILE', `${displayText(p)}: no such file or folder`);
    const e = {
      ...st,
      name: path.posix.basename(p) || p,
      target: st.type === 'symlink' ? await ctx.files.readlink(p) : undefined,
    };
    if (ctx.json) ctx.print(jsonLine(entryJson(p, e)));
    else for (const line of statText(p, e)) ctx.print(line);
  });
}

async function mvCommand(ctx: FileContext, o: { force?: boolean }): Promise<void> {
  if (ctx.paths.length < 2) throw new SluiceError('USAGE', 'mv needs a SOURCE and a DEST');
  const sources = ctx.paths.slice(0, -1);
  const dest = ctx.paths[ctx.paths.length - 1];
  const st = await ctx.files.stat(dest, true);
  if (sources.length > 1 && st?.type !== 'dir')
    throw new SluiceError('USAGE', `mv: ${displayText(dest)} is not a folder (several sources)`);
  let moved = 0;
  await eachPath(ctx, sources, async (src) => {
    const to = st?.type === 'dir' ? remoteChild(dest, path.posix.basename(src.replace(/\/+$/, ''))) : dest;
    await ctx.files.move(src, to, o.force === true);
    moved++;
    if (ctx.verbose && !ctx.json) ctx.say(`renamed ${displayText(src, Infinity)} -> ${displayText(to, Infinity)}`);
  });
  report(ctx, { moved });
}

async function chmodCommand(ctx: FileContext, change: ModeChange, o: { recursive?: boolean }): Promise<void> {
  const total = { changed: 0, unchanged: 0, links: 0 };
  await eachPath(ctx, ctx.paths, async (p) => {
    const outcome = await chmodRemote(ctx.files, p, change, {
      recursive: o.recursive,
      signal: ctx.signal,
      onChanged: (q, from, to) => {
        if (ctx.verbose && !ctx.json)
          ctx.say(
            `mode of ${displayText(q, Infinity)} changed from ${from.toString(8).padStart(4, '0')} to ${to.toString(8).padStart(4, '0')}`,
          );
      },
    });
    total.changed += outcome.changed;
    total.unchanged += outcome.unchanged;
    total.links += outcome.links;
    for (const e of outcome.failed) ctx.failed(e);
  });
  report(ctx, total);
}

async function lnCommand(ctx: FileContext, target: string, o: { symbolic?: boolean }): Promise<void> {
  if (!o.symbolic) throw new SluiceError('USAGE', 'ln makes symbolic links only over SFTP: use ln -s TARGET LINK');
  const linkTarget = parseRemoteUrl(target)?.path ?? target;
  if (linkTarget === '') throw new SluiceError('USAGE', 'ln -s needs a TARGET that is not empty');
  const at = ctx.paths[0];
  const st = await ctx.files.stat(at, true).catch(() => null);
  const link = st?.type === 'dir' ? remoteChild(at, path.posix.basename(linkTarget)) : at;
  await ctx.files.symlink(linkTarget, link);
  report(ctx, { link, target: linkTarget });
}

async function dfCommand(ctx: FileContext, o: { inodes?: boolean }): Promise<void> {
  await eachPath(ctx, ctx.paths, async (p) => {
    const s = await ctx.files.statvfs(p);
    if (ctx.json) ctx.print(jsonLine({ path: p, ...fsUsage(s), blockSize: s.frsize || s.bsize, namemax: s.namemax }));
    else for (const line of dfLines(p, s, o.inodes)) ctx.print(line);
  });
}

function parseMode(v: string): string {
  if (!parseModeChange(v))
    throw new InvalidArgumentError('expected an octal MODE (755) or symbolic clauses (u+x,go-w, a=rX)');
  return v;
}

/** Adds `sluice ls|stat|mkdir|rm|mv|chmod|ln|df|find` to the program, in that order (the help lists them so). */
export function addFileCommands(program: Command): void {
  addListAndCreate(program);
  addMoveAndChange(program);
}

/** `ls`, `stat`, `mkdir`, `rm`. */
function addListAndCreate(program: Command): void {
  fileCommand<FileCommandOptions & LsOptions>(
    program,
    'ls',
    '<url...>',
    "list remote folders (like ls and sftp's ls)",
    (ctx, o) => runLs(ctx, o),
  )
    .option('-l, --long', 'long listing: mode, links, owner, group, size, date, name (a symlink: -> target)')
    .option('-a, --all', 'include names starting with .')
    .option('-R, --recursive', 'list sub-folders too, many at once')
    .option('-L, --dereference', 'with -R, enter symlinks to folders (each folder listed once; a loop is reported)')
    .option(
      '--max-depth <n>',
      `with -R, not deeper than this, ${TRANSFER_LIMITS.maxDepth.text}`,
      intIn(TRANSFER_LIMITS.maxDepth),
    );
  fileCommand<FileCommandOptions & { dereference?: boolean }>(
    program,
    'stat',
    '<url...>',
    "show a remote path's type, size, mode, owner and times",
    (ctx, o) => statCommand(ctx, o),
  ).option('-L, --dereference', 'follow a symlink');
  fileCommand<FileCommandOptions & { parents?: boolean }>(
    program,
    'mkdir',
    '<url...>',
    'create remote folders',
    async (ctx, o) => {
      let created = 0;
      await eachPath(ctx, ctx.paths, async (p) => {
        if (await ctx.files.mkdir(p, o.parents === true)) created++;
      });
      report(ctx, { created });
    },
  ).option('-p, --parents', 'create missing parents; an existing folder is no error');
  fileCommand<FileCommandOptions & { recursive?: boolean; force?: boolean }>(
    program,
    'rm',
    '<url...>',
    'remove remote files, and folders (empty ones, or with -r everything in them)',
    async (ctx, o) => {
      const total = { files: 0, folders: 0 };
      await eachPath(ctx, ctx.paths, (p) => rmOne(ctx, p, o, total));
      report(ctx, total);
    },
  )
    .option('-r, --recursive', 'remove folders and everything in them (many requests in flight)')
    .option('-f, --force', 'a path that does not exist is no error');
}

/** `mv`, `chmod`, `ln`, `df`, `find`. */
function addMoveAndChange(program: Command): void {
  fileCommand<FileCommandOptions & { force?: boolean }>(
    program,
    'mv',
    '<url...>',
    'move or rename SOURCE… to DEST (into DEST when it is a folder)',
    (ctx, o) => mvCommand(ctx, o),
  )
    .usage('[options] <source...> <dest>')
    .option('-f, --force', 'replace an existing target (posix-rename@openssh.com where offered)');
  fileCommand<FileCommandOptions & { recursive?: boolean }>(
    program,
    'chmod',
    '<mode> <url...>',
    'change the permissions of remote paths: MODE octal (755) or symbolic (u+x,go-w)',
    (ctx, o, a) => chmodCommand(ctx, parseModeChange(a[0])!, o),
  ).option(
    '-R, --recursive',
    'change folders and everything in them (many requests in flight; symlinks inside are left alone)',
  );
  fileCommand<FileCommandOptions & { symbolic?: boolean }>(
    program,
    'ln',
    '<target> <url>',
    'create a symbolic link at URL naming TARGET (a path on the server, kept as typed)',
    (ctx, o, a) => lnCommand(ctx, a[0], o),
  ).option('-s, --symbolic', 'make a symbolic link (required: SFTP has no portable hard links)');
  fileCommand<FileCommandOptions & { inodes?: boolean }>(
    program,
    'df',
    '<url...>',
    'size and free space of the file system holding each path (statvfs@openssh.com)',
    (ctx, o) => dfCommand(ctx, o),
  ).option('--inodes', 'inodes instead of bytes (df -i)');
  fileCommand<FileCommandOptions & FindOptions>(
    program,
    'find',
    '<url> <pattern>',
    'names below a remote folder containing PATTERN (or matching it with --glob), many folders at once',
    (ctx, o, a) => runFind(ctx, a[1], o),
  )
    .option('--glob', 'PATTERN is a glob over the whole name (*, ?, [abc])')
    .option('--case-sensitive', 'upper and lower case differ (default: alike)')
    .option(
      '--max-results <n>',
      'print at most N matches (the rest are counted)',
      intIn({ min: 1, max: 1e9, text: '1 to 1000000000' }),
    );
  const chmod = program.commands.find((c) => c.name() === 'chmod');
  chmod?.registeredArguments[0]?.argParser(parseMode);
}
