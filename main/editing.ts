/**
 * main/'s part of editing remote files (#26 item 1; the engine's part is app/node/edit/): a private copy opens in the
 * system's default application through `shell.openPath`, and quitting (or closing the window) while an edited file
 * has a save not on the server asks first.
 */
import { dialog, shell, type BrowserWindow, type MessageBoxOptions } from 'electron';
import type { EditView } from '../app/common/model/edit';

/** Opens `file` in the system's default application: '' once opened, else the OS's error (Electron shell.openPath). */
export function openInDefaultApp(file: string): Promise<string> {
  return shell.openPath(file);
}

/** At most this many files are named in the question (then "and N more"). */
const NAMED = 5;

/** The question's text for the edits with unsent saves (state and remote path of each, up to {@link NAMED}). */
export function quitQuestion(pending: readonly EditView[]): MessageBoxOptions {
  const stateOf = (v: EditView): string => (v.state === 'uploading' ? 'uploading' : `${v.state}, not uploaded`);
  const lines = pending.slice(0, NAMED).map((v) => `${v.remotePath} (${stateOf(v)})`);
  if (pending.length > NAMED) lines.push(`and ${pending.length - NAMED} more`);
  const one = pending.length === 1;
  return {
    type: 'warning',
    buttons: ['Keep Sluice open', 'Quit anyway'],
    defaultId: 0,
    cancelId: 0,
    noLink: true,
    message: one
      ? 'An edited file has a save that is not on the server yet'
      : `${pending.length} edited files have saves that are not on the server yet`,
    detail:
      `${lines.join('\n')}\n\nIf you quit now, ${one ? 'it is' : 'they are'} sent the next time the site ` +
      'connects.',
  };
}

/**
 * Asks before quitting while `pending()` lists edits with unsent saves; one question at a time, and once the user
 * chose to quit it does not ask again.
 */
export class QuitGuard {
  private confirmed = false;
  private asking?: Promise<void>;

  /**
   * @param pending the service's pendingEdits
   * @param parent the window the question is modal to (null: none)
   */
  constructor(
    private readonly pending: () => EditView[],
    private readonly parent: () => BrowserWindow | null,
  ) {}

  /**
   * Whether quitting may go on now. When not, the question is shown (unless it is already) and `quit` is called if
   * the user chooses to quit anyway; the caller prevents this quit (or window close) meanwhile.
   */
  mayQuit(quit: () => void): boolean {
    if (this.confirmed) return true;
    const pending = this.pending();
    if (pending.length === 0) return true;
    this.asking ??= this.ask(pending).then((yes) => {
      this.asking = undefined;
      if (!yes) return;
      this.confirmed = true;
      quit();
    });
    return false;
  }

  private async ask(pending: readonly EditView[]): Promise<boolean> {
    const win = this.parent();
    const options = quitQuestion(pending);
    const { response } = win ? await dialog.showMessageBox(win, options) : await dialog.showMessageBox(options);
    return response === 1;
  }
}
