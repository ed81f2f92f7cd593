/**
 * Page object of the Sluice window: intent methods that act through roles and labels and wait for the
 * app's own signals (dialogs, rows, job states, totals), never for fixed delays.
 */
import { expect, type Locator, type Page } from '@playwright/test';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Harness } from '../harness/server';
import { screenshotWithNeutralPaths } from './neutralScreenshot';

/**
 * Where the run's screenshots go: test-results/screenshots (ignored by git, emptied by Playwright at the start of
 * each run; SLUICE_SCREENSHOT_DIR overrides). `npm run screenshots` copies a whole run's set into docs/screenshots.
 */
export const SCREENSHOT_DIR = process.env.SLUICE_SCREENSHOT_DIR
  ? path.resolve(process.env.SLUICE_SCREENSHOT_DIR)
  : path.resolve(__dirname, '..', '..', 'test-results', 'screenshots');

/** A point 12 px above the bottom centre of an element (the empty area of a pane). */
async function bottomOf(el: Locator): Promise<{ x: number; y: number }> {
  const box = await el.boundingBox();
  if (!box) throw new Error('element is not visible');
  return { x: box.width / 2, y: box.height - 12 };
}

export interface SiteFields {
  name: string;
  folder?: string;
  host: string;
  port: number;
  user: string;
  keyPath?: string;
  /** Password authentication; `password` is stored with the site when given, else asked when connecting. */
  auth?: 'password';
  password?: string;
  localDir?: string;
  remoteDir?: string;
  connections?: number;
  channels?: number;
  /** The site's cipher list, most preferred first (set in the form's algorithm editor); absent: the defaults. */
  ciphers?: string[];
}

/** The queue-wide actions (header buttons, or the "More queue actions" menu of a narrow queue). */
export type QueueAction = 'Pause all' | 'Resume all' | 'Retry failed' | 'Clear finished';

export class SluicePage {
  constructor(
    readonly page: Page,
    readonly harness: Harness,
  ) {}

  // ---- regions -------------------------------------------------------------------------------
  get siteManager(): Locator {
    return this.page.getByRole('complementary', { name: 'Site manager' });
  }
  get localPane(): Locator {
    return this.page.getByRole('region', { name: 'Local pane' });
  }
  get remotePane(): Locator {
    return this.page.getByRole('region', { name: 'Remote pane' });
  }
  get localGrid(): Locator {
    return this.localPane.getByRole('grid', { name: 'Local files' });
  }
  get remoteGrid(): Locator {
    return this.remotePane.getByRole('grid', { name: 'Remote files' });
  }
  get queue(): Locator {
    return this.page.getByRole('region', { name: 'Queue' });
  }
  get graph(): Locator {
    return this.page.getByRole('img', { name: /^Throughput graph/ });
  }
  get statusBar(): Locator {
    return this.page.getByRole('status', { name: 'Status' });
  }
  get log(): Locator {
    return this.page.getByRole('log', { name: 'Log lines' });
  }
  hostKeyDialog(kind: 'unknown' | 'changed'): Locator {
    return kind === 'unknown'
      ? this.page.getByRole('dialog', { name: 'Unknown host key' })
      : this.page.getByRole('alertdialog', { name: 'WARNING: host key has changed' });
  }
  /** The quick-connect bar under the toolbar (#23 item 19). */
  get quickConnect(): Locator {
    return this.page.getByRole('search', { name: 'Quick connect' });
  }
  /** The compact error banner of a failed connection (one line; the full text is behind Details). */
  get connectionErrorBanner(): Locator {
    return this.page.getByRole('alert', { name: 'Connection error' });
  }
  /** Neutral notices under the toolbar (e.g. host keys learned from a trusted server). */
  get notices(): Locator {
    return this.page.getByRole('status', { name: 'Notice' });
  }
  passwordDialog(userAtHost: string): Locator {
    return this.page.getByRole('dialog', { name: `Password for ${userAtHost}` });
  }
  /** A keyboard-interactive round's dialog (one field per prompt of the server). */
  loginDialog(userAtHost: string): Locator {
    return this.page.getByRole('dialog', { name: `Login to ${userAtHost}` });
  }
  get passphraseDialog(): Locator {
    return this.page.getByRole('dialog', { name: 'Passphrase for key' });
  }
  get conflictDialog(): Locator {
    return this.page.getByRole('dialog', { name: 'File already exists' });
  }

