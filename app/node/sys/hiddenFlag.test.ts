/**
 * Hidden-by-flag entries (#30 item 11): Windows hidden/system and macOS UF_HIDDEN come from the addon (platform and
 * addon injected: the flags cannot be set on Linux); the local listing marks them and the panes hide them with the
 * dot-files unless "show hidden" is on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sortEntries } from '../../../renderer/format/entries';
import { listLocal } from '../service/localFs';
import { isHiddenByFlag } from './hiddenFlag';
import { nativeAddon } from './native';

test('the flag is asked on Windows and macOS only; no addon or a failing call shows the entry', () => {
  const asked: string[] = [];
  const addon = {
    isHidden: (p: string) => {
      asked.push(p);
      return p.endsWith('desktop.ini');
    },
  };
  assert.equal(isHiddenByFlag('C:\\x\\desktop.ini', 'win32', addon), true);
  assert.equal(isHiddenByFlag('/Users/me/Library', 'darwin', { isHidden: () => true }), true);
  assert.equal(isHiddenByFlag('C:\\x\\a.txt', 'win32', addon), false);
  assert.equal(isHiddenByFlag('/home/me/desktop.ini', 'linux', addon), false);
  assert.deepEqual(asked, ['C:\\x\\desktop.ini', 'C:\\x\\a.txt']);
  assert.equal(isHiddenByFlag('C:\\x\\desktop.ini', 'win32', undefined), false);
  assert.equal(
    isHiddenByFlag('C:\\x', 'win32', {
      isHidden: () => {
        throw new Error('EBADF');
      },
    }),
    false,
  );
  if (nativeAddon()?.isHidden) assert.equal(nativeAddon()!.isHidden!(os.tmpdir()), false, 'Linux has no such flag');
});

test('the listing marks flagged entries; the pane hides them unless asked, like dot-files', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-hidden-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const n of ['desktop.ini', 'a.txt', '.dot']) fs.writeFileSync(path.join(dir, n), 'x');
  const listing = await listLocal(dir, (full) => path.basename(full) === 'desktop.ini');
  const byName = new Map(listing.entries.map((e) => [e.name, e]));
  assert.equal(byName.get('desktop.ini')?.hidden, true);
  assert.equal(byName.get('a.txt')?.hidden, undefined);
  const sort = { key: 'name', dir: 'asc' } as const;
  assert.deepEqual(
    sortEntries(listing.entries, sort, false).map((e) => e.name),
    ['a.txt'],
  );
  assert.deepEqual(
    sortEntries(listing.entries, sort, true).map((e) => e.name),
    ['.dot', 'a.txt', 'desktop.ini'],
  );
});
