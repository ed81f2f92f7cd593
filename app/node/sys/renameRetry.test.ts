/**
 * Renames tried again while another program holds the file (#30 item 4; renameRetry.ts), with EBUSY injected into
 * fs.promises.rename / fs.renameSync as Windows reports a file an editor or antivirus has open: the rule itself, and
 * the three places that replace a file by renaming onto it (a download's commit, the secrets file, known_hosts edits).
 */
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import * as path from 'node:path';
import { makeTempDir, parsableEd25519Pair, removeDir } from '../test/helpers';
import { isTransientRenameError, renameRetrying, renameSyncRetrying } from './renameRetry';
import { localCommit } from '../transfer/localFiles';
import { forgetStoredSecret } from '../stores/secretsFile';
import { readKnownHostsEntries, removeKnownHostsLine } from '../stores/knownHostsEdit';

let work: string;
const restores: Array<() => void> = [];
before(async () => {
  work = await makeTempDir('sluice-rename-');
});
after(async () => {
  if (work) await removeDir(work);
});
afterEach(() => {
  for (const r of restores.splice(0)) r();
});

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: (injected), rename`), { code, syscall: 'rename', errno: -1 });
}

/** A rename that fails with `code` `times` times, then renames; counts its calls. */
function flaky(code: string, times: number): { calls: number; rename: (a: string, b: string) => void } {
  const f = {
    calls: 0,
    rename(a: string, b: string): void {
      f.calls++;
      if (f.calls <= times) throw errno(code);
      fs.renameSync(a, b);
    },
  };
  return f;
}

/** Makes the real fs.promises.rename and fs.renameSync fail with EBUSY for their first `times` calls. */
function busyRenames(times: number): { calls: () => number } {
  const realAsync = fs.promises.rename;
  const realSync = fs.renameSync;
  let n = 0;
  fs.promises.rename = async (a, b) => {
    n++;
    if (n <= times) throw errno('EBUSY');
    return realAsync(a, b);
  };
  fs.renameSync = (a, b) => {
    n++;
    if (n <= times) throw errno('EBUSY');
    return realSync(a, b);
  };
  restores.push(() => {
    fs.promises.rename = realAsync;
    fs.renameSync = realSync;
  });
  return { calls: () => n };
}

function fileWith(name: string, text: string): string {
  const p = path.join(work, name);
  fs.writeFileSync(p, text);
  return p;
}

describe('the rule', () => {
  test('EBUSY is retried everywhere; EPERM and EACCES only on Windows', () => {
    assert.equal(isTransientRenameError('EBUSY', 'linux'), true);
    assert.equal(isTransientRenameError('EPERM', 'linux'), false);
    assert.equal(isTransientRenameError('EACCES', 'darwin'), false);
    assert.equal(isTransientRenameError('EPERM', 'win32'), true);
    assert.equal(isTransientRenameError('EACCES', 'win32'), true);
    assert.equal(isTransientRenameError('ENOENT', 'win32'), false);
  });

  test('EBUSY twice, then the rename goes through (3 tries)', async () => {
    const r = flaky('EBUSY', 2);
    const from = fileWith('a1', 'x');
    await renameRetrying(from, path.join(work, 'b1'), { rename: r.rename });
    assert.equal(r.calls, 3);
    assert.equal(fs.readFileSync(path.join(work, 'b1'), 'utf8'), 'x');
  });

  test('EPERM on Linux fails at once; on Windows (injected) it is waited out', async () => {
    const linux = flaky('EPERM', 1);
    const from = fileWith('a2', 'y');
    await assert.rejects(
      renameRetrying(from, path.join(work, 'b2'), { rename: linux.rename, platform: 'linux' }),
      /EPERM/,
    );
    assert.equal(linux.calls, 1);
    const win = flaky('EPERM', 3);
    await renameRetrying(from, path.join(work, 'b2'), { rename: win.rename, platform: 'win32' });
    assert.equal(win.calls, 4);
  });

  test('a file held for good: the last EBUSY after the limit, a bounded number of tries', async () => {
    const r = flaky('EBUSY', Infinity);
    const from = fileWith('a3', 'z');
    const started = Date.now();
    await assert.rejects(renameRetrying(from, path.join(work, 'b3'), { rename: r.rename, limitMs: 200 }), /EBUSY/);
    assert.ok(r.calls >= 2 && r.calls <= 20, `${r.calls} tries within 200 ms`);
    assert.ok(Date.now() - started < 5_000);
    const s = flaky('EBUSY', Infinity);
    assert.throws(() => renameSyncRetrying(from, path.join(work, 'b3'), { rename: s.rename, limitMs: 200 }), /EBUSY/);
    assert.ok(s.calls >= 2 && s.calls <= 20, `${s.calls} synchronous tries within 200 ms`);
    assert.equal(fs.existsSync(from), true);
  });
});

describe('where files are replaced by a rename, with EBUSY injected', () => {
  test("a download's commit over an existing target", async () => {
    const temp = fileWith('.t.bin.sluice-00000000.part', 'new');
    const target = fileWith('t.bin', 'old');
    const busy = busyRenames(2);
    await localCommit(temp, target, 'overwrite');
    assert.equal(busy.calls(), 3);
    assert.equal(fs.readFileSync(target, 'utf8'), 'new');
  });

  test("the secrets file (a site's entry removed)", () => {
    const home = fs.mkdtempSync(path.join(work, 'home-'));
    fs.writeFileSync(path.join(home, 'secrets.json'), JSON.stringify({ a: 'c2VjcmV0', b: 'b3RoZXI=' }));
    const busy = busyRenames(1);
    assert.equal(forgetStoredSecret(home, 'a'), true);
    assert.equal(busy.calls(), 2);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(home, 'secrets.json'), 'utf8')), { b: 'b3RoZXI=' });
  });

  test('known_hosts (a line removed)', async () => {
    const pub = parsableEd25519Pair().public.split(' ');
    const file = fileWith('known_hosts', `one ${pub[0]} ${pub[1]}\ntwo ${pub[0]} ${pub[1]}\n`);
    const [entry] = await readKnownHostsEntries({ readPaths: [file], writePath: file });
    const busy = busyRenames(2);
    await removeKnownHostsLine(file, 1, entry.fingerprint);
    assert.equal(busy.calls(), 3);
    assert.equal(fs.readFileSync(file, 'utf8'), `two ${pub[0]} ${pub[1]}\n`);
  });
});
