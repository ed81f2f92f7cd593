/**
 * `remote.list` resolves symbolic links (service/remoteListing.ts) against a private OpenSSH sshd: a link to a file is
 * listed as that file (its size), a link to a folder as a folder, a link to nothing as a broken link, each with the
 * path the link names; and the local listing says the same of local links.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SSHD_PATH } from '../../../e2e/fixtures/sshd';
import { connectAccepting, setupSshd } from './sshdService';

/** Makes `dir` with a file, a folder, and links to each, a relative link and a broken one. */
function linkFarm(dir: string): void {
  fs.mkdirSync(path.join(dir, 'sub'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'alpha.txt'), 'x'.repeat(1234));
  fs.symlinkSync(path.join(dir, 'alpha.txt'), path.join(dir, 'to-file'));
  fs.symlinkSync('alpha.txt', path.join(dir, 'relative'));
  fs.symlinkSync(path.join(dir, 'sub'), path.join(dir, 'to-dir'));
  fs.symlinkSync(path.join(dir, 'missing'), path.join(dir, 'broken'));
}

const EXPECTED = (dir: string) => [
  ['alpha.txt', 'file', 1234, undefined],
  ['broken', 'symlink', 0, { target: path.join(dir, 'missing'), broken: true }],
  ['relative', 'file', 1234, { target: 'alpha.txt', broken: false }],
  ['sub', 'dir', undefined, undefined],
  ['to-dir', 'dir', undefined, { target: path.join(dir, 'sub'), broken: false }],
  ['to-file', 'file', 1234, { target: path.join(dir, 'alpha.txt'), broken: false }],
];

const rows = (entries: { name: string; type: string; size: number; link?: unknown }[]) =>
  entries
    .map((e) => [e.name, e.type, e.type === 'dir' ? undefined : e.size, e.link])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));

test(
  'remote.list: links show their target (file, folder, size, path); a broken link says so',
  { skip: fs.existsSync(SSHD_PATH) ? false : `${SSHD_PATH} not installed` },
  async (t) => {
    const c = await setupSshd(t);
    await connectAccepting(c);
    const dir = path.join(c.server.root, 'links');
    linkFarm(dir);
    const listing = await c.service.invoke('remote.list', { siteId: c.siteId, path: dir });
    assert.ok(listing.ok, JSON.stringify(listing));
    assert.deepEqual(rows(listing.value.entries), EXPECTED(dir));
  },
);

test('local.list: the same for local links', async (t) => {
  const c = await setupSshd(t);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-links-'));
  t.after(async () => fs.rmSync(dir, { recursive: true, force: true }));
  linkFarm(dir);
  const listing = await c.service.invoke('local.list', { path: dir });
  assert.ok(listing.ok, JSON.stringify(listing));
  assert.deepEqual(rows(listing.value.entries), EXPECTED(dir));
});
