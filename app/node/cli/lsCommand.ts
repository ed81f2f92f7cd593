/**
 * `sluice ls [-l] [-a] [-R] [-L] [--json] URL…`: names as ls(1) and OpenSSH's sftp show them (files named as
 * operands first, then each folder's entries in name order; hidden names only with -a), `-l` in sftp's long layout,
 * `-R` walking the tree with many folders listed at once (engine/remoteTree.ts) yet printed in ls -R order, `-L`
 * entering symlinks to folders with each folder listed once (a loop is reported, not followed), `--json` one object
 * per entry.
 */
import { SluiceError, displayText } from '../errors';
import { FILE_OPS_IN_FLIGHT, InFlight, remoteChild } from '../engine/remoteFiles';
import { eachInOrder, walkTree, type SkippedLink, type TreeEntry } from '../engine/remoteTree';
import { DEFAULT_MAX_DEPTH } from '../transfer/scan';
import { columns, entryJson, jsonLine, longLine, type ShownEntry } from './fileFormat';
import type { FileContext } from './fileSession';

export interface LsOptions {
  long?: boolean;
  all?: boolean;
  recursive?: boolean;
  dereference?: boolean;
  maxDepth?: number;
}

/** What a skipped link's line says. */
function skippedText(s: SkippedLink, maxDepth: number): string {
  const path = displayText(s.path, Infinity);
  const target = displayText(s.target, Infinity);
  if (s.kind === 'loop')
    return `${path}: a symlink loop (it leads to ${target}, a folder above it): listed once, not entered again`;
  if (s.kind === 'seen') return `${path}: a symlink to ${target}, a folder listed already: not listed again`;
  return `${path}: deeper than --max-depth ${maxDepth}: not listed`;
}

/** Prints entries: JSON lines, `-l` lines, columns on a terminal, else one name per line. */
function printEntries(ctx: FileContext, o: LsOptions, dir: string | undefined, entries: ShownEntry[]): void {
  const now = Date.now();
  if (ctx.json) {
    for (const e of entries) ctx.print(jsonLine(entryJson(dir === undefined ? e.name : remoteChild(dir, e.name), e)));
  } else if (o.long) {
    for (const e of entries) ctx.print(longLine(e, now));
  } else if (process.stdout.isTTY) {
    for (const line of columns(
      entries.map((e) => e.name),
      process.stdout.columns || 80,
    ))
      ctx.print(line);
  } else {
    for (const e of entries) ctx.print(displayText(e.name, Infinity));
  }
}

/** The operands split into files (shown as named) and folders (listed), as ls does; a missing one is a failure. */
async function sortOperands(ctx: FileContext, o: LsOptions): Promise<{ files: ShownEntry[]; folders: string[] }> {
  const files: ShownEntry[] = [];
  const folders: string[] = [];
  const stats = await Promise.all(
    ctx.paths.map((p) =>
      ctx.files.stat(p, true).then(
        (st) => st,
        (e: unknown) => SluiceError.from(e),
      ),
    ),
  );
  for (const [i, p] of ctx.paths.entries()) {
    const st = stats[i];
    if (st instanceof SluiceError) ctx.failed(st);
    else if (!st) ctx.failed(new SluiceError('NO_SUCH_FILE', `${displayText(p)}: no such file or folder`));
    else if (st.type === 'dir') folders.push(p);
    else files.push({ ...(o.long ? ((await ctx.files.stat(p, false)) ?? st) : st), name: p });
  }
  for (const f of files) {
    if (o.long && f.type === 'symlink') f.target = await ctx.files.readlink(f.name).catch(() => undefined);
  }
  return { files: files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)), folders };
}

/** Runs `ls` on the context's paths. */
export async function runLs(ctx: FileContext, o: LsOptions): Promise<void> {
  const { files, folders } = await sortOperands(ctx, o);
  if (files.length) printEntries(ctx, o, undefined, files);
  const headers = o.recursive || files.length + folders.length > 1;
  let first = files.length === 0;
  const maxDepth = o.maxDepth ?? DEFAULT_MAX_DEPTH;
  const slots = new InFlight(FILE_OPS_IN_FLIGHT, ctx.signal);
  const visible = (e: TreeEntry) => o.all === true || !e.name.startsWith('.');
  for (const root of folders) {
    const canonical = o.dereference ? await ctx.files.pool.realpath(root) : root;
    const tree = walkTree(
      ctx.files,
      root,
      {
        inFlight: slots,
        long: o.long || ctx.json,
        targets: o.long || ctx.json,
        follow: o.dereference,
        maxDepth,
        enter: o.recursive ? visible : () => false,
        signal: ctx.signal,
        onSkipped: (s) => {
          ctx.say(`sluice: ls: ${skippedText(s, maxDepth)}`);
          if (ctx.json)
            ctx.print(jsonLine({ type: 'skipped', reason: s.kind, path: s.path, target: s.target || undefined }));
        },
      },
      canonical,
    );
    await eachInOrder(tree, (folder, entries, error) => {
      if (!ctx.json && headers) {
        if (!first) ctx.print('');
        ctx.print(`${displayText(folder.path, Infinity)}:`);
      }
      first = false;
      if (error) ctx.failed(error);
      else printEntries(ctx, o, folder.path, (entries ?? []).filter(visible));
    });
  }
}
