/** Page object of Compare and Synchronize… (#27): the bar over the panes, the marks on the rows, the dialog. */
import { expect, type Locator, type Page } from '@playwright/test';

export class ComparePage {
  constructor(readonly page: Page) {}

  get bar(): Locator {
    return this.page.getByRole('toolbar', { name: 'Compare and synchronize' });
  }
  get toggle(): Locator {
    return this.bar.getByRole('button', { name: 'Compare', exact: true });
  }
  get differencesOnly(): Locator {
    return this.bar.getByRole('checkbox', { name: 'Differences only' });
  }
  get legend(): Locator {
    return this.bar.getByRole('list', { name: 'Compare legend' });
  }
  get synchronizeButton(): Locator {
    return this.bar.getByRole('button', { name: 'Synchronize…' });
  }
  get dialog(): Locator {
    return this.page.getByRole('dialog', { name: 'Synchronize' });
  }

  /** The status a pane's row is marked with (its `data-compare`), or null when it has none. */
  async mark(pane: Locator, name: string): Promise<string | null> {
    return pane.getByRole('row', { name, exact: true }).getAttribute('data-compare');
  }

  /** Expects every named row of `pane` to carry its mark (the status's words are the glyph's accessible name). */
  async expectMarks(pane: Locator, marks: Record<string, string>): Promise<void> {
    for (const [name, status] of Object.entries(marks)) {
      await expect(pane.getByRole('row', { name, exact: true })).toHaveAttribute('data-compare', status);
    }
  }

  /** The legend line for `text` (its glyph's name and count, e.g. "only in Local: 2"). */
  legendLine(text: string): Locator {
    return this.legend.getByRole('listitem').filter({ hasText: text });
  }
}

/** Page object of the Synchronize… dialog. */
export class SyncDialogPage {
  constructor(readonly page: Page) {}

  get dialog(): Locator {
    return this.page.getByRole('dialog', { name: 'Synchronize' });
  }
  get list(): Locator {
    return this.dialog.getByRole('group', { name: 'Synchronization preview' });
  }
  get deleteBox(): Locator {
    return this.dialog.getByRole('checkbox', { name: 'Delete files the source does not have' });
  }
  get errors(): Locator {
    return this.dialog.getByRole('alert', { name: 'Listing errors' });
  }

  /** Opens the dialog from the bar over the panes. */
  async open(): Promise<void> {
    await this.page
      .getByRole('toolbar', { name: 'Compare and synchronize' })
      .getByRole('button', { name: 'Synchronize…' })
      .click();
    await expect(this.dialog).toBeVisible();
  }

  /** Sets the options (those given) and presses Preview; waits for the listing to end. */
  async preview(o: { direction?: 'Local → Remote' | 'Remote → Local'; delete?: boolean; exclude?: string } = {}) {
    if (o.direction) await this.dialog.getByRole('radio', { name: o.direction }).check();
    if (o.delete !== undefined) await this.deleteBox.setChecked(o.delete);
    if (o.exclude !== undefined) await this.dialog.getByLabel('Exclude (one glob a line)').fill(o.exclude);
    await this.dialog.getByRole('button', { name: 'Preview' }).click();
    await expect(this.dialog.getByRole('status')).toBeHidden({ timeout: 30_000 });
  }

  /** An item's box: `Create img/logo.png`, `Delete old.html`. */
  item(name: string): Locator {
    return this.list.getByRole('checkbox', { name, exact: true });
  }
  /** A section's box, by the start of its line (`Create:`). */
  section(start: 'Create' | 'Update' | 'Delete'): Locator {
    return this.list.getByRole('checkbox', { name: new RegExp(`^${start}: `) });
  }
  get run(): Locator {
    return this.dialog.getByRole('button', { name: 'Run' });
  }
}
