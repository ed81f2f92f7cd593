/**
 * The local pane's other file operations (#26 item 6): a move (rename(2) into another folder: never a copy, so a move
 * across file systems is refused, EXDEV, with nothing half-copied), a duplicate beside the original ("name (copy).ext",
 * fs.copyFile / fs.cp, never over an existing file), an empty file (open 'wx'), a symlink, and the system's default
 * application for a file (`openPath`: main/'s shell.openPath).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { freeCopyName, type DuplicateResult } from '../../common/ipc/fileOps';
import { SluiceError, displayText, fromLocalError } from '../errors';
import { caseOnlyRename, exists } from './localFs';

/** Whether `to` is `from` itself or inside it (a folder cannot be moved into itself). */
export function insideItself(from: string, to: string, sep: string): boolean {
  return to === from || to.startsWith(from.endsWith(sep) ? from : from + sep);
}

/**
 * `local.rename` as a move: `from` to the full path `to`. An existing target is refused (EXISTS) unless `overwrite`
 * (then rename(2) replaces a file, or an empty folder); a folder into itself or below itself is refused (USAGE); a move
 * to another file system is refused (EXDEV: rename(2) cannot, and a copy is not a move).
 */
export async function moveLocal(from: string, to: string, overwrite = false): Promise<void> {
  if (insideItself(path.resolve(from), path.resolve(to), path.sep))
    throw new SluiceError('USAGE', `Cannot move ${displayText(from)} into itself (${displayText(to)})`);
  if (!overwrite && (await exists(to)) && !(await caseOnlyRename(from, to)))
    throw new SluiceError('EXISTS', `Cannot move ${displayText(from)} to ${displayText(to)}: the target exists`);
  await fs.promises.rename(from, to).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'EXDEV') {
      throw new SluiceError(
        'USAGE',
        `Cannot move ${displayText(from)} to ${displayText(path.dirname(to))}: they are on different file systems ` +
          '(EXDEV); nothing was copied. Copy it there, then delete the original.',
        { cause: e },
      );
    }
    throw fromLocalError(e, from, 'move');
  });
}

/** `local.duplicate`: a copy of the file or folder `p` beside it under the first free "(copy)" name. */
export async function duplicateLocal(p: string): Promise<DuplicateResult> {
  const st = await fs.promises.lstat(p).catch((e) => {
    throw fromLocalError(e, p, 'duplicate');
  });
  const dir = path.dirname(p);
  const names = new Set(await fs.promises.readdir(dir));
  const copy = path.join(
    dir,
    freeCopyName(path.basename(p), (n) => names.has(n), st.isDirectory()),
  );
  const copying = st.isDirectory()
    ? fs.promises.cp(p, copy, { recursive: true, errorOnExist: true, force: false, verbatimSymlinks: true })
    : st.isSymbolicLink()
      ? fs.promises.readlink(p).then((target) => fs.promises.symlink(target, copy))
      : fs.promises.copyFile(p, copy, fs.constants.COPYFILE_EXCL);
  await copying.catch((e) => {
    throw fromLocalError(e, p, `duplicate to ${copy}:`);
  });
  return { path: copy, via: 'local' };
}

/** `local.newFile`: an empty file, never over an existing one (open 'wx': O_CREAT|O_EXCL). */
export async function newLocalFile(p: string): Promise<void> {
  const h = await fs.promises.open(p, 'wx').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'EEXIST') throw new SluiceError('EXISTS', `Cannot create ${displayText(p)}: it exists`);
    throw fromLocalError(e, p, 'create file');
  });
  await h.close();
}

/** `local.symlink`: a link at `p` naming `target` (as given). */
export async function newLocalSymlink(target: string, p: string): Promise<void> {
  await fs.promises.symlink(target, p).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'EEXIST') throw new SluiceError('EXISTS', `Cannot create symlink ${displayText(p)}: it exists`);
    throw fromLocalError(e, p, 'create symlink');
  });
}

/**
 * `local.open`: the file in the system's default application.
 * @param openPath main/'s shell.openPath ('' or the failure's text); absent (no desktop): refused
 */
export async function openLocal(p: string, openPath?: (file: string) => Promise<string>): Promise<void> {
  if (!openPath) throw new SluiceError('INVALID_STATE', 'Opening files needs the desktop app');
  await fs.promises.lstat(p).catch((e) => {
    throw fromLocalError(e, p, 'open');
  });
  const failure = await openPath(p);
  if (failure) throw new SluiceError('LOCAL_IO', `Cannot open ${displayText(p)}: ${displayText(failure)}`);
}
