/**
 * TEST ONLY: skipping a Playwright test with its reason printed. The list reporter marks a skipped test with a dash
 * and no reason, so the reason also goes to the run's output.
 */
import { test } from '@playwright/test';

/**
 * Skips the running test when `skip` is true, printing `<title> NOT RUN: <reason>` first.
 * @param skip whether to skip
 * @param reason what is missing and how to provide it
 */
export function skipBecause(skip: boolean, reason: string): void {
  if (!skip) return;
  console.log(`${test.info().title} NOT RUN: ${reason}`);
  test.skip(true, reason);
}