  // ---- intents -------------------------------------------------------------------------------
  /** Opens the app and waits until the store has loaded (the local pane lists its folder). */
  async open(): Promise<void> {
    await this.page.goto(this.harness.url);
    await expect(this.siteManager).toBeVisible();
    await expect(this.localGrid).toBeVisible();
  }

  /** Creates a site through the form (key-file auth when `keyPath`, else agent) and waits for it in the tree. */
  async createSite(f: SiteFields): Promise<void> {
    await this.siteManager.getByRole('button', { name: 'New site' }).click();
    const dialog = this.page.getByRole('dialog', { name: 'New site' });
    await expect(dialog).toBeVisible();
    await dialog.getByLabel('Name', { exact: true }).fill(f.name);
    if (f.folder) await dialog.getByLabel('Folder', { exact: true }).fill(f.folder);
    await dialog.getByLabel('Host', { exact: true }).fill(f.host);
    await dialog.getByLabel('Port', { exact: true }).fill(String(f.port));
    await dialog.getByLabel('User', { exact: true }).fill(f.user);
    if (f.auth === 'password') {
      await dialog.getByLabel('Authentication').selectOption('password');
      if (f.password !== undefined) await dialog.getByLabel('Password', { exact: true }).fill(f.password);
    } else if (f.keyPath) {
      await dialog.getByLabel('Authentication').selectOption('key');
      await dialog.getByLabel('Key file').fill(f.keyPath);
    }
    if (f.localDir) await dialog.getByLabel('Local folder').fill(f.localDir);
    if (f.remoteDir) await dialog.getByLabel('Remote folder').fill(f.remoteDir);
    if (f.connections || f.channels || f.ciphers) await this.openAdvanced(dialog);
    if (f.connections) await dialog.getByLabel('Connections').fill(String(f.connections));
    if (f.channels) await dialog.getByLabel('Channels per connection').fill(String(f.channels));
    if (f.ciphers) await this.chooseAlgorithms(dialog, 'Ciphers', f.ciphers);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    await expect(this.siteItem(f.name)).toBeVisible();
  }

  /** Unfolds a site form's "Advanced" section (connections, channels, speed limit, jump hosts, algorithm lists). */
  async openAdvanced(dialog: Locator): Promise<void> {
    const advanced = dialog.locator('details.advanced');
    if ((await advanced.getAttribute('open')) === null) await advanced.locator(':scope > summary').click();
    await expect(advanced).toHaveAttribute('open', '');
  }

  /** A family's list in an open site form (`Ciphers`, `Key exchange`, `MACs`, `Host-key algorithms`), opened. */
  async algorithmList(dialog: Locator, title: string): Promise<Locator> {
    await this.openAdvanced(dialog);
    const list = dialog.getByRole('list', { name: title, exact: true });
    // A closed <details> hides its list from the accessibility tree: find the group by its summary.
    const group = dialog
      .locator('details.algorithm-family')
      .filter({ has: this.page.locator('summary', { hasText: title }) });
    if ((await group.getAttribute('open')) === null) await group.locator('summary').click();
    await expect(list).toBeVisible();
    return list;
  }

  /** Sets a family's list in an open site form through its checkboxes: exactly `names` enabled, in this order. */
  async chooseAlgorithms(dialog: Locator, title: string, names: string[]): Promise<void> {
    const list = await this.algorithmList(dialog, title);
    for (const name of await this.enabledAlgorithms(dialog, title))
      await list.getByRole('checkbox', { name, exact: true }).uncheck();
    // Each one enabled goes last: checking them in order gives the order.
    for (const name of names) await list.getByRole('checkbox', { name, exact: true }).check();
    expect(await this.enabledAlgorithms(dialog, title)).toEqual(names);
  }

