/**
 * The local listing on Windows (#30 item 7), on Linux with the platform injected: This PC lists the drives present and
 * the UNC shares listed since the start; a bare `D:` is listed at its root (not D:'s working folder); listings carry
 * the platform's separator; nothing can be created, renamed or deleted in This PC.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Listing } from '../../common/ipc/contract';
import { DRIVES_PATH } from '../../common/localPaths';
import { SluiceError } from '../errors';
import { listLocalAt, makeLocalFolder, removeLocal, renameLocal, type LocalSystem } from './localFs';

function windows(): LocalSystem & { listed: string[] } {
  const listed: string[] = [];
  return {
    platform: 'win32',
    listed,
    drives: async () => ['C', 'E'],
    list: async (p: string): Promise<Listing> => {
      listed.push(p);
      return { path: p, entries: [{ name: 'x', type: 'file', size: 1, mtimeMs: 0 }] };
    },
  };
}

test('This PC: drives, then the shares visited; a bare drive is its root; the separator is \\', async () => {
  const sys = windows();
  const top = await listLocalAt(DRIVES_PATH, sys);
  assert.equal(top.sep, '\\');
  assert.deepEqual(
    top.entries.map((e) => [e.name, e.type]),
    [
      ['C:', 'dir'],
      ['E:', 'dir'],
    ],
  );
  assert.equal((await listLocalAt('E:', sys)).sep, '\\');
  await listLocalAt('\\\\nas\\media\\films', sys);
  assert.deepEqual(sys.listed, ['E:\\', '\\\\nas\\media\\films']);
  const again = await listLocalAt(DRIVES_PATH, sys);
  assert.deepEqual(
    again.entries.map((e) => e.name),
    ['C:', 'E:', '\\\\nas\\media'],
  );
});

test('POSIX listings say /; This PC refuses create, rename and delete', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-local-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const listing = await listLocalAt(dir);
  assert.equal(listing.sep, process.platform === 'win32' ? '\\' : '/');
  const refused = (re: RegExp) => (e: unknown) => e instanceof SluiceError && e.code === 'USAGE' && re.test(e.message);
  await assert.rejects(makeLocalFolder(`${DRIVES_PATH}\\new`), refused(/Cannot create a folder in This PC/));
  await assert.rejects(renameLocal(`${DRIVES_PATH}\\C:`, `${DRIVES_PATH}\\D:`), refused(/Cannot rename in This PC/));
  await assert.rejects(removeLocal(`${DRIVES_PATH}\\C:`, true), refused(/Cannot delete in This PC/));
  assert.deepEqual(
    fs.readdirSync(process.cwd()).filter((n) => n.startsWith(':drives')),
    [],
  );
});
