/**
 * TEST ONLY: Playwright fixtures wiring a real sshd (e2e/fixtures/sshd.ts), the real service
 * (engine.ts), the harness (server.ts) and the page object, with per-test temp folders.
 */
import { test as base } from '@playwright/test';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startSshd, type SshdServer } from '../fixtures/sshd';
import { SluicePage } from '../pages/SluicePage';
import type { ServiceOptions } from '../../app/node/service';
import { startTestEngine, type TestEngine } from './engine';
import { startHarness, type Harness } from './server';

export interface SluiceFixtures {
  /** Options of the test's service (`test.use({ engineOptions: { sshConfig } })`); default none. */
  engineOptions: Partial<ServiceOptions>;
  engine: TestEngine;
  harness: Harness;
  app: SluicePage;
  /** A fresh local folder for the test's files (the site's local folder). */
  localDir: string;
}

export const test = base.extend<SluiceFixtures, { sshd: SshdServer }>({
  sshd: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const server = await startSshd();
      await use(server);
      await server.stop();
    },
    { scope: 'worker' },
  ],
  engineOptions: [{}, { option: true }],
  engine: async ({ engineOptions }, use) => {
    const engine = await startTestEngine(engineOptions);
    await use(engine);
    await engine.close();
  },
  harness: async ({ engine }, use) => {
    const harness = await startHarness({ service: engine.service });
    await use(harness);
    await harness.stop();
  },
  // eslint-disable-next-line no-empty-pattern
  localDir: async ({}, use) => {
    const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'sluice-e2e-local-'));
    await use(dir);
    await fs.promises.rm(dir, { recursive: true, force: true });
  },
  app: async ({ page, harness }, use) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const app = new SluicePage(page, harness);
    await use(app);
    if (errors.length) throw new Error(`page errors:\n${errors.join('\n')}`);
  },
});

export { expect } from '@playwright/test';
