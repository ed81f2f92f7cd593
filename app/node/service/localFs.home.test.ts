/**
 * `~` in a local path the app sends (#30 item 6): a site's local folder `~/x` became the local pane's path and reached
 * the download as written, so the files went to `/~/x` (an app started from the Finder has `/` as its working folder).
 * The service expands `~` with os.homedir() for a download's destination and an upload's sources (service/localFs.ts);
 * `~\` on Windows only (the platform injected).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import { expandHome } from './localFs';
import { acceptHostKey, harness, until } from '../test/serviceHarness';

test('expandHome: ~, ~/x, ~\\x on Windows only; ~user and other paths as written', () => {
  assert.equal(expandHome('~', 'linux', '/home/ann'), '/home/ann');
  assert.equal(expandHome('~/x/y', 'linux', '/home/ann'), '/home/ann/x/y');
  assert.equal(expandHome('~/', 'darwin', '/Users/ann'), '/Users/ann');
  assert.equal(expandHome('~\\x', 'linux', '/home/ann'), '~\\x', 'a backslash is part of a name off Windows');
  assert.equal(expandHome('~\\x\\y', 'win32', 'C:\\Users\\ann'), 'C:\\Users\\ann\\x\\y');
  assert.equal(expandHome('~/x', 'win32', 'C:\\Users\\ann'), 'C:\\Users\\ann\\x');
  assert.equal(expandHome('~ann/x', 'linux', '/home/me'), '~ann/x');
  assert.equal(expandHome('/srv/~/x', 'linux', '/home/me'), '/srv/~/x');
  assert.equal(expandHome('~', undefined, undefined), os.homedir());
});

test('queue.enqueue: a download into ~/x goes to ~/x of the home folder, an upload of ~/a reads its a', async (t) => {
  const h = await harness(t);
  await acceptHostKey(h);
  h.engine.behaviour = () => 'ok';
  const siteId = h.siteId;
  const down = await h.service.invoke('queue.enqueue', {
    siteId,
    direction: 'download',
    sources: ['/r/f.bin'],
    dest: '~/x',
  });
  assert.ok(down.ok, JSON.stringify(down));
  const up = await h.service.invoke('queue.enqueue', {
    siteId,
    direction: 'upload',
    sources: ['~/a.txt', '/l/b'],
    dest: '/r',
  });
  assert.ok(up.ok, JSON.stringify(up));
  await until(h, () => h.engine.requests.length === 2, 'both transfers started');
  const [get, put] = h.engine.requests;
  assert.equal(get.dest, path.join(os.homedir(), 'x'));
  assert.deepEqual(put.sources, [path.join(os.homedir(), 'a.txt'), '/l/b']);
});