  /** The names a family's list has enabled, in order (the list is opened). */
  async enabledAlgorithms(dialog: Locator, title: string): Promise<string[]> {
    const list = await this.algorithmList(dialog, title);
    return list.locator('li.on code').allTextContents();
  }

  /**
   * Types a target into the quick-connect bar and presses its Connect (does not wait: a host-key dialog may come
   * first).
   */
  async quickConnectTo(target: string): Promise<void> {
    await this.quickConnect.getByLabel('Quick connect').fill(target);
    await this.quickConnect.getByRole('button', { name: 'Connect', exact: true }).click();
  }

  siteItem(name: string): Locator {
    return this.siteManager.getByRole('treeitem', { name, exact: true });
  }

  /** Selects a site and presses Connect (does not wait: a host-key dialog may come first). */
  async startConnect(name: string): Promise<void> {
    await this.siteItem(name).locator('.label').click();
    await this.siteManager.getByRole('button', { name: 'Connect' }).click();
  }

  /** Waits until the remote pane lists `dir` (connected and browsing). */
  async waitForRemoteListing(dir: string): Promise<void> {
    await expect(this.remoteGrid).toBeVisible({ timeout: 30_000 });
    await expect(this.remotePane).toHaveAttribute('data-path', dir);
    await expect(this.remotePane).toHaveAttribute('data-loading', 'false');
  }

  remoteRow(name: string): Locator {
    return this.remoteGrid.getByRole('row', { name, exact: true });
  }
  localRow(name: string): Locator {
    return this.localGrid.getByRole('row', { name, exact: true });
  }

  /**
   * Drags a local row onto the empty area at the bottom of the remote pane (HTML5 drag and drop, as a user
   * would): the upload goes to the pane's current folder, not into a folder row.
   */
  async dragLocalToRemote(name: string): Promise<void> {
    await this.localRow(name).dragTo(this.remotePane, { targetPosition: await bottomOf(this.remotePane) });
  }

  /** Drags a remote row onto the empty area of the local pane (a download into its current folder). */
  async dragRemoteToLocal(name: string): Promise<void> {
    await this.remoteRow(name).dragTo(this.localPane, { targetPosition: await bottomOf(this.localPane) });
  }

  /**
   * Drops files "from the OS" onto the remote pane: the harness's table maps each File name to the path the
   * spec created (what Electron's webUtils.getPathForFile would answer); the page sees a real drop event.
   */
  async dropOsFiles(paths: string[]): Promise<void> {
    await this.harness.setDropTable(paths.map((p) => ({ name: path.basename(p), path: p })));
    const names = paths.map((p) => path.basename(p));
    const dataTransfer = await this.page.evaluateHandle((fileNames) => {
      const dt = new DataTransfer();
      for (const n of fileNames) dt.items.add(new File(['x'], n));
      return dt;
    }, names);
    const target = this.remotePane;
    await target.dispatchEvent('dragenter', { dataTransfer });
    await target.dispatchEvent('dragover', { dataTransfer });
    await target.dispatchEvent('drop', { dataTransfer });
  }

  /** The queue row of a batch (a drop): named after its only job, or `first and N more`. */
  jobRow(name: string): Locator {
    return this.queue.getByRole('listitem', { name, exact: true });
  }

  /** A file line under an expanded batch row. */
  fileRow(name: string): Locator {
    return this.queue.getByRole('listitem', { name: `File ${name}`, exact: true });
  }

  /** Expands a batch's row into its files (and waits until its first line is there). */
  async expandBatch(name: string): Promise<void> {
    const row = this.jobRow(name);
    if ((await row.getAttribute('aria-expanded')) !== 'true')
      await row.getByRole('button', { name: `Show files of ${name}` }).click();
    await expect(row).toHaveAttribute('aria-expanded', 'true');
  }

