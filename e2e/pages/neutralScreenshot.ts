/**
 * A screenshot whose scratch folders read as a user's (e2e/fixtures/neutralPaths.ts): the page's texts, input values
 * and breadcrumb trails are shown with neutral paths for the picture, then put back as they were.
 */
import type { Page } from '@playwright/test';
import * as path from 'node:path';
import { neutralPathRules, type NeutralRule } from '../fixtures/neutralPaths';

/**
 * In the page: shows every text, input value and breadcrumb trail with the rules applied, and returns nothing; the
 * undo is kept in `window.__sluiceUndoNeutral`. Self-contained: Playwright sends its source to the page.
 */
function showNeutralPaths(rules: NeutralRule[]): void {
  const apply = (s: string): string => rules.reduce((t, r) => t.replace(new RegExp(r.source, 'g'), r.replacement), s);
  const undo: Array<() => void> = [];
  for (const nav of Array.from(document.querySelectorAll<HTMLElement>('nav.crumbs'))) {
    const items = Array.from(nav.querySelectorAll('li'));
    const labels = items.map((li) => li.textContent ?? '');
    if (labels[0] !== '/' || items.length === 0) continue;
    const full = `/${labels.slice(1).join('/')}`;
    const changed = apply(full);
    if (changed === full) continue;
    const copy = nav.cloneNode(true) as HTMLElement;
    const list = copy.querySelector('ol');
    if (!list) continue;
    const template = list.querySelector('li');
    list.replaceChildren();
    const parts = ['/', ...changed.split('/').filter(Boolean)];
    parts.forEach((label, i) => {
      const li = (template?.cloneNode(true) ?? document.createElement('li')) as HTMLElement;
      const button = li.querySelector('button') ?? li;
      button.textContent = label;
      if (button instanceof HTMLElement && i < parts.length - 1) button.removeAttribute('aria-current');
      if (button instanceof HTMLElement && i === parts.length - 1) button.setAttribute('aria-current', 'location');
      list.appendChild(li);
    });
    const display = nav.style.display;
    nav.style.display = 'none';
    nav.after(copy);
    undo.push(() => {
      copy.remove();
      nav.style.display = display;
    });
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const node = n;
    const before = node.nodeValue ?? '';
    const after = apply(before);
    if (after === before) continue;
    node.nodeValue = after;
    undo.push(() => {
      if (node.nodeValue === after) node.nodeValue = before;
    }); // unless React wrote it since
  }
  for (const el of Array.from(document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input, textarea'))) {
    const before = el.value;
    const after = apply(before);
    if (after === before) continue;
    el.value = after;
    undo.push(() => {
      if (el.value === after) el.value = before;
    });
  }
  (window as unknown as { __sluiceUndoNeutral?: () => void }).__sluiceUndoNeutral = () => {
    for (const u of undo.reverse()) u();
  };
}

/**
 * Writes a screenshot of the whole window to `file` with neutral paths; the page is restored even when it fails.
 * @param file  absolute path of the PNG
 */
export async function screenshotWithNeutralPaths(page: Page, file: string): Promise<void> {
  await page.evaluate(showNeutralPaths, neutralPathRules(undefined, path.resolve(__dirname, '..', '..')));
  try {
    await page.screenshot({ path: file });
  } finally {
    await page.evaluate(() => (window as unknown as { __sluiceUndoNeutral?: () => void }).__sluiceUndoNeutral?.());
  }
}
