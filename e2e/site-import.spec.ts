/**
 * Import and export of sites (issue #15) against the real service: a FileZilla sitemanager.xml previewed (duplicates of
 * a saved site unticked, entries that are not SFTP listed as not imported), the ticked sites imported under a folder,
 * then every site exported as Sluice JSON without passwords. Each test starts from a fresh app with one saved site
 * (Existing) and the FileZilla file previewed in the Import dialog.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Locator } from '@playwright/test';
import { expect, test } from './harness/test';

const FILEZILLA = path.resolve(__dirname, '..', 'app', 'node', 'sites', 'testdata', 'sitemanager.xml');

let dialog: Locator;

test.beforeEach(async ({ app, page }) => {
  await app.open();
  await app.createSite({ name: 'Existing', host: 'files.example.com', port: 2222, user: 'alice' });
  await app.siteManager.getByRole('button', { name: 'Import…' }).click();
  dialog = page.getByRole('dialog', { name: 'Import sites' });
  await dialog.getByLabel('Format').selectOption('filezilla');
  await dialog.getByLabel('File', { exact: true }).fill(FILEZILLA);
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await expect(dialog.getByRole('table', { name: 'Sites found' })).toBeVisible();
});

/** Imports the sites the preview ticked (Backup, Deploy key) into the folder FileZilla. */
async function importTicked(): Promise<void> {
  await dialog.getByLabel('Into folder').fill('FileZilla');
  await dialog.getByRole('button', { name: 'Import 2 sites' }).click();
  await expect(dialog.getByRole('status', { name: 'Import result' })).toContainText('Imported 2 sites');
}

test('the FileZilla preview: duplicates of a saved site unticked, notes, entries not imported; no password shown', async ({
  app,
}) => {
  const table = dialog.getByRole('table', { name: 'Sites found' });
  await expect(table.getByRole('row')).toHaveCount(5);
  await expect(dialog.getByLabel('Import Production files')).not.toBeChecked();
  await expect(dialog.getByLabel('Import Production again')).not.toBeChecked();
  await expect(dialog.getByLabel('Import Backup')).toBeChecked();
  await expect(dialog.getByLabel('Import Deploy key')).toBeChecked();
  await expect(table.getByRole('row', { name: /Production files/ })).toContainText(
    'duplicate: alice@files.example.com:2222 is already the saved site "Existing"',
  );
  await expect(table.getByRole('row', { name: /Deploy key/ })).toContainText("PuTTY's format");
  await expect(dialog.getByRole('list', { name: 'Not imported' })).toContainText(
    'skipped "Work/Legacy/Old FTP": FTP entry (Sluice speaks SFTP only)',
  );
  await expect(dialog).not.toContainText('s3cr3t');
  await app.screenshot('site-import-preview');
});

test('ticking the duplicate that holds a password offers to store it; unticking takes the offer away', async () => {
  await dialog.getByLabel('Import Production files').check();
  await expect(dialog.getByLabel(/Store the 1 password\(s\) the file holds/)).toBeChecked();
  await expect(dialog.getByRole('button', { name: 'Import 3 sites' })).toBeEnabled();
  await dialog.getByLabel('Import Production files').uncheck();
  await expect(dialog.getByLabel(/Store the .* password/)).toHaveCount(0);
});

test('the ticked sites are imported under the folder given; the duplicate is not', async ({ app }) => {
  await importTicked();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
  await expect(app.siteManager.getByRole('treeitem', { name: 'Folder FileZilla' })).toBeVisible();
  await expect(app.siteItem('Backup')).toBeVisible();
  await expect(app.siteItem('Deploy key')).toBeVisible();
  await expect(app.siteItem('Production files')).toHaveCount(0);
});

test('export: every site as Sluice JSON, with its folder, without passwords', async ({ app, page, localDir }) => {
  await importTicked();
  await dialog.getByRole('button', { name: 'Close' }).click();
  const file = path.join(localDir, 'sites.json');
  await app.siteManager.getByRole('button', { name: 'Export…' }).click();
  const exportDialog = page.getByRole('dialog', { name: 'Export sites' });
  await exportDialog.getByLabel('File', { exact: true }).fill(file);
  await exportDialog.getByRole('button', { name: 'Export' }).click();
  await expect(exportDialog.getByRole('status', { name: 'Export result' })).toContainText(
    `Exported 3 sites to ${file}`,
  );
  const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    sites: Array<{ name: string; folder: string; password?: string }>;
  };
  expect(doc.sites.map((s) => `${s.folder}|${s.name}`).sort()).toEqual([
    'FileZilla/Work/Legacy|Deploy key',
    'FileZilla|Backup',
    '|Existing',
  ]);
  expect(doc.sites.some((s) => s.password !== undefined)).toBe(false);
});
