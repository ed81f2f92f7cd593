/**
 * Site manager against the real service (SQLite store in a temp folder): validated forms, folders,
 * edit, duplicate, delete with confirmation, advanced settings kept (a jump host list too); theme switching.
 * Each test starts from an empty store (a fresh service per test) and saves the sites it needs.
 */
import { expect, test } from './harness/test';
import type { SiteFields, SluicePage } from './pages/SluicePage';

const PROD: SiteFields = {
  name: 'Prod',
  folder: 'Work',
  host: 'prod.example.org',
  port: 2222,
  user: 'deploy',
  connections: 4,
  channels: 2,
  ciphers: ['chacha20-poly1305@openssh.com', 'aes128-gcm@openssh.com'],
};

/** The Prod site saved under the name given (in folder Work) and selected. */
async function savedSite(app: SluicePage, name: string): Promise<void> {
  await app.createSite({ ...PROD, name });
  await app.siteItem(name).locator('.label').click();
}

test.beforeEach(async ({ app }) => {
  await app.open();
});

test('site form: invalid input is refused field by field, and nothing is saved', async ({ app, page }) => {
  await app.siteManager.getByRole('button', { name: 'New site' }).click();
  const form = page.getByRole('dialog', { name: 'New site' });
  await form.getByLabel('Host', { exact: true }).fill('bad host');
  await form.getByLabel('Port', { exact: true }).fill('70000');
  await app.openAdvanced(form);
  await form.getByLabel('Connections').fill('99');
  await form.getByLabel('Jump host').fill('bastion,,inner');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form.getByRole('alert').filter({ hasText: 'Not a jump host list' })).toBeVisible();
  await expect(form.getByRole('alert').filter({ hasText: 'Name is required' })).toBeVisible();
  await expect(form.getByRole('alert').filter({ hasText: 'Host must not contain spaces' })).toBeVisible();
  await expect(form.getByRole('alert').filter({ hasText: 'Port must be between 1 and 65535' })).toBeVisible();
  await expect(form.getByRole('alert').filter({ hasText: 'Connections must be between 1 and 16' })).toBeVisible();
  await expect(form.getByLabel('Host', { exact: true })).toHaveAttribute('aria-invalid', 'true');
  await app.screenshot('site-form-validation');
  await form.getByRole('button', { name: 'Cancel' }).click();
  await expect(form).toBeHidden();
  await expect(app.siteManager.getByRole('treeitem')).toHaveCount(0);
});

test('edit: the advanced settings come back as saved; a new name and a jump host are kept', async ({ app, page }) => {
  await app.createSite(PROD);
  await expect(app.siteManager.getByRole('treeitem', { name: 'Folder Work' })).toBeVisible();
  await app.siteItem('Prod').locator('.label').click();
  await app.siteManager.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit site Prod' });
  await expect(edit.getByLabel('Connections')).toHaveValue('4');
  await expect(edit.getByLabel('Channels per connection')).toHaveValue('2');
  expect(await app.enabledAlgorithms(edit, 'Ciphers')).toEqual([
    'chacha20-poly1305@openssh.com',
    'aes128-gcm@openssh.com',
  ]);
  await expect(edit.getByLabel('Port', { exact: true })).toHaveValue('2222');
  await edit.getByLabel('Name', { exact: true }).fill('Production');
  await edit.getByLabel('Jump host').fill('deploy@bastion.example.org:2222');
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(app.siteItem('Production')).toBeVisible();
  await expect(app.siteItem('Prod')).toHaveCount(0);
  await app.siteManager.getByRole('button', { name: 'Edit' }).click();
  const again = page.getByRole('dialog', { name: 'Edit site Production' });
  await expect(again.getByLabel('Jump host')).toHaveValue('deploy@bastion.example.org:2222');
  await again.getByRole('button', { name: 'Cancel' }).click();
  await expect(again).toBeHidden();
});

test('duplicate, then delete the copy: a confirmation first, with Cancel focused', async ({ app, page }) => {
  await savedSite(app, 'Production');
  await app.siteManager.getByRole('button', { name: 'Duplicate' }).click();
  const copy = app.siteManager.getByRole('treeitem', { name: /Production.+/ });
  await expect(copy).toBeVisible();
  const copyName = (await copy.getAttribute('aria-label'))!;
  await app.siteManager.getByRole('button', { name: 'Delete' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Delete site' });
  await expect(confirm).toContainText(copyName);
  await expect(confirm.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await expect(app.siteItem(copyName)).toHaveCount(0);
  await expect(app.siteItem('Production')).toBeVisible();
});

test('a new empty folder inside a folder, then deleted', async ({ app, page }) => {
  await savedSite(app, 'Production');
  await app.siteManager.getByRole('treeitem', { name: 'Folder Work' }).locator('.label').first().click();
  await app.siteManager.getByRole('button', { name: 'New folder' }).click();
  const folderDialog = page.getByRole('dialog', { name: 'New folder' });
  await folderDialog.getByLabel('Folder name').fill('Staging');
  await folderDialog.getByRole('button', { name: 'Create' }).click();
  const staging = app.siteManager.getByRole('treeitem', { name: 'Folder Staging' });
  await expect(staging).toBeVisible();
  await staging.locator('.label').first().click();
  await app.siteManager.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('alertdialog', { name: 'Delete folder' }).getByRole('button', { name: 'Delete' }).click();
  await expect(staging).toHaveCount(0);
});

test('theme: dark is applied to the document and kept by the service across a reload', async ({ app, page }) => {
  await savedSite(app, 'Production');
  await page.getByLabel('Theme').selectOption('dark');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(page.getByLabel('Theme')).toHaveValue('dark');
  await expect(app.siteItem('Production')).toBeVisible();
  await app.screenshot('dark-theme');
});
