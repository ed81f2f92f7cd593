// Playwright: the renderer in Debian's Chromium against the real engine (e2e/harness) and a private sshd
// (e2e/fixtures).
import { defineConfig } from '@playwright/test';
import { existsSync } from 'node:fs';
import { chromiumPath } from './e2e/fixtures/platformTools';

// SLUICE_CHROMIUM, else the distribution's Chromium (Debian's here), else Playwright's own (`npx playwright install
// chromium`, as the GitHub Actions jobs on macOS and Windows do).
const chromium = chromiumPath();
if (chromium !== undefined && !existsSync(chromium)) {
  console.error(`e2e: no Chromium at ${chromium} (SLUICE_CHROMIUM). Point it at a Chromium/Chrome binary or unset it.`);
} else if (chromium === undefined) {
  console.error("e2e: no system Chromium (Debian: apt-get install chromium); using Playwright's own browser.");
}

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  outputDir: 'test-results',
  fullyParallel: false,
  workers: 1,
  reporter: 'list',
  timeout: 90_000,
  expect: { timeout: 15_000 },
  use: {
    headless: true,
    viewport: { width: 1400, height: 860 },
    launchOptions: {
      executablePath: chromium,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
      ],
    },
    trace: 'retain-on-failure',
  },
});
