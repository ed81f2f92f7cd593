/**
 * `sluice find [--glob] [--case-sensitive] [--max-results N] [--json] URL PATTERN` (#26 item 5): the names under a
 * remote folder that contain PATTERN (or match it as a glob over the whole name), found by engine/remoteFind.ts with
 * many READDIRs in flight across folders and symlinks to folders entered once (a loop is reported, not followed).
 * One path per line as found (escaped), or one JSON object per match; a folder that cannot be listed is a failure
 * named on stderr (exit code from the error table), the walk going on.
 */
import { FIND_MAX_FOLDERS, type FindHit, type FindNote } from '../../common/ipc/find';
import { SluiceError, displayText } from '../errors';
import { remoteChild } from '../engine/remoteFiles';
import { findRemote } from '../engine/remoteFind';
import { entryJson, jsonLine } from './fileFormat';
import type { FileContext } from './fileSession';

export interface FindOptions {
  glob?: boolean;
  caseSensitive?: boolean;
  maxResults?: number;
}

/** Matches printed at most by default (the rest are counted). */
export const CLI_FIND_MAX_RESULTS = 1_000_000;

function noteLine(n: FindNote): string {
  const p = displayText(n.path, Infinity);
  const d = displayText(n.detail, Infinity);
  if (n.kind === 'loop') return `${p}: a symlink loop (it leads to ${d}, a folder above it): searched once`;
  if (n.kind === 'seen') return `${p}: a symlink to ${d}, a folder searched already: not searched again`;
  return `${p}: too deep: not searched`;
}

function printHit(ctx: FileContext, h: FindHit): void {
  const p = remoteChild(h.dir, h.name);
  if (ctx.json) ctx.print(jsonLine(entryJson(p, { ...h, mode: 0 })));
  else ctx.print(displayText(p, Infinity));
}

/** Runs `find` from the context's one folder. */
export async function runFind(ctx: FileContext, pattern: string, o: FindOptions): Promise<void> {
  if (ctx.paths.length !== 1) throw new SluiceError('USAGE', 'find needs one URL and one PATTERN');
  const st = await ctx.files.stat(ctx.paths[0], true);
  if (!st) throw new SluiceError('NO_SUCH_FILE', `${displayText(ctx.paths[0])}: no such file or folder`);
  if (st.type !== 'dir') throw new SluiceError('USAGE', `${displayText(ctx.paths[0])} is not a folder`);
  const maxResults = o.maxResults ?? CLI_FIND_MAX_RESULTS;
  const report = await findRemote(
    ctx.files,
    {
      findId: 'cli',
      root: ctx.paths[0],
      pattern,
      match: o.glob ? 'glob' : 'substring',
      caseSensitive: o.caseSensitive,
      maxResults,
      maxFolders: FIND_MAX_FOLDERS * 50,
    },
    ctx.signal,
    (batch) => {
      for (const h of batch.hits) printHit(ctx, h);
      for (const n of batch.notes) {
        // The listing's error names the folder already.
        if (n.kind === 'error') ctx.failed(new SluiceError('REMOTE_FAILURE', n.detail));
        else ctx.say(`sluice: find: ${noteLine(n)}`);
      }
    },
  );
  if (report.ended === 'cancelled') throw new SluiceError('ABORTED', 'cancelled');
  if (report.matched > report.shown)
    ctx.say(`sluice: find: ${report.matched - report.shown} more matches not shown (--max-results ${maxResults})`);
  if (report.ended === 'folderLimit') ctx.say(`sluice: find: stopped after ${report.folders} folders, the limit`);
  if (ctx.json)
    ctx.print(jsonLine({ type: 'report', matched: report.matched, shown: report.shown, folders: report.folders }));
}