  /** Waits until the queue row of `name` is in `state` (the engine's state, replayed by the store). */
  async waitForJobState(name: string, state: string, timeout = 60_000): Promise<void> {
    await expect(this.jobRow(name)).toHaveAttribute('data-state', state, { timeout });
  }

  /** Scrolls the (virtualized) queue to its last rows, where new jobs appear. */
  async scrollQueueToEnd(): Promise<void> {
    await this.queue.locator('.scroller').evaluate((el) => (el.scrollTop = el.scrollHeight));
  }

  /** Waits until the engine reports at least `bytes` moved for the job `name`. */
  async waitForJobBytes(name: string, bytes: number, timeout = 60_000): Promise<void> {
    const row = this.jobRow(name);
    await expect
      .poll(async () => Number((await row.getAttribute('data-bytes-done')) ?? 0), {
        timeout,
        message: `${name} moves ${bytes} bytes`,
      })
      .toBeGreaterThanOrEqual(bytes);
  }

  /** Presses a job's action button (Pause, Resume, Cancel, Retry) in its queue row. */
  async jobAction(name: string, action: 'Pause' | 'Resume' | 'Cancel' | 'Retry'): Promise<void> {
    await this.jobRow(name)
      .getByRole('button', { name: `${action} ${name}` })
      .click();
  }

  /** Presses a row's "Move to top". */
  async moveToTop(name: string): Promise<void> {
    await this.jobRow(name)
      .getByRole('button', { name: `Move ${name} to the top` })
      .click();
  }

  /**
   * A queue-wide action's control: its header button, or in a narrow queue its item in the "More queue actions" menu
   * (opened; Escape closes it).
   */
  async queueActionControl(action: QueueAction): Promise<Locator> {
    const more = this.queue.getByRole('button', { name: 'More queue actions' });
    if (!(await more.isVisible())) return this.queue.getByRole('button', { name: action, exact: true });
    const menu = this.page.getByRole('menu', { name: 'Queue actions' });
    if (!(await menu.isVisible())) await more.click();
    return menu.getByRole('menuitem', { name: action, exact: true });
  }

  /** Checks whether a queue-wide action is enabled now (through the menu in a narrow queue, closed again). */
  async expectQueueAction(action: QueueAction, enabled: boolean): Promise<void> {
    const control = await this.queueActionControl(action);
    await (enabled ? expect(control).toBeEnabled() : expect(control).toBeDisabled());
    if ((await control.getAttribute('role')) === 'menuitem') await this.page.keyboard.press('Escape');
  }

  /** A queue-wide action on every site, or on the site picked first (`Pause all`, `Resume all`, `Retry failed`). */
  async queueBulk(action: 'Pause all' | 'Resume all' | 'Retry failed', siteName?: string): Promise<void> {
    await this.queue
      .getByLabel('Sites the buttons act on')
      .selectOption(siteName ? { label: siteName } : { value: '' });
    await (await this.queueActionControl(action)).click();
  }

  /** Waits until the queue totals count `n` done jobs. */
  async waitForDoneCount(n: number, timeout = 120_000): Promise<void> {
    await expect(this.queue.getByLabel('Done jobs')).toHaveText(`${n} done`, { timeout });
  }

  async answerUnknownHostKey(answer: 'Accept once' | 'Accept and save' | 'Cancel'): Promise<void> {
    const dialog = this.hostKeyDialog('unknown');
    await dialog.getByRole('button', { name: answer }).click();
    await expect(dialog).toBeHidden();
  }

  /**
   * Saves a screenshot of the whole window as SCREENSHOT_DIR/<name>.png, the harness's scratch folders shown as a
   * user's (e2e/fixtures/neutralPaths.ts) for the picture only: the page is put back as it was right after.
   */
  async screenshot(name: string): Promise<void> {
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await screenshotWithNeutralPaths(this.page, path.join(SCREENSHOT_DIR, `${name}.png`));
  }
}
