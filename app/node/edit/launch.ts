/**
 * Starts the editor command set in Settings on an edited file: the command is split into words as a POSIX shell would
 * split plain words and quotes ('…', "…", backslash), without running a shell (nothing is expanded, no `;` or
 * `$()`; app/common/editorCommand.ts, which the Settings field checks with too); `{file}` stands for the file's path,
 * and with no `{file}` the path is added as the last word.
 */
import { spawn } from 'node:child_process';
import { splitEditorCommand } from '../../common/editorCommand';
import { SluiceError } from '../errors';

/**
 * Splits an editor command into words (app/common/editorCommand.ts).
 * @throws SluiceError USAGE for an empty command or an unclosed quote
 */
export function splitCommand(command: string): string[] {
  try {
    return splitEditorCommand(command);
  } catch (e) {
    throw new SluiceError('USAGE', (e as Error).message);
  }
}

/** The program and its arguments for `file`: every `{file}` replaced, else the file added at the end. */
export function editorArgv(command: string, file: string): string[] {
  const words = splitCommand(command);
  return words.some((w) => w.includes('{file}')) ? words.map((w) => w.split('{file}').join(file)) : [...words, file];
}

/**
 * Starts the editor on `file`, detached (it may outlive Sluice), and resolves once it started.
 * @throws SluiceError USAGE when the program cannot be started (not found, not executable), naming it
 */
export function launchEditor(command: string, file: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const [program, ...args] = editorArgv(command, file);
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { detached: true, stdio: 'ignore', env });
    child.once('error', (e) => reject(new SluiceError('USAGE', `Cannot start the editor ${program}: ${e.message}`)));
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}
