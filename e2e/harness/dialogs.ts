/**
 * TEST ONLY: stands in for the system's file dialogs (main/platform/dialogs.ts, Electron's open dialog) in the service
 * a spec runs (`test.use({ engineOptions: { dialogs } })`): each dialog takes the next queued answer (a path, or null
 * for Cancel) and records what it was asked.
 */
import type { FileDialogs, OpenFileRequest } from '../../app/node/service';

export class FileDialogStandIn implements FileDialogs {
  /** What the next dialogs answer, in order (none left: cancelled). */
  readonly answers: Array<string | null> = [];
  /** Every request, in order. */
  readonly asked: OpenFileRequest[] = [];

  async openFile(request: OpenFileRequest): Promise<string | null> {
    this.asked.push(request);
    return this.answers.length ? this.answers.shift()! : null;
  }
}
