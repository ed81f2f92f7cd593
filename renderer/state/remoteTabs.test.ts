/** The remote pane's tabs (renderer/state/remoteTabs.ts). */
import test from 'node:test';
import assert from 'node:assert/strict';
import type { QueueState } from '../../app/common/queue/reducer';
import {
  activate,
  activeTab,
  canOpen,
  movingJobs,
  baseName,
  closeOthers,
  closeTab,
  cycle,
  duplicateActive,
  emptyTabs,
  openSite,
  setSitePaths,
  setTabPath,
  TAB_LIMIT,
  tabLabel,
  tabStatus,
  tabsOfSite,
} from './remoteTabs';

test("a site asked for again shows its tab; a new tab is asked for, or another site's, opens after the shown one", () => {
  let t = openSite(emptyTabs, 'a');
  assert.deepEqual(activeTab(t), { id: 'tab-1', siteId: 'a', path: null });
  t = openSite(t, 'b', { path: '/srv' });
  assert.equal(t.activeId, 'tab-2');
  assert.equal(openSite(t, 'a').activeId, 'tab-1', "switches to a's tab");
  assert.equal(openSite(t, 'a').tabs.length, 2);
  t = openSite(activate(t, 'tab-1'), 'a', { newTab: true });
  assert.deepEqual(
    t.tabs.map((x) => x.id),
    ['tab-1', 'tab-3', 'tab-2'],
    'opened right after the shown tab',
  );
  assert.equal(tabsOfSite(t, 'a').length, 2, 'the same site twice');
});

test('Ctrl+T duplicates the shown tab: same site, same folder', () => {
  let t = setTabPath(openSite(emptyTabs, 'a'), 'tab-1', '/home/u/www');
  t = duplicateActive(t);
  assert.deepEqual(activeTab(t), { id: 'tab-2', siteId: 'a', path: '/home/u/www' });
  assert.equal(duplicateActive(emptyTabs), emptyTabs);
});

test('closing the shown tab shows its right neighbour, the left one at the end; ids are never reused', () => {
  let t = openSite(openSite(openSite(emptyTabs, 'a'), 'b'), 'c');
  t = closeTab(activate(t, 'tab-2'), 'tab-2');
  assert.equal(t.activeId, 'tab-3');
  t = closeTab(t, 'tab-3');
  assert.equal(t.activeId, 'tab-1');
  assert.equal(closeTab(t, 'tab-1').activeId, null);
  assert.equal(closeTab(t, 'nope'), t);
  const other = closeTab(openSite(t, 'd'), 'tab-1');
  assert.equal(other.activeId, 'tab-4', 'closing another tab keeps the shown one');
  assert.equal(openSite(other, 'e').activeId, 'tab-5');
});

test('Ctrl+Tab and Ctrl+Shift+Tab wrap around', () => {
  const t = openSite(openSite(openSite(emptyTabs, 'a'), 'b'), 'c');
  assert.equal(cycle(t, 1).activeId, 'tab-1');
  assert.equal(cycle(t, -1).activeId, 'tab-2');
  assert.equal(cycle(activate(t, 'tab-1'), -1).activeId, 'tab-3');
  assert.equal(cycle(openSite(emptyTabs, 'a'), 1).activeId, 'tab-1');
});

test("a session's start folder goes to its tabs without one; a disconnect clears the site's folders only", () => {
  let t = openSite(openSite(emptyTabs, 'a'), 'a', { newTab: true, path: '/x' });
  t = openSite(t, 'b', { path: '/b' });
  t = setSitePaths(t, 'a', '/home/a');
  assert.deepEqual(
    t.tabs.map((x) => x.path),
    ['/home/a', '/x', '/b'],
  );
  assert.equal(setSitePaths(t, 'a', '/home/a'), t, 'nothing changed, same value');
  t = setSitePaths(t, 'a', null);
  assert.deepEqual(
    t.tabs.map((x) => x.path),
    [null, null, '/b'],
  );
});

test('at most TAB_LIMIT tabs: then no tab opens (a site with one gets it shown)', () => {
  let t = emptyTabs;
  for (let i = 0; i < TAB_LIMIT + 5; i++) t = openSite(t, `s${i}`, { newTab: true });
  assert.equal(t.tabs.length, TAB_LIMIT);
  assert.equal(activeTab(t)?.siteId, `s${TAB_LIMIT - 1}`);
  assert.equal(canOpen(t, 'new'), false);
  assert.equal(canOpen(t, 's0'), true);
  assert.equal(canOpen(t, 's0', true), false);
  assert.equal(openSite(t, 's0').activeId, 'tab-1');
  assert.equal(openSite(t, 's0', { newTab: true }), t);
  assert.equal(duplicateActive(t), t);
  assert.equal(canOpen(emptyTabs, 'new', true), true);
});

test("labels: the site's name and the folder's base name, escaped and cut", () => {
  assert.equal(baseName('/'), '/');
  assert.equal(baseName('/srv/www/'), 'www');
  assert.equal(tabLabel('Prod', '/srv/www'), 'Prod: www');
  assert.equal(tabLabel('Prod', null), 'Prod');
  assert.equal(tabLabel('  ', '/'), 'Site: /');
  assert.equal(tabLabel('Prod', '/srv/evil\u202etxt.exe'), 'Prod: evil\\u202etxt.exe');
  assert.equal(tabLabel('x'.repeat(50), null), `${'x'.repeat(32)}…`);
});

test("a tab's status: lost once it had a folder, failed when it never connected", () => {
  assert.equal(tabStatus('failed', true), 'lost');
  assert.equal(tabStatus('failed', false), 'failed');
  assert.equal(tabStatus('reconnecting', true), 'reconnecting');
  assert.equal(tabStatus('connected', true), 'connected');
  assert.equal(tabStatus('disconnected', true), 'not connected');
  assert.equal(tabStatus(undefined, false), 'not connected');
});

test("a site's moving jobs: queued or running ones of that site only", () => {
  const jobs = [
    { id: '1', siteId: 'a', state: 'running' },
    { id: '2', siteId: 'a', state: 'queued' },
    { id: '3', siteId: 'a', state: 'paused' },
    { id: '4', siteId: 'a', state: 'done' },
    { id: '5', siteId: 'b', state: 'running' },
  ];
  const queue = { order: jobs.map((j) => j.id), byId: Object.fromEntries(jobs.map((j) => [j.id, j])) };
  assert.equal(movingJobs(queue as unknown as QueueState, 'a'), 2);
  assert.equal(movingJobs(queue as unknown as QueueState, 'c'), 0);
  assert.equal(movingJobs(queue as unknown as QueueState, null), 0);
});

test('"Close other tabs" keeps one tab, shown', () => {
  const t = openSite(openSite(openSite(emptyTabs, 'a'), 'b'), 'c');
  const one = closeOthers(t, 'tab-1');
  assert.deepEqual(
    one.tabs.map((x) => x.id),
    ['tab-1'],
  );
  assert.equal(one.activeId, 'tab-1');
  assert.equal(closeOthers(one, 'tab-1'), one);
  assert.equal(closeOthers(t, 'nope'), t);
});
