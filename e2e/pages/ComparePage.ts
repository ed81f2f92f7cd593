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
