// Playwright: the renderer in Debian's Chromium against the real engine (e2e/harness) and a private sshd (e2e/fixtures).
import { defineConfig } from '@playwright/test';
import { existsSync } from 'node:fs';

const chromium = process.env.SLUICE_CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(chromium)) {
  console.error(
    `e2e: no Chromium at ${chromium}. Install Debian's package (apt-get install chromium) ` +
      'or point SLUICE_CHROMIUM at a Chromium/Chrome binary.',
  );
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
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    },
    trace: 'retain-on-failure',
  },
});
