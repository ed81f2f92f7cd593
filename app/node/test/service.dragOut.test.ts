/**
 * Remote rows dragged out of the window (#26 item 7) through the service against a private OpenSSH sshd: a small
 * selection (a file and a folder) fetched into `<home>/drag-out/` with the same bytes and handed to `startDrag`; one
 * over the bounds (501 files) asks for a folder and becomes a queued download there, or nothing when the dialog is
 * cancelled; the cache trimmed oldest first and cleared when the service closes.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SSHD_PATH } from '../../../e2e/fixtures/sshd';
import { FileDialogStandIn } from '../../../e2e/harness/dialogs';
import { dragCache, trimCache } from '../service/dragOut';
import { connectAccepting, setupSshd, waitJobs } from './sshdService';

const skip = fs.existsSync(SSHD_PATH) ? false : `${SSHD_PATH} not installed`;

test('a small selection is fetched into the cache, same bytes, and handed to startDrag', { skip }, async (t) => {
  const dragged: string[][] = [];
  const c = await setupSshd(t, { service: { startDrag: (files) => dragged.push(files) } });
  await connectAccepting(c);
  const dir = path.join(c.server.root, 'dragout');
  fs.mkdirSync(path.join(dir, 'site', 'css'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'remote notes');
  fs.writeFileSync(path.join(dir, 'site', 'css', 'a.css'), 'p{}');
  const r = await c.service.invoke('drag.out', {
    siteId: c.siteId,
    paths: [path.join(dir, 'notes.txt'), path.join(dir, 'site')],
  });
  assert.ok(r.ok && r.value.kind === 'files', JSON.stringify(r));
  assert.equal(r.value.count, 2);
  assert.equal(r.value.bytes, 15);
  assert.deepEqual(dragged, [r.value.files]);
  const [file, folder] = r.value.files;
  assert.ok(file.startsWith(dragCache(c.home) + path.sep) && path.basename(file) === 'notes.txt', file);
  assert.equal(fs.readFileSync(file, 'utf8'), 'remote notes');
  assert.equal(fs.readFileSync(path.join(folder, 'css', 'a.css'), 'utf8'), 'p{}');
  await c.service.close();
  assert.ok(!fs.existsSync(dragCache(c.home)), 'the cache is cleared when the service closes');
});

test('over the bounds: a folder is asked and the download queued there; Cancel queues nothing', { skip }, async (t) => {
  const dialogs = new FileDialogStandIn();
  const c = await setupSshd(t, { service: { dialogs, startDrag: () => undefined } });
  await connectAccepting(c);
  const dir = path.join(c.server.root, 'many');
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < 501; i++) fs.writeFileSync(path.join(dir, `f${i}.txt`), String(i));
  const dest = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-dragdest-'));
  t.after(() => fs.rmSync(dest, { recursive: true, force: true }));
  const cancelled = await c.service.invoke('drag.out', { siteId: c.siteId, paths: [dir] });
  assert.ok(cancelled.ok && cancelled.value.kind === 'cancelled', JSON.stringify(cancelled));
  assert.equal(c.service.jobs().length, 0);
  assert.equal(dialogs.asked[0].folder, true);
  assert.match(dialogs.asked[0].title, /^Download many to/);
  dialogs.answers.push(dest);
  const queued = await c.service.invoke('drag.out', { siteId: c.siteId, paths: [dir] });
  assert.ok(queued.ok && queued.value.kind === 'queued', JSON.stringify(queued));
  assert.equal(queued.value.dest, dest);
  await waitJobs(c, queued.value.jobIds, 'done');
  assert.equal(fs.readdirSync(path.join(dest, 'many')).length, 501);
  assert.ok(!fs.existsSync(dragCache(c.home)) || fs.readdirSync(dragCache(c.home)).length === 0, 'nothing cached');
});

test('the cache keeps its newest fetches within the bound', async (t) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-dragcache-'));
  t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  const now = Date.now() / 1000;
  for (const [name, age] of [
    ['old', 300],
    ['mid', 200],
    ['new', 100],
  ] as const) {
    const d = path.join(dragCache(home), name);
    fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(d, 'f.bin'), Buffer.alloc(1000));
    fs.utimesSync(d, now - age, now - age);
  }
  await trimCache(home, 2000);
  assert.deepEqual(fs.readdirSync(dragCache(home)).sort(), ['mid', 'new']);
  await trimCache(home, 0);
  assert.deepEqual(fs.readdirSync(dragCache(home)), []);
});
