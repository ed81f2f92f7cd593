/** Page object of Keep remote up to date… (#27): its dialog from the bar over the panes, its status bar segment. */
import { expect, type Locator, type Page } from '@playwright/test';

export class KeepUpPage {
  constructor(readonly page: Page) {}

  get dialog(): Locator {
    return this.page.getByRole('dialog', { name: 'Keep remote up to date' });
  }
  get deleteBox(): Locator {
    return this.dialog.getByRole('checkbox', { name: 'Delete on the server what is deleted here' });
  }
  get syncFirstBox(): Locator {
    return this.dialog.getByRole('checkbox', { name: /^First synchronize/ });
  }
  /** The status bar's segment of the keep-up of `localDir`. */
  segment(localDir: string): Locator {
    return this.page
      .getByRole('status', { name: 'Status' })
      .getByRole('group', { name: `Keep up to date ${localDir}` });
  }
  state(localDir: string): Locator {
    return this.segment(localDir).getByLabel('Keep-up state');
  }
  lastChange(localDir: string): Locator {
    return this.segment(localDir).getByLabel('Last change');
  }

  /** Opens the dialog from the bar over the panes. */
  async open(): Promise<void> {
    await this.page
      .getByRole('toolbar', { name: 'Compare and synchronize' })
      .getByRole('button', { name: 'Keep up to date…' })
      .click();
    await expect(this.dialog).toBeVisible();
  }

  /** Sets the options given, presses Start and waits for the dialog to close. */
  async start(o: { delete?: boolean; syncFirst?: boolean; exclude?: string } = {}): Promise<void> {
    if (o.delete !== undefined) await this.deleteBox.setChecked(o.delete);
    if (o.syncFirst !== undefined) await this.syncFirstBox.setChecked(o.syncFirst);
    if (o.exclude !== undefined) await this.dialog.getByLabel('Exclude (one glob a line)').fill(o.exclude);
    await this.dialog.getByRole('button', { name: 'Start' }).click();
    await expect(this.dialog).toBeHidden({ timeout: 30_000 });
  }

  /** Presses Stop in the keep-up's segment and waits for it to leave the status bar. */
  async stop(localDir: string): Promise<void> {
    await this.segment(localDir).getByRole('button', { name: 'Stop' }).click();
    await expect(this.segment(localDir)).toHaveCount(0);
  }
}
