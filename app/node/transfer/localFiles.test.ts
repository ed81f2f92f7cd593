/**
 * A download's commit (localFiles.ts localCommit) on file systems without hard links (#30 item 2): link(2) refused
 * (EPERM on Linux vfat and SMB, ENOTSUP on NAS mounts, EISDIR from Node on exFAT) falls back to an exclusive claim of
 * the name and a rename over it, which still never replaces a file that exists. The refusals are injected into
 * fs.promises.link; a real FAT image (test/fatImage.ts) is used where one can be mounted here.
 */
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeTempDir, removeDir } from '../test/helpers';
import { mountFatImage, type FatMount } from '../test/fatImage';
import { localCommit } from './localFiles';
import { SluiceError } from '../errors';

let work: string;
const restores: Array<() => void> = [];

before(async () => {
  work = await makeTempDir('sluice-commit-');
});
after(async () => {
  if (work) await removeDir(work);
});
afterEach(() => {
  for (const r of restores.splice(0)) r();
});

/** An error as fs reports it (code, syscall). */
function errnoError(code: string, syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected, ${syscall}`), { code, syscall, errno: -1 });
}

/**
 * Makes fs.promises[name] fail with `code` for its first `times` calls (Infinity: always), then work again.
 * @returns the calls made so far
 */
function inject(name: 'link' | 'rename', code: string, times = Infinity): { calls: number } {
  const real = fs.promises[name];
  const seen = { calls: 0 };
  fs.promises[name] = (async (a: fs.PathLike, b: fs.PathLike) => {
    seen.calls++;
    if (seen.calls <= times) throw errnoError(code, name);
    return real(a, b);
  }) as typeof real;
  restores.push(() => {
    fs.promises[name] = real;
  });
  return seen;
}

/** A finished temporary file and the target it commits to, in a fresh folder under `root`. */
function pair(root: string, name: string, text = `data of ${name}`): { temp: string; target: string } {
  const dir = fs.mkdtempSync(path.join(root, 'c-'));
  const temp = path.join(dir, `.${name}.sluice-0badc0de.part`);
  fs.writeFileSync(temp, text);
  return { temp, target: path.join(dir, name) };
}

describe('no-clobber commit where the file system has no hard links', () => {
  for (const code of ['EPERM', 'ENOTSUP', 'EISDIR']) {
    test(`link refused ${code}: committed by an exclusive claim + rename, the temporary name gone`, async () => {
      const link = inject('link', code);
      const { temp, target } = pair(work, `f-${code}.bin`);
      await localCommit(temp, target, 'no-clobber');
      assert.equal(link.calls, 1);
      assert.equal(fs.readFileSync(target, 'utf8'), `data of f-${code}.bin`);
      assert.equal(fs.existsSync(temp), false);
    });
  }

  test('link refused and the target exists: EXISTS, the target untouched, the temporary file kept', async () => {
    inject('link', 'EPERM');
    const { temp, target } = pair(work, 'taken.bin');
    fs.writeFileSync(target, 'theirs');
    await assert.rejects(
      localCommit(temp, target, 'no-clobber'),
      (e: SluiceError) => e.code === 'EXISTS' && e.message.includes(target),
    );
    assert.equal(fs.readFileSync(target, 'utf8'), 'theirs');
    assert.equal(fs.readFileSync(temp, 'utf8'), 'data of taken.bin');
  });

  test('link refused and the rename fails: the error names the target, the empty claim is removed', async () => {
    inject('link', 'EPERM');
    inject('rename', 'EXDEV');
    const { temp, target } = pair(work, 'moved.bin');
    await assert.rejects(
      localCommit(temp, target, 'no-clobber'),
      (e: SluiceError) => e.message.includes(target) && /EXDEV|cross-device/.test(e.message),
    );
    assert.equal(fs.existsSync(target), false, 'the claim of the name must not stay behind');
    assert.equal(fs.existsSync(temp), true);
  });

  test('link refused for another reason (EACCES): no fallback, the error is reported', async () => {
    const link = inject('link', 'EACCES');
    const { temp, target } = pair(work, 'denied.bin');
    await assert.rejects(localCommit(temp, target, 'no-clobber'), (e: SluiceError) =>
      /permission denied/i.test(e.message),
    );
    assert.equal(link.calls, 1);
    assert.equal(fs.existsSync(target), false);
  });
});

describe('no-clobber commit on a real FAT file system', () => {
  let fat: FatMount | string;
  before(async () => {
    fat = await mountFatImage();
  });
  after(async () => {
    if (typeof fat !== 'string') await fat.remove();
  });

  test('link(2) fails there; the commit works and still refuses an existing target', async (t) => {
    const m = fat;
    if (typeof m === 'string') {
      t.skip(m);
      return;
    }
    t.diagnostic(`FAT mounted through ${m.how}`);
    const probe = path.join(m.dir, 'probe');
    fs.writeFileSync(probe, 'x');
    assert.throws(() => fs.linkSync(probe, path.join(m.dir, 'probe-link')), 'FAT has no hard links');
    const { temp, target } = pair(m.dir, 'copy.bin');
    await localCommit(temp, target, 'no-clobber');
    assert.equal(fs.readFileSync(target, 'utf8'), 'data of copy.bin');
    assert.equal(fs.existsSync(temp), false);
    const again = pair(path.dirname(target), 'x', 'second');
    await assert.rejects(localCommit(again.temp, target, 'no-clobber'), (e: SluiceError) => e.code === 'EXISTS');
    assert.equal(fs.readFileSync(target, 'utf8'), 'data of copy.bin');
  });
});
