/**
 * Every control stays reachable in small windows (#29.5): at 1024×700, 1400×900 and 1920×1080, with a site connected
 * and a job in the queue, each button, select and checkbox of the toolbar, the site manager, both panes, the queue
 * and the status bar lies inside the window, is not hidden under another element or cut by its container, shows its
 * whole label, and the window has no horizontal scroll. Narrow toolbars show icons (their names as tooltips) and the
 * queue's bulk actions move into a "More queue actions" menu. One test per size, each on its own connected app with
 * local.txt uploaded and remote.txt selected.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { emptyDir } from './harness/files';
import { expect, test } from './harness/test';

/**
 * The window sizes, each with the name of its picture (literal: `npm run screenshots` finds names by their shot
 * property).
 */
const SIZES = [
  { width: 1024, height: 700, shot: 'window-1024x700' },
  { width: 1400, height: 900, shot: 'window-1400x900' },
  { width: 1920, height: 1080, shot: 'window-1920x1080' },
] as const;

/** Controls that are not fully usable: outside the window, covered or clipped, or with a cut label. */
function unreachable(): string[] {
  const bad: string[] = [];
  const regions = ['.toolbar', '.sites', '.pane', '.queue', '.statusbar'];
  for (const el of document.querySelectorAll<HTMLElement>(
    regions.map((r) => `${r} button, ${r} select, ${r} input`).join(', '),
  )) {
    const style = getComputedStyle(el);
    // Not rendered (display: none here or above, e.g. the bulk buttons a narrow queue moves into its menu).
    if (el.getClientRects().length === 0 || style.visibility === 'hidden' || el.closest('[hidden], .row, .file-line'))
      continue;
    const name = el.getAttribute('aria-label') ?? el.textContent?.trim() ?? el.tagName;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) {
      bad.push(`${name}: no size`);
      continue;
    }
    if (r.left < 0 || r.top < 0 || r.right > innerWidth + 0.5 || r.bottom > innerHeight + 0.5) {
      bad.push(`${name}: outside the window`);
      continue;
    }
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    const corners = [
      [r.left + 2, r.top + 2],
      [r.right - 2, r.bottom - 2],
    ].map(([x, y]) => document.elementFromPoint(x, y));
    if (!hit || !(el === hit || el.contains(hit) || (hit.contains(el) && hit.tagName === 'LABEL'))) {
      bad.push(`${name}: covered`);
      continue;
    }
    if (corners.some((c) => !c || !(el === c || el.contains(c) || c.contains(el)))) {
      bad.push(`${name}: cut`);
      continue;
    }
    if (el.tagName === 'BUTTON' && el.scrollWidth > el.clientWidth + 1) bad.push(`${name}: label cut`);
  }
  if (document.documentElement.scrollWidth > innerWidth)
    bad.push(`window scrolls sideways (${document.documentElement.scrollWidth} > ${innerWidth})`);
  return bad;
}

test.beforeEach(async ({ app, sshd, engine, localDir }) => {
  fs.appendFileSync(engine.knownHostsPath, `${sshd.knownHostsLine()}\n`);
  const remoteDir = emptyDir(path.join(sshd.root, 'sizes'));
  fs.writeFileSync(path.join(remoteDir, 'remote.txt'), 'r');
  fs.writeFileSync(path.join(localDir, 'local.txt'), 'l');

  await app.open();
  await app.createSite({
    name: 'Sizes',
    host: sshd.host,
    port: sshd.port,
    user: sshd.user,
    keyPath: sshd.clientKeyPath,
    localDir,
    remoteDir,
  });
  await app.startConnect('Sizes');
  await app.waitForRemoteListing(remoteDir);
  await app.localRow('local.txt').click();
  await app.localPane.getByRole('button', { name: 'Local: upload' }).click();
  await app.waitForJobState('local.txt', 'done');
  await app.remoteRow('remote.txt').click();
});

for (const { width, height, shot } of SIZES) {
  test(`every control is reachable at ${width}×${height}`, async ({ app, page }) => {
    await page.setViewportSize({ width, height });
    await expect(app.remotePane.getByRole('toolbar', { name: 'Remote actions' })).toContainText('2 items, 1 selected');
    await app.screenshot(shot);
    // A queue row's name column gets the room left by the others (not cut to a few letters).
    const name = app.jobRow('local.txt').locator('.name');
    expect(await name.evaluate((el) => el.scrollWidth <= el.clientWidth), `local.txt whole at ${width}×${height}`).toBe(
      true,
    );
    expect(await page.evaluate(unreachable), `${width}×${height}`).toEqual([]);
    // The queue's bulk actions: buttons, or behind the menu when the queue is narrow (1024 and 1400 wide).
    await expect(app.queue.getByRole('button', { name: 'More queue actions' })).toBeVisible({ visible: width < 1920 });
    await app.expectQueueAction('Pause all', false);
    await app.expectQueueAction('Clear finished', true);
    await expect(page.getByRole('menu', { name: 'Queue actions' })).toBeHidden();
  });
}
