/**
 * The queue stays smooth with 10,000 jobs: 200 progressing at once, engine batches every 50 ms (coalesced to
 * ~10/s as in Electron), while the user scrolls. Load comes from a scripted service (harness/syntheticService.ts);
 * the renderer, store, reducer and harness are the real ones.
 *
 * Frame timing on a shared, software-rendered headless Chromium is noisy, so the bounds are loose: they catch
 * a non-virtualized list or a render storm (seconds per frame), not a few dropped frames. The numbers are printed.
 */
import { expect, test } from '@playwright/test';
import { SluicePage } from './pages/SluicePage';
import { startHarness } from './harness/server';
import { createSyntheticService } from './harness/syntheticService';

test('10,000 jobs: virtualized rows, frames keep coming while progress streams and the list scrolls', async ({
  page,
}) => {
  const service = createSyntheticService(10_000, 200);
  const harness = await startHarness({ service });
  try {
    const app = new SluicePage(page, harness);
    await app.open();
    await expect(app.queue.getByLabel('Jobs total')).toHaveText('10000 jobs');
    await app.startConnect('Synthetic load');
    await expect(app.statusBar.getByLabel('Connections')).toHaveText('4/4');
    service.start(50);
    await expect(app.queue.getByRole('listitem').first()).toHaveAttribute('data-state', 'running');

    // 3 s of wheel-speed scrolling (40 px per frame) while 200 jobs progress.
    const stats = await page.evaluate(async () => {
      const scroller = document.querySelector<HTMLElement>('.queue .scroller')!;
      const gaps: number[] = [];
      let last = performance.now();
      const end = last + 3000;
      await new Promise<void>((resolve) => {
        const frame = (t: number) => {
          gaps.push(t - last);
          last = t;
          scroller.scrollTop += 40;
          if (t < end) requestAnimationFrame(frame);
          else resolve();
        };
        requestAnimationFrame(frame);
      });
      gaps.sort((a, b) => a - b);
      return {
        frames: gaps.length,
        median: gaps[Math.floor(gaps.length / 2)],
        p95: gaps[Math.floor(gaps.length * 0.95)],
        max: gaps[gaps.length - 1],
        rows: document.querySelectorAll('.queue [role="listitem"]').length,
        scrolled: scroller.scrollTop,
      };
    });
    console.log(
      `queue with 10,000 jobs, 200 running: ${stats.frames} frames in 3 s (median gap ${stats.median.toFixed(1)} ms, ` +
        `p95 ${stats.p95.toFixed(1)} ms, max ${stats.max.toFixed(1)} ms), ${stats.rows} rows in the DOM, ${service.deltasEmitted} engine batches`,
    );
    expect(stats.rows).toBeLessThan(80);
    expect(stats.scrolled).toBeGreaterThan(1000);
    expect(stats.frames).toBeGreaterThanOrEqual(30);
    expect(stats.max).toBeLessThan(500);
    expect(service.deltasEmitted).toBeGreaterThan(20);
    await expect(app.queue.getByLabel('Done jobs')).not.toHaveText('0 done');
    await page.locator('.queue .scroller').evaluate((el) => (el.scrollTop = 0));
    await app.screenshot('queue-10000-jobs');
  } finally {
    service.stop();
    await harness.stop();
  }
});
